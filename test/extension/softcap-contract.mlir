// The contract of the example extension's custom-call target ExtSoftCap. This file uses
// only hlo.custom_call, none of the extension's ops: the contract is found through its
// mxdsl.contracts entry point when a call names the target.

// RUN: mx-opt %s --split-input-file --verify-diagnostics
// RUN: not mx-opt %s 2>&1 | filecheck %s --check-prefix=ERR
// RUN: xdsl-opt %s --split-input-file --verify-diagnostics | filecheck %s --check-prefix=XDSL

// The error reads like an MX contract error: code, target, detail, cause, resolution.
// ERR-NOT: Traceback
// ERR:      softcap-contract.mlir:[[# @LINE + 7]]:3: error: 'hlo.custom_call' op [EXT01] ExtSoftCap: 2 operands
// ERR-NEXT: cause: ExtSoftCap takes exactly one operand (the tensor to cap).
// ERR-NEXT: resolution: Pass the logits tensor as the only operand.
// XDSL: [EXT01] ExtSoftCap: 2 operands
// XDSL: [EXT02] ExtSoftCap: backend_config is not JSON
func.func @operands(%x: tensor<8xf32>) {
  // expected-error@+1 {{[EXT01] ExtSoftCap: 2 operands}}
  %y = hlo.custom_call @ExtSoftCap(%x, %x) {backend_config = "{\22cap\22: 30.0}"} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  func.return
}

// -----

func.func @not_json(%x: tensor<8xf32>) {
  // expected-error@+1 {{[EXT02] ExtSoftCap: backend_config is not JSON}}
  %y = hlo.custom_call @ExtSoftCap(%x) {backend_config = "cap=30"} : (tensor<8xf32>) -> tensor<8xf32>
  func.return
}

// -----

func.func @no_cap(%x: tensor<8xf32>) {
  // expected-error@+1 {{[EXT02] ExtSoftCap: backend_config '{"limit": 30}' has no field cap}}
  %y = hlo.custom_call @ExtSoftCap(%x) {backend_config = "{\22limit\22: 30}"} : (tensor<8xf32>) -> tensor<8xf32>
  func.return
}

// -----

func.func @cap_string(%x: tensor<8xf32>) {
  // expected-error@+1 {{[EXT02] ExtSoftCap: cap is "30", not a number}}
  %y = hlo.custom_call @ExtSoftCap(%x) {backend_config = "{\22cap\22: \2230\22}"} : (tensor<8xf32>) -> tensor<8xf32>
  func.return
}

// -----

func.func @cap_zero(%x: tensor<8xf32>) {
  // expected-error-re@+1 {{[EXT03] ExtSoftCap: cap is 0{{$}}}}
  %y = hlo.custom_call @ExtSoftCap(%x) {backend_config = "{\22cap\22: 0}"} : (tensor<8xf32>) -> tensor<8xf32>
  func.return
}

// -----

func.func @int_tensor(%x: tensor<8xi32>) {
  // expected-error@+1 {{[EXT04] ExtSoftCap: the operand is tensor<8xi32>}}
  %y = hlo.custom_call @ExtSoftCap(%x) {backend_config = "{\22cap\22: 30.0}"} : (tensor<8xi32>) -> tensor<8xi32>
  func.return
}

// -----

func.func @result_type(%x: tensor<8xbf16>) {
  // expected-error@+1 {{[EXT04] ExtSoftCap: the result is tensor<8xf32>, the operand tensor<8xbf16>}}
  %y = hlo.custom_call @ExtSoftCap(%x) {backend_config = "{\22cap\22: 30.0}"} : (tensor<8xbf16>) -> tensor<8xf32>
  func.return
}

// -----

// A valid call verifies.
func.func @valid(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %y = hlo.custom_call @ExtSoftCap(%x) {backend_config = "{\22cap\22: 30.0}"} : (tensor<8xbf16>) -> tensor<8xbf16>
  func.return %y : tensor<8xbf16>
}
