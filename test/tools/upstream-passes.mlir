// Every upstream xDSL dialect and pass is still there: canonicalize and cse run over a
// mix of hlo, arith and func. hlo.constant / hlo.convert are Pure (an unused one is
// dead, equal constants merge); hlo.custom_call is not (a backend call is kept even
// when its result is unused).

// RUN: mx-opt %s -p canonicalize,cse | filecheck %s
// RUN: mx-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul,canonicalize,cse | filecheck %s --check-prefix=MX

func.func @f(%x: tensor<2x32xbf16>) -> (tensor<2xi64>, tensor<2xi64>, index) {
  %a = hlo.constant dense<[1, 2]> : tensor<2xi64>
  %b = hlo.constant dense<[1, 2]> : tensor<2xi64>
  %dead = hlo.convert %x : (tensor<2x32xbf16>) -> tensor<2x32xf32>
  %kept = hlo.custom_call @side.effect(%x) : (tensor<2x32xbf16>) -> tensor<2x32xbf16>
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %s = arith.addi %c2, %c3 : index
  func.return %a, %b, %s : tensor<2xi64>, tensor<2xi64>, index
}

// CHECK-LABEL: func.func @f(%x: tensor<2x32xbf16>) -> (tensor<2xi64>, tensor<2xi64>, index) {
// CHECK-NEXT:    %a = hlo.constant dense<[1, 2]> : tensor<2xi64>
// CHECK-NEXT:    %kept = hlo.custom_call @side.effect(%x)
// CHECK-NEXT:    %s = arith.constant 5 : index
// CHECK-NEXT:    func.return %a, %a, %s : tensor<2xi64>, tensor<2xi64>, index

// MX-LABEL: func.func @main(
// MX-COUNT-2: @QuantizeMX_bf16_e4m3fn(
// MX:         @ScaledMatmul_e4m3fn_e4m3fn_f32(
