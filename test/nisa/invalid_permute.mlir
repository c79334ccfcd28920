// nisa.permute verifier: a permutation of the source's dims, an hbm source, and the
// result type the permutation gives (the source's sizes and strides reordered).
// RUN: mx-opt %s --split-input-file --verify-diagnostics

func.func @not_a_permutation(%x: memref<4x8xf32, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'nisa.permute' op permutation [0, 0] is not a permutation of the 2 dims of the source}}
  %t = nisa.permute %x [0, 0] : memref<4x8xf32, #nisa.mem<hbm>> to memref<4x4xf32, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @on_chip(%x: memref<4x8xf32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.permute' op permute views an hbm buffer (on chip, dim 0 is the partition dim)}}
  %t = nisa.permute %x [1, 0] : memref<4x8xf32, #nisa.mem<sbuf>> to memref<8x4xf32, strided<[1, 8]>, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @wrong_strides(%x: memref<4x8xf32, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'nisa.permute' op the permuted view of memref<4x8xf32, #nisa.mem<hbm>> is memref<8x4xf32, strided<[1, 8]>, #nisa.mem<hbm>>, got memref<8x4xf32, #nisa.mem<hbm>>}}
  %t = nisa.permute %x [1, 0] : memref<4x8xf32, #nisa.mem<hbm>> to memref<8x4xf32, #nisa.mem<hbm>>
  func.return
}
