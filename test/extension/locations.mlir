// What an extension's lowering emits carries the location of the op it lowers (as the
// built-in lowerings' ops do), shown by mx-opt --print-debuginfo at nisa and at bir:
// the worked example's ExtScaleAdd, emitted through lowering.builder, and RawCopy of
// Inputs/raw-builder (a .dist-info beside the code, put on PYTHONPATH), whose lowering
// builds its memref.alloc and nisa.dma_copy with a plain xDSL Builder.

// RUN: env PYTHONPATH=%S/Inputs/raw-builder mx-opt %s -p lower-hlo-to-nisa --print-debuginfo | filecheck %s --check-prefix=NISA
// NISA:      func.func @scale_add(
// NISA:      arith.constant 3.000000e-01 : f32 loc("model.py":12:3)
// NISA:      nisa.dma_copy {{.*}} loc("model.py":12:3)
// NISA:      nisa.scalar_tensor_tensor {{.*}} loc("model.py":12:3)
// NISA:      nisa.dma_copy {{.*}} loc("model.py":12:3)
// NISA:      func.return {{.*}} loc("model.py":13:3)
// NISA:      func.func @raw_copy(
// NISA-NEXT: memref.alloc() : memref<4x8xf32, #nisa.mem<hbm>> loc("model.py":20:3)
// NISA-NEXT: nisa.dma_copy {{.*}} loc("model.py":20:3)
// NISA-NEXT: func.return {{.*}} loc("model.py":21:3)

// RUN: env PYTHONPATH=%S/Inputs/raw-builder mx-opt %s -p lower-hlo-to-nisa,lower-nisa-to-bir --print-debuginfo | filecheck %s --check-prefix=BIR
// BIR:     func.func @scale_add(
// BIR:     bir.scalar_tensor_tensor {{.*}} loc("model.py":12:3)
// BIR:     func.func @raw_copy(
// BIR:     bir.{{.*}} loc("model.py":20:3)
// BIR-NOT: bir.{{.*}}loc(unknown)

func.func @scale_add(%x: tensor<300x40xbf16>, %y: tensor<300x40xbf16>) -> tensor<300x40xbf16> {
  %z = hlo.custom_call @ExtScaleAdd(%x, %y) {backend_config = "{\22scale\22: 0.3}"} : (tensor<300x40xbf16>, tensor<300x40xbf16>) -> tensor<300x40xbf16> loc("model.py":12:3)
  func.return %z : tensor<300x40xbf16> loc("model.py":13:3)
}

func.func @raw_copy(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = hlo.custom_call @RawCopy(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> loc("model.py":20:3)
  func.return %y : tensor<4x8xf32> loc("model.py":21:3)
}
