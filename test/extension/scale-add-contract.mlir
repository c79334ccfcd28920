// The contract of ExtScaleAdd, found through its mxdsl.contracts entry point.

// RUN: mx-opt %s --split-input-file --verify-diagnostics
// RUN: not mx-opt %s 2>&1 | filecheck %s --check-prefix=ERR
// ERR-NOT: Traceback
// ERR:      scale-add-contract.mlir:[[# @LINE + 5]]:3: error: 'hlo.custom_call' op [EXT11] ExtScaleAdd: 1 operands
// ERR-NEXT: cause: ExtScaleAdd takes exactly two operands (x and y of x * scale + y).
// ERR-NEXT: resolution: Pass the scaled tensor, then the added tensor.
func.func @operands(%x: tensor<8xf32>) {
  // expected-error@+1 {{[EXT11] ExtScaleAdd: 1 operands}}
  %y = hlo.custom_call @ExtScaleAdd(%x) {backend_config = "{\22scale\22: 2.0}"} : (tensor<8xf32>) -> tensor<8xf32>
  func.return
}

// -----

func.func @no_scale(%x: tensor<8xf32>) {
  // expected-error@+1 {{[EXT12] ExtScaleAdd: backend_config '{"factor": 2}' has no number scale}}
  %y = hlo.custom_call @ExtScaleAdd(%x, %x) {backend_config = "{\22factor\22: 2}"} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  func.return
}

// -----

func.func @f16(%x: tensor<8xf16>) {
  // expected-error@+1 {{[EXT13] ExtScaleAdd: x is tensor<8xf16>}}
  %y = hlo.custom_call @ExtScaleAdd(%x, %x) {backend_config = "{\22scale\22: 2.0}"} : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xf16>
  func.return
}

// -----

func.func @mismatch(%x: tensor<8xf32>, %y: tensor<4xf32>) {
  // expected-error@+1 {{[EXT13] ExtScaleAdd: x is tensor<8xf32>, y tensor<4xf32>, the result tensor<8xf32>}}
  %z = hlo.custom_call @ExtScaleAdd(%x, %y) {backend_config = "{\22scale\22: 2.0}"} : (tensor<8xf32>, tensor<4xf32>) -> tensor<8xf32>
  func.return
}
