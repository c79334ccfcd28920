// Round trip of the instructions lower-nisa-to-bir selects beyond the MX matmul path, and
// of run-time keys on compute instructions (custom and generic syntax).
// RUN: mx-opt %s | mx-opt | filecheck %s
// RUN: MX_ROUNDTRIP
// RUN: mx-opt %s -p canonicalize,cse,dce | filecheck %s

func.func @more(%x: memref<8x16xf32, #nisa.mem<hbm>>, %y: memref<128xf32, #nisa.mem<hbm>>, %n: memref<1xi32, #nisa.mem<hbm>>, %i: index, %peer: index) {
  bir.iota #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 17>, [[1, 16]] offset 3 channel_multiplier 16
  bir.scalar_tensor_tensor #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 64, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 128, dtype = 16>, reverse subtract 1.000000e+00 : f32, add #bir.ap<psum, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 16>
  bir.tensor_copy_predicated #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 64, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 128, dtype = 16> where #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 17>
  bir.tensor_copy_predicated #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 64, dtype = 16>, -2.500000e+00 : f32 where not #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 17>
  bir.dma_compute #bir.ap<hbm, [[1, 128]], off = 0, dtype = 16> of %y : memref<128xf32, #nisa.mem<hbm>>, [#bir.ap<hbm, [[16, 8], [1, 16]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 64, dtype = 16>] of %x : memref<8x16xf32, #nisa.mem<hbm>>
  bir.dma_compute #bir.ap<sbuf, p0 = 0, np = 1, [[1, 16]], off = 64, dtype = 16>, [#bir.ap<hbm, [[1, 16]], off = 0, dtype = 16>] of %y : memref<128xf32, #nisa.mem<hbm>> runtime ["dst:partition", "src0"](%i, %i)
  bir.sendrecv #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 192, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 64, dtype = 16> to %peer from %peer pipe 1
  bir.core_barrier %y : memref<128xf32, #nisa.mem<hbm>> cores [0, 1, 2]
  bir.core_barrier %y : memref<128xf32, #nisa.mem<hbm>>
  %r = bir.register_load #bir.ap<hbm, [[1, 1]], off = 0, dtype = 17> of %n : memref<1xi32, #nisa.mem<hbm>> : index
  %s = bir.register_load #bir.ap<sbuf, p0 = 0, np = 1, [[1, 1]], off = 0, dtype = 17> runtime ["src"](%r) : index
  bir.tensor_tensor #bir.ap<sbuf, p0 = 0, np = 8, [[1, 4]], off = 64, dtype = 16>, add #bir.ap<sbuf, p0 = 0, np = 8, [[1, 4]], off = 128, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 8, [[1, 4]], off = 128, dtype = 16> runtime ["dst", "in0", "in1:partition"](%i, %i, %r)
  bir.dma_indirect #bir.ap<sbuf, p0 = 0, np = 4, [[1, 16]], off = 64, dtype = 16>, #bir.ap<hbm, [[16, 4], [1, 16]], off = 0, dtype = 16> of %x : memref<8x16xf32, #nisa.mem<hbm>> index #bir.ap<sbuf, p0 = 0, np = 4, [[1, 1]], off = 0, dtype = 17> dim 0 bound 8 runtime ["dst", "index"](%i, %s)
  func.return
}

// CHECK-LABEL: func.func @more
// CHECK-NEXT: bir.iota #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 17>, [[1, 16]] offset 3 channel_multiplier 16
// CHECK-NEXT: bir.scalar_tensor_tensor #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 64, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 128, dtype = 16>, reverse subtract 1.000000e+00 : f32, add #bir.ap<psum, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 16>
// CHECK-NEXT: bir.tensor_copy_predicated #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 64, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 128, dtype = 16> where #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 17>
// CHECK-NEXT: bir.tensor_copy_predicated #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 64, dtype = 16>, -2.500000e+00 : f32 where not #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 17>
// CHECK-NEXT: bir.dma_compute #bir.ap<hbm, [[1, 128]], off = 0, dtype = 16> of %y : memref<128xf32, #nisa.mem<hbm>>, [#bir.ap<hbm, [[16, 8], [1, 16]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 64, dtype = 16>] of %x : memref<8x16xf32, #nisa.mem<hbm>>
// CHECK-NEXT: bir.dma_compute #bir.ap<sbuf, p0 = 0, np = 1, [[1, 16]], off = 64, dtype = 16>, [#bir.ap<hbm, [[1, 16]], off = 0, dtype = 16>] of %y : memref<128xf32, #nisa.mem<hbm>> runtime ["dst:partition", "src0"](%i, %i)
// CHECK-NEXT: bir.sendrecv #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 192, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 64, dtype = 16> to %peer from %peer pipe 1
// CHECK-NEXT: bir.core_barrier %y : memref<128xf32, #nisa.mem<hbm>> cores [0, 1, 2]
// CHECK-NEXT: bir.core_barrier %y : memref<128xf32, #nisa.mem<hbm>>{{$}}
// CHECK-NEXT: %r = bir.register_load #bir.ap<hbm, [[1, 1]], off = 0, dtype = 17> of %n : memref<1xi32, #nisa.mem<hbm>> : index
// CHECK-NEXT: %s = bir.register_load #bir.ap<sbuf, p0 = 0, np = 1, [[1, 1]], off = 0, dtype = 17> runtime ["src"](%r) : index
// CHECK-NEXT: bir.tensor_tensor #bir.ap<sbuf, p0 = 0, np = 8, [[1, 4]], off = 64, dtype = 16>, add #bir.ap<sbuf, p0 = 0, np = 8, [[1, 4]], off = 128, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 8, [[1, 4]], off = 128, dtype = 16> runtime ["dst", "in0", "in1:partition"](%i, %i, %r)
// CHECK-NEXT: bir.dma_indirect {{.*}} dim 0 bound 8 runtime ["dst", "index"](%i, %s)
