// Round trip of every bir instruction and access-pattern form (custom and generic syntax).
// RUN: mx-opt %s | mx-opt | filecheck %s
// RUN: MX_ROUNDTRIP
// RUN: mx-opt %s --split-input-file -p canonicalize,cse,dce | filecheck %s

func.func @data_movement(%x: memref<128x512xbf16, #nisa.mem<hbm>>, %out: memref<512x128xf32>, %ids: memref<128xi32, #nisa.mem<hbm>>, %i: index) {
  bir.dma #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 10>, #bir.ap<hbm, [[512, 128], [1, 512]], off = 0, dtype = 10> of %x : memref<128x512xbf16, #nisa.mem<hbm>>
  bir.dma #bir.ap<sbuf, p0 = 64, np = 32, [[1, 128]], off = 1024, dtype = 16>, #bir.ap<hbm, [[512, 32], [1, 128]], off = 256, dtype = 10> of %x : memref<128x512xbf16, #nisa.mem<hbm>> offset %i
  bir.dma #bir.ap<hbm, [[1, 128], [128, 512]], off = 0, dtype = 16> of %out : memref<512x128xf32> offset %i, #bir.ap<sbuf, p0 = 0, np = 128, [[4, 128], [1, 4]], off = 0, dtype = 16>
  bir.dma #bir.ap<sbuf, p0 = 0, np = 128, [[1, 1]], off = 4096, dtype = 17>, #bir.ap<hbm, [[1, 128], [1, 1]], off = 0, dtype = 17> of %ids : memref<128xi32, #nisa.mem<hbm>>
  bir.dma #bir.ap<sbuf, p0 = 0, np = 16, ps = 8, [[1, 32]], off = 0, dtype = 10> partition %i offset %i, #bir.ap<hbm, [[512, 16], [1, 32]], off = 0, dtype = 10> of %x : memref<128x512xbf16, #nisa.mem<hbm>> offset %i
  bir.dma_indirect #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 10>, #bir.ap<hbm, [[512, 128], [1, 512]], off = 0, dtype = 10> of %x : memref<128x512xbf16, #nisa.mem<hbm>> index #bir.ap<sbuf, p0 = 0, np = 128, [[1, 1]], off = 4096, dtype = 17> dim 0 bound 128
  bir.dma_indirect #bir.ap<hbm, [[512, 128], [1, 512]], off = 0, dtype = 10> of %x : memref<128x512xbf16, #nisa.mem<hbm>>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 10> index #bir.ap<sbuf, p0 = 0, np = 128, [[1, 1]], off = 4096, dtype = 17> dim 0 bound 128 scatter oob_mode skip
  bir.memset #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, 0.000000e+00
  bir.memset #bir.ap<sbuf, p0 = 0, np = 128, [[1, 16]], off = 8192, dtype = 8>, 0.000000e+00
  bir.tensor_copy #bir.ap<sbuf, p0 = 0, np = 128, [[2, 256]], off = 0, dtype = 10>, #bir.ap<psum, p0 = 0, np = 128, [[-1, 256]], off = 1020, dtype = 16>
  bir.cast #bir.ap<sbuf, p0 = 0, np = 128, [[1, 64]], off = 8192, dtype = 8>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 256]], off = 0, dtype = 10> saturate nan_suppress
  bir.cast #bir.ap<sbuf, p0 = 0, np = 128, [[1, 256]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 64]], off = 8192, dtype = 2>
  func.return
}

// CHECK-LABEL: func.func @data_movement
// CHECK-NEXT: bir.dma #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 10>, #bir.ap<hbm, [[512, 128], [1, 512]], off = 0, dtype = 10> of %x : memref<128x512xbf16, #nisa.mem<hbm>>
// CHECK-NEXT: bir.dma #bir.ap<sbuf, p0 = 64, np = 32, [[1, 128]], off = 1024, dtype = 16>, #bir.ap<hbm, [[512, 32], [1, 128]], off = 256, dtype = 10> of %x : memref<128x512xbf16, #nisa.mem<hbm>> offset %i
// CHECK-NEXT: bir.dma #bir.ap<hbm, [[1, 128], [128, 512]], off = 0, dtype = 16> of %out : memref<512x128xf32> offset %i, #bir.ap<sbuf, p0 = 0, np = 128, [[4, 128], [1, 4]], off = 0, dtype = 16>
// CHECK-NEXT: bir.dma #bir.ap<sbuf, p0 = 0, np = 128, [[1, 1]], off = 4096, dtype = 17>, #bir.ap<hbm, [[1, 128], [1, 1]], off = 0, dtype = 17> of %ids : memref<128xi32, #nisa.mem<hbm>>
// CHECK-NEXT: bir.dma #bir.ap<sbuf, p0 = 0, np = 16, ps = 8, [[1, 32]], off = 0, dtype = 10> partition %i offset %i, #bir.ap<hbm, [[512, 16], [1, 32]], off = 0, dtype = 10> of %x : memref<128x512xbf16, #nisa.mem<hbm>> offset %i
// CHECK-NEXT: bir.dma_indirect #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 10>, #bir.ap<hbm, [[512, 128], [1, 512]], off = 0, dtype = 10> of %x : memref<128x512xbf16, #nisa.mem<hbm>> index #bir.ap<sbuf, p0 = 0, np = 128, [[1, 1]], off = 4096, dtype = 17> dim 0 bound 128
// CHECK-NEXT: bir.dma_indirect #bir.ap<hbm, [[512, 128], [1, 512]], off = 0, dtype = 10> of %x : memref<128x512xbf16, #nisa.mem<hbm>>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 10> index #bir.ap<sbuf, p0 = 0, np = 128, [[1, 1]], off = 4096, dtype = 17> dim 0 bound 128 scatter oob_mode skip
// CHECK-NEXT: bir.memset #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, 0.000000e+00
// CHECK-NEXT: bir.memset #bir.ap<sbuf, p0 = 0, np = 128, [[1, 16]], off = 8192, dtype = 8>, 0.000000e+00
// CHECK-NEXT: bir.tensor_copy #bir.ap<sbuf, p0 = 0, np = 128, [[2, 256]], off = 0, dtype = 10>, #bir.ap<psum, p0 = 0, np = 128, [[-1, 256]], off = 1020, dtype = 16>
// CHECK-NEXT: bir.cast #bir.ap<sbuf, p0 = 0, np = 128, [[1, 64]], off = 8192, dtype = 8>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 256]], off = 0, dtype = 10> saturate nan_suppress
// CHECK-NEXT: bir.cast #bir.ap<sbuf, p0 = 0, np = 128, [[1, 256]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 64]], off = 8192, dtype = 2>
// CHECK-NEXT: func.return

// -----

func.func @mx() {
  bir.quantize_mx #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 65536, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 98304, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 10>
  bir.quantize_mx #bir.ap<sbuf, p0 = 0, np = 32, [[1, 512]], off = 65536, dtype = 7> scale #bir.ap<sbuf, p0 = 4, np = 4, [[1, 128]], off = 98304, dtype = 15>, #bir.ap<sbuf, p0 = 0, np = 32, [[1, 512]], off = 0, dtype = 11> alternative_emax
  bir.quantize_mx #bir.ap<sbuf, p0 = 0, np = 64, [[1, 128]], off = 65536, dtype = 2> scale #bir.ap<sbuf, p0 = 0, np = 36, [[1, 128]], off = 98304, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 64, [[1, 512]], off = 0, dtype = 16>
  bir.matmult_mx #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 65536, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 98304, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 9> scale #bir.ap<sbuf, p0 = 0, np = 100, [[1, 512]], off = 4096, dtype = 15>
  bir.matmult_mx #bir.ap<psum, p0 = 0, np = 64, [[1, 512]], off = 2048, dtype = 10>, #bir.ap<sbuf, p0 = 0, np = 32, [[1, 64]], off = 65536, dtype = 2> scale #bir.ap<sbuf, p0 = 0, np = 4, [[1, 64]], off = 98304, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 32, [[1, 512]], off = 0, dtype = 9> scale #bir.ap<sbuf, p0 = 0, np = 4, [[1, 512]], off = 4096, dtype = 15> accumulate
  bir.matmult #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 4096, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 0, dtype = 10>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 1024, dtype = 10>
  bir.matmult #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 4096, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 0, dtype = 5>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 1024, dtype = 7> accumulate
  func.return
}

// CHECK-LABEL: func.func @mx
// CHECK-NEXT: bir.quantize_mx #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 65536, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 98304, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 10>
// CHECK-NEXT: bir.quantize_mx #bir.ap<sbuf, p0 = 0, np = 32, [[1, 512]], off = 65536, dtype = 7> scale #bir.ap<sbuf, p0 = 4, np = 4, [[1, 128]], off = 98304, dtype = 15>, #bir.ap<sbuf, p0 = 0, np = 32, [[1, 512]], off = 0, dtype = 11> alternative_emax
// CHECK-NEXT: bir.quantize_mx #bir.ap<sbuf, p0 = 0, np = 64, [[1, 128]], off = 65536, dtype = 2> scale #bir.ap<sbuf, p0 = 0, np = 36, [[1, 128]], off = 98304, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 64, [[1, 512]], off = 0, dtype = 16>
// CHECK-NEXT: bir.matmult_mx #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 65536, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 98304, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 9> scale #bir.ap<sbuf, p0 = 0, np = 100, [[1, 512]], off = 4096, dtype = 15>
// CHECK-NEXT: bir.matmult_mx #bir.ap<psum, p0 = 0, np = 64, [[1, 512]], off = 2048, dtype = 10>, {{.*}} accumulate
// CHECK-NEXT: bir.matmult #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 4096, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 0, dtype = 10>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 1024, dtype = 10>
// CHECK-NEXT: bir.matmult {{.*}} dtype = 7> accumulate
// CHECK-NEXT: func.return

// -----

func.func @elementwise() {
  bir.tensor_tensor #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 10>, add #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 2048, dtype = 16>
  bir.tensor_tensor #bir.ap<sbuf, p0 = 0, np = 4, [[1, 8]], off = 0, dtype = 17>, bitwise_xor #bir.ap<sbuf, p0 = 0, np = 4, [[1, 8]], off = 64, dtype = 17>, #bir.ap<sbuf, p0 = 0, np = 4, [[1, 8]], off = 128, dtype = 17>
  bir.tensor_scalar #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, multiply 2.500000e-01 : f32
  bir.tensor_scalar #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, reverse subtract #bir.ap<sbuf, p0 = 0, np = 128, [[1, 1]], off = 4096, dtype = 16>, reverse maximum 0.000000e+00 : f32
  bir.tensor_scalar #bir.ap<sbuf, p0 = 0, np = 4, [[1, 8]], off = 0, dtype = 17>, #bir.ap<sbuf, p0 = 0, np = 4, [[1, 8]], off = 0, dtype = 17>, right_shift 3 : i32, bitwise_and #bir.ap<sbuf, p0 = 0, np = 4, [[1, 1]], off = 64, dtype = 18>
  bir.activation #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 10>, silu #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>
  bir.activation #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 10>, gelu_apprx_tanh #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16> scale 5.000000e-01 : f32 bias #bir.ap<sbuf, p0 = 0, np = 128, [[1, 1]], off = 4096, dtype = 16>
  bir.transpose #bir.ap<psum, p0 = 0, np = 64, [[1, 128]], off = 0, dtype = 10>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 64]], off = 0, dtype = 10>
  bir.transpose #bir.ap<sbuf, p0 = 32, np = 16, [[1, 32]], off = 0, dtype = 16>, #bir.ap<psum, p0 = 0, np = 32, [[1, 16]], off = 0, dtype = 16> engine vector
  bir.tensor_reduce #bir.ap<sbuf, p0 = 0, np = 128, [[1, 4]], off = 8192, dtype = 16>, add #bir.ap<psum, p0 = 0, np = 128, [[128, 4], [1, 128]], off = 0, dtype = 16> inner 1
  bir.tensor_reduce #bir.ap<sbuf, p0 = 0, np = 128, [[1, 1]], off = 8192, dtype = 16>, maximum #bir.ap<sbuf, p0 = 0, np = 128, [[128, 4], [1, 128]], off = 0, dtype = 16> inner 2 negate
  func.return
}

// CHECK-LABEL: func.func @elementwise
// CHECK-NEXT: bir.tensor_tensor #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 10>, add #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 2048, dtype = 16>
// CHECK-NEXT: bir.tensor_tensor {{.*}}, bitwise_xor #bir.ap
// CHECK-NEXT: bir.tensor_scalar #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, multiply 2.500000e-01 : f32
// CHECK-NEXT: bir.tensor_scalar {{.*}}, reverse subtract #bir.ap<sbuf, p0 = 0, np = 128, [[1, 1]], off = 4096, dtype = 16>, reverse maximum 0.000000e+00 : f32
// CHECK-NEXT: bir.tensor_scalar {{.*}}, right_shift 3 : i32, bitwise_and #bir.ap<sbuf, p0 = 0, np = 4, [[1, 1]], off = 64, dtype = 18>
// CHECK-NEXT: bir.activation #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 10>, silu #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>
// CHECK-NEXT: bir.activation {{.*}}, gelu_apprx_tanh #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16> scale 5.000000e-01 : f32 bias #bir.ap<sbuf, p0 = 0, np = 128, [[1, 1]], off = 4096, dtype = 16>
// CHECK-NEXT: bir.transpose #bir.ap<psum, p0 = 0, np = 64, [[1, 128]], off = 0, dtype = 10>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 64]], off = 0, dtype = 10>
// CHECK-NEXT: bir.transpose #bir.ap<sbuf, p0 = 32, np = 16, [[1, 32]], off = 0, dtype = 16>, #bir.ap<psum, p0 = 0, np = 32, [[1, 16]], off = 0, dtype = 16> engine vector
// CHECK-NEXT: bir.tensor_reduce #bir.ap<sbuf, p0 = 0, np = 128, [[1, 4]], off = 8192, dtype = 16>, add #bir.ap<psum, p0 = 0, np = 128, [[128, 4], [1, 128]], off = 0, dtype = 16> inner 1
// CHECK-NEXT: bir.tensor_reduce {{.*}}, maximum #bir.ap<sbuf, p0 = 0, np = 128, [[128, 4], [1, 128]], off = 0, dtype = 16> inner 2 negate
// CHECK-NEXT: func.return
