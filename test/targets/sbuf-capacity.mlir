// --target selects the modelled NeuronCore (mxdsl/targets.py) on mx-opt and mx-run. One
// SBUF tile of 61440 f32 = 245760 bytes (240 KiB) per partition fits trn3 (256 KiB, the
// default) but not trn2 (224 KiB = 229376 bytes): the nisa verifier refuses it under trn2,
// in mx-opt and in mx-run alike. Every row of the result is the sum of 61440 ones.
// RUN: mx-opt %s | filecheck %s --check-prefix=IR
// RUN: mx-opt %s --target trn3 | filecheck %s --check-prefix=IR
// RUN: not mx-opt %s --target trn2 2>&1 | filecheck %s --check-prefix=TRN2
// RUN: not mx-opt %s -t trn2 -t mlir 2>&1 | filecheck %s --check-prefix=TRN2
// RUN: mx-run %s --random-inputs 0 | filecheck %s --check-prefix=OUT
// RUN: mx-run %s --random-inputs 0 --target trn3 | filecheck %s --check-prefix=OUT
// RUN: not mx-run %s --random-inputs 0 --target trn2 2>&1 | filecheck %s --check-prefix=TRN2
// The bir kernel runs on the target's memories too: lowered for trn3 (the tool's target,
// which the pass takes when its own target option is not given) it gives the same rows.
// RUN: mx-run %s --random-inputs 0 --target trn3 -p lower-nisa-to-bir | filecheck %s --check-prefix=OUT
// A pass option wins over the tool's --target: the allocator refuses the tile on trn2.
// RUN: not mx-opt %s --target trn3 -p "lower-nisa-to-bir{target=trn2}" 2>&1 | filecheck %s --check-prefix=ALLOC
// The bir kernel lowered for trn3 does not verify on trn2.
// RUN: mx-opt %s -p lower-nisa-to-bir | not mx-opt --target trn2 2>&1 | filecheck %s --check-prefix=BIR
// --help says what --target selects.
// RUN: mx-opt --help | filecheck %s --check-prefix=USAGE-OPT
// RUN: mx-run --help | filecheck %s --check-prefix=USAGE-TOOL
// An unknown target is a usage error naming the known ones.
// RUN: not mx-opt %s --target trn1 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not mx-run %s --random-inputs 0 --target trn1 2>&1 | filecheck %s --check-prefix=UNKNOWN-TOOL

// IR: nisa.memset %big, 1.000000e+00 : memref<128x61440xf32, #nisa.mem<sbuf>>
// TRN2: sbuf-capacity.mlir:[[# @LINE + 14]]:3: error: 'nisa.memset' op dst uses 245760 bytes per partition, exceeding the 229376 bytes of one trn2 sbuf partition
// OUT: arg0: memref<128x1xf32, #nisa.mem<hbm>> shape=(128, 1) dtype=float32 min=61440 max=61440 mean=61440 nan=0
// BIR: error: 'bir.memset' op dst touches bytes [0, 245760), outside a 229376-byte sbuf partition of trn2
// ALLOC: error: 'memref.alloc' op lower-nisa-to-bir: sbuf buffer %big (memref<128x61440xf32, #nisa.mem<sbuf>>) needs 245760 bytes per partition
// ALLOC-SAME: of the 229376-byte sbuf partition of trn2
// USAGE-OPT: -t TARGET, --target TARGET
// USAGE-OPT-NEXT: the modelled NeuronCore: trn3 or trn2 (default
// USAGE-TOOL: --target {trn3,trn2} the modelled NeuronCore
// UNKNOWN: mx-opt: error: argument -t/--target: invalid choice: 'trn1' (a modelled NeuronCore: trn3, trn2; or an output target: {{.*}}mlir
// UNKNOWN-TOOL: mx-run: error: argument --target: invalid choice: 'trn1' (choose from 'trn3', 'trn2')

func.func @main(%out: memref<128x1xf32, #nisa.mem<hbm>>) {
  %big = memref.alloc() : memref<128x61440xf32, #nisa.mem<sbuf>>
  %row = memref.alloc() : memref<128x1xf32, #nisa.mem<sbuf>>
  nisa.memset %big, 1.0 : memref<128x61440xf32, #nisa.mem<sbuf>>
  nisa.tensor_reduce %row, add %big axes [1] : memref<128x1xf32, #nisa.mem<sbuf>>, memref<128x61440xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %out, %row : memref<128x1xf32, #nisa.mem<hbm>>, memref<128x1xf32, #nisa.mem<sbuf>>
  func.return
}
