// Verifier errors of tensor_tensor, tensor_scalar, scalar_tensor_tensor, tensor_reduce,
// activation and tensor_copy_predicated.
// RUN: mx-opt %s --split-input-file --verify-diagnostics

func.func @both_psum(%p: memref<128x512xf32, #nisa.mem<psum>>, %a: memref<128x512xf32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_tensor' op data1 and data2 cannot both be in psum}}
  nisa.tensor_tensor %a, add %p, %p : memref<128x512xf32, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<psum>>, memref<128x512xf32, #nisa.mem<psum>>
  func.return
}

// -----

func.func @power_psum(%p: memref<128x512xf32, #nisa.mem<psum>>, %a: memref<128x512xf32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_tensor' op data2 must be in sbuf, got psum}}
  nisa.tensor_tensor %a, power %a, %p : memref<128x512xf32, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<psum>>
  func.return
}

// -----

func.func @tt_layout(%a: memref<128x512xf32, #nisa.mem<sbuf>>, %b: memref<128x256xf32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_tensor' op data1 has 512 elements per partition but data2 has 256}}
  nisa.tensor_tensor %a, add %a, %b : memref<128x512xf32, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<sbuf>>, memref<128x256xf32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @ts_op1_without_operand(%a: memref<128x512xf32, #nisa.mem<sbuf>>, %s: f32) {
  // expected-error@+1 {{'nisa.tensor_scalar' op op1 and operand1 come together}}
  "nisa.tensor_scalar"(%a, %a, %s) <{op0 = #nisa<alu add>, op1 = #nisa<alu multiply>}> : (memref<128x512xf32, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<sbuf>>, f32) -> ()
  func.return
}

// -----

func.func @ts_reverse1_without_op1(%a: memref<128x512xf32, #nisa.mem<sbuf>>, %s: f32) {
  // expected-error@+1 {{'nisa.tensor_scalar' op reverse1 needs op1}}
  "nisa.tensor_scalar"(%a, %a, %s) <{op0 = #nisa<alu add>, reverse1}> : (memref<128x512xf32, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<sbuf>>, f32) -> ()
  func.return
}

// -----

func.func @ts_mixed_kinds(%a: memref<128x16xi32, #nisa.mem<sbuf>>, %s: i32) {
  // expected-error@+1 {{'nisa.tensor_scalar' op op0 bitwise_and and op1 add must both be bitwise or both arithmetic}}
  nisa.tensor_scalar %a, %a, bitwise_and %s, add %s : memref<128x16xi32, #nisa.mem<sbuf>>, memref<128x16xi32, #nisa.mem<sbuf>>, i32, i32
  func.return
}

// -----

func.func @ts_layout(%a: memref<128x512xf32, #nisa.mem<sbuf>>, %b: memref<64x512xf32, #nisa.mem<sbuf>>, %s: f32) {
  // expected-error@+1 {{'nisa.tensor_scalar' op dst has 64 partitions but data has 128}}
  nisa.tensor_scalar %b, %a, add %s : memref<64x512xf32, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<sbuf>>, f32
  func.return
}

// -----

func.func @stt_bitwise(%a: memref<128x16xi32, #nisa.mem<sbuf>>, %s: i32) {
  // expected-error@+1 {{'nisa.scalar_tensor_tensor' op takes arithmetic ops only, got bitwise_and}}
  nisa.scalar_tensor_tensor %a, %a, bitwise_and %s, add %a : memref<128x16xi32, #nisa.mem<sbuf>>, memref<128x16xi32, #nisa.mem<sbuf>>, i32, memref<128x16xi32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @stt_both_psum(%p: memref<128x512xf32, #nisa.mem<psum>>, %a: memref<128x512xf32, #nisa.mem<sbuf>>, %s: f32) {
  // expected-error@+1 {{'nisa.scalar_tensor_tensor' op data and operand1 cannot both be in psum}}
  nisa.scalar_tensor_tensor %a, %p, multiply %s, add %p : memref<128x512xf32, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<psum>>, f32, memref<128x512xf32, #nisa.mem<psum>>
  func.return
}

// -----

func.func @stt_operand1(%a: memref<128x512xf32, #nisa.mem<sbuf>>, %b: memref<128x1xf32, #nisa.mem<sbuf>>, %s: f32) {
  // expected-error@+1 {{'nisa.scalar_tensor_tensor' op operand1 has 1 elements per partition but data has 512}}
  nisa.scalar_tensor_tensor %a, %a, multiply %s, add %b : memref<128x512xf32, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<sbuf>>, f32, memref<128x1xf32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @reduce_op(%a: memref<128x512xf32, #nisa.mem<sbuf>>, %r: memref<128x1xf32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_reduce' op divide is not a reduction op}}
  nisa.tensor_reduce %r, divide %a axes [1] : memref<128x1xf32, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @reduce_partition_axis(%a: memref<128x512xf32, #nisa.mem<sbuf>>, %r: memref<1x1xf32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_reduce' op axes must be trailing free dims of the rank-2 data (e.g. [1]), got [0, 1]}}
  nisa.tensor_reduce %r, add %a axes [0, 1] : memref<1x1xf32, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @reduce_inner_axis(%a: memref<128x4x128xf32, #nisa.mem<sbuf>>, %r: memref<128x128xf32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_reduce' op axes must be trailing free dims of the rank-3 data (e.g. [2]), got [1]}}
  nisa.tensor_reduce %r, add %a axes [1] : memref<128x128xf32, #nisa.mem<sbuf>>, memref<128x4x128xf32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @reduce_no_axes(%a: memref<128x512xf32, #nisa.mem<sbuf>>, %r: memref<128x512xf32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_reduce' op axes must be trailing free dims of the rank-2 data (e.g. [1]), got []}}
  nisa.tensor_reduce %r, add %a axes [] : memref<128x512xf32, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @reduce_dst_partitions(%a: memref<128x512xf32, #nisa.mem<sbuf>>, %r: memref<64x1xf32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_reduce' op dst has 64 partitions but data has 128}}
  nisa.tensor_reduce %r, add %a axes [1] : memref<64x1xf32, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @reduce_dst_free(%a: memref<128x4x128xf32, #nisa.mem<sbuf>>, %r: memref<128x1xf32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_reduce' op dst has 1 elements per partition but reducing axes [2] of [128, 4, 128] leaves 4}}
  nisa.tensor_reduce %r, add %a axes [2] : memref<128x1xf32, #nisa.mem<sbuf>>, memref<128x4x128xf32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @activation_scale(%a: memref<128x512xbf16, #nisa.mem<sbuf>>, %s: f16) {
  // expected-error@+1 {{'nisa.activation' op scale of an arithmetic op must be f32, got f16}}
  nisa.activation %a, exp %a scale(%s : f16) : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @activation_layout(%a: memref<128x512xbf16, #nisa.mem<sbuf>>, %b: memref<128x256xbf16, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.activation' op dst has 256 elements per partition but data has 512}}
  nisa.activation %b, tanh %a : memref<128x256xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @predicate_dtype(%a: memref<128x512xbf16, #nisa.mem<sbuf>>, %m: memref<128x512xbf16, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_copy_predicated' op predicate must be an 8, 16 or 32-bit integer, got bf16}}
  nisa.tensor_copy_predicated %a, %a where %m : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @predicate_layout(%a: memref<128x512xbf16, #nisa.mem<sbuf>>, %m: memref<128x256xui8, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_copy_predicated' op predicate has 256 elements per partition but dst has 512}}
  nisa.tensor_copy_predicated %a, %a where %m : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x256xui8, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @predicated_src_dtype(%a: memref<128x512xbf16, #nisa.mem<sbuf>>, %b: memref<128x512xf32, #nisa.mem<sbuf>>, %m: memref<128x512xui8, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_copy_predicated' op src dtype f32 must equal dst dtype bf16}}
  nisa.tensor_copy_predicated %a, %b where %m : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<sbuf>>, memref<128x512xui8, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @predicated_scalar_dtype(%a: memref<128x512xbf16, #nisa.mem<sbuf>>, %s: f32, %m: memref<128x512xui8, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_copy_predicated' op src dtype f32 must equal dst dtype bf16}}
  nisa.tensor_copy_predicated %a, %s where not %m : memref<128x512xbf16, #nisa.mem<sbuf>>, f32, memref<128x512xui8, #nisa.mem<sbuf>>
  func.return
}
