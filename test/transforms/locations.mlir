// Every op a lowering emits carries the location of the op it came from: the nisa ops of
// the dot_general (its views and index arithmetic) and, after lower-nisa-to-bir, its bir
// instructions, loc("model.py":7:5); the function boundary keeps its own. The printed
// locations parse back (the second mx-opt prints the same).

// RUN: mx-opt %s -p lower-hlo-to-nisa --print-debuginfo | filecheck %s --check-prefix=NISA
// RUN: mx-opt %s -p lower-hlo-to-nisa,lower-nisa-to-bir --print-debuginfo | filecheck %s --check-prefix=BIR
// RUN: mx-opt %s -p lower-hlo-to-nisa,lower-nisa-to-bir --print-debuginfo | mx-opt --print-debuginfo | filecheck %s --check-prefix=BIR
// RUN: mx-moe emit --implementation shard_on_i --checkpoint --tokens 20 --experts 2 --debuginfo | filecheck %s --check-prefix=MOE

func.func @main(%l: tensor<4x300xbf16>, %r: tensor<300x8xbf16>) -> tensor<4x8xf32> {
  %d = hlo.dot_general %l, %r, contracting_dims = [1] x [0] : (tensor<4x300xbf16>, tensor<300x8xbf16>) -> tensor<4x8xf32> loc("model.py":7:5)
  func.return %d : tensor<4x8xf32> loc("model.py":8:3)
}

// NISA:     arith.constant 0 : index loc("model.py":7:5)
// NISA:     memref.alloc() {{.*}} loc("model.py":7:5)
// NISA:     nisa.permute {{.*}} loc("model.py":7:5)
// NISA:     nisa.dma_copy {{.*}} loc("model.py":7:5)
// NISA:     nisa.nc_matmul {{.*}} loc("model.py":7:5)
// NISA:     nisa.tensor_copy {{.*}} loc("model.py":7:5)
// NISA:     func.return {{.*}} loc("model.py":8:3)

// BIR:      arith.constant {{.*}} loc("model.py":7:5)
// BIR-NOT:  arith.constant {{.*}} loc(unknown)
// BIR:      arith.muli {{.*}} loc("model.py":7:5)
// BIR:      bir.dma {{.*}} loc("model.py":7:5)
// BIR:      bir.matmult {{.*}} loc("model.py":7:5)
// BIR:      bir.tensor_copy {{.*}} loc("model.py":7:5)
// BIR:      bir.dma {{.*}} loc("model.py":7:5)
// BIR:      func.return {{.*}} loc("model.py":8:3)

// The kernel builders: the builder line, inside a named region where one applies.
// MOE-DAG: nisa.nc_matmul {{.*}} loc("gate"("mxdsl/kernels/moe_cte/ffn.py":{{[0-9]+}}:1))
// MOE-DAG: nisa.nc_matmul {{.*}} loc("up"("mxdsl/kernels/moe_cte/ffn.py":{{[0-9]+}}:1))
// MOE-DAG: nisa.activation {{.*}} loc("act"("mxdsl/kernels/moe_cte/ffn.py":{{[0-9]+}}:1))
// MOE-DAG: nisa.nc_matmul {{.*}} loc("down"("mxdsl/kernels/moe_cte/{{.*}}.py":{{[0-9]+}}:1))
// MOE-DAG: nisa.dma_copy {{.*}} loc("scatter"("mxdsl/kernels/moe_cte/ffn.py":{{[0-9]+}}:1))
// MOE-DAG: memref.alloc() {{.*}} loc("mxdsl/kernels/moe_cte/{{.*}}.py":{{[0-9]+}}:1)
