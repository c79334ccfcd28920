// Verifier errors of the SPMD ops: program_id, num_programs, sendrecv, core_barrier and
// register_load.
// RUN: mx-opt %s --split-input-file --verify-diagnostics

func.func @program_id_axis() {
  // expected-error@+1 {{'nisa.program_id' op axis must be >= 0, got -1}}
  %id = nisa.program_id axis -1
  func.return
}

// -----

func.func @num_programs_axis() {
  // expected-error@+1 {{'nisa.num_programs' op axis must be >= 0, got -2}}
  %n = nisa.num_programs axis -2
  func.return
}

// -----

func.func @sendrecv_shape(%a: memref<64x512xbf16, #nisa.mem<sbuf>>, %b: memref<64x256xbf16, #nisa.mem<sbuf>>, %peer: index) {
  // expected-error@+1 {{'nisa.sendrecv' op dst memref<64x512xbf16, #nisa.mem<sbuf>> and src memref<64x256xbf16, #nisa.mem<sbuf>> must have the same shape and dtype}}
  nisa.sendrecv %a, %b to %peer from %peer pipe 0 : memref<64x512xbf16, #nisa.mem<sbuf>>, memref<64x256xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @sendrecv_dtype(%a: memref<64x512xbf16, #nisa.mem<sbuf>>, %b: memref<64x512xf32, #nisa.mem<sbuf>>, %peer: index) {
  // expected-error@+1 {{'nisa.sendrecv' op dst memref<64x512xbf16, #nisa.mem<sbuf>> and src memref<64x512xf32, #nisa.mem<sbuf>> must have the same shape and dtype}}
  nisa.sendrecv %a, %b to %peer from %peer pipe 0 : memref<64x512xbf16, #nisa.mem<sbuf>>, memref<64x512xf32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @sendrecv_space(%a: memref<64x512xbf16, #nisa.mem<hbm>>, %b: memref<64x512xbf16, #nisa.mem<sbuf>>, %peer: index) {
  // expected-error@+1 {{'nisa.sendrecv' op dst must be in sbuf, got hbm}}
  nisa.sendrecv %a, %b to %peer from %peer pipe 0 : memref<64x512xbf16, #nisa.mem<hbm>>, memref<64x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @sendrecv_pipe(%a: memref<64x512xbf16, #nisa.mem<sbuf>>, %peer: index) {
  // expected-error@+1 {{'nisa.sendrecv' op pipe must be >= 0, got -1}}
  nisa.sendrecv %a, %a to %peer from %peer pipe -1 : memref<64x512xbf16, #nisa.mem<sbuf>>, memref<64x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @barrier_space(%a: memref<64x512xbf16, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.core_barrier' op data must be in hbm, got sbuf}}
  nisa.core_barrier %a : memref<64x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @barrier_cores(%a: memref<64x512xbf16, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'nisa.core_barrier' op cores must be distinct non-negative core ids, got [0, 0]}}
  nisa.core_barrier %a cores [0, 0] : memref<64x512xbf16, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @barrier_no_cores(%a: memref<64x512xbf16, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'nisa.core_barrier' op cores must be distinct non-negative core ids, got []}}
  nisa.core_barrier %a cores [] : memref<64x512xbf16, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @register_elements(%a: memref<1x2xi32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.register_load' op src must have exactly one element, got shape [1, 2]}}
  %r = nisa.register_load %a : memref<1x2xi32, #nisa.mem<sbuf>> -> index
  func.return
}

// -----

func.func @register_dtype(%a: memref<1x1xf32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.register_load' op src must hold an integer of at most 32 bits, got f32}}
  %r = nisa.register_load %a : memref<1x1xf32, #nisa.mem<sbuf>> -> index
  func.return
}

// -----

func.func @register_space(%a: memref<1x1xi32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.register_load' op src must be in sbuf or hbm, got psum}}
  %r = nisa.register_load %a : memref<1x1xi32, #nisa.mem<psum>> -> i32
  func.return
}
