// HBM races between cores are errors in both schedules and at both levels, naming
// both cores, both ops with their locations, the tensor and the overlapping elements;
// nothing is written to -o. Race-free programs give the same bits in both schedules.
// RUN: python -c "import numpy as np; np.savez('%t.npz', arg0=np.arange(32, dtype=np.float32).reshape(4, 8))"
// RUN: not mx-run %s --symbol write_write --cores 2 --inputs %t.npz -o %t.ww.npz 2>&1 | filecheck %s --check-prefix=WW
// RUN: test ! -e %t.ww.npz
// RUN: not mx-run %s --symbol write_write --cores 2 --inputs %t.npz --schedule in-turn 2>&1 | filecheck %s --check-prefix=WW
// RUN: not mx-run %s --symbol write_write --cores 2 --inputs %t.npz -p lower-nisa-to-bir 2>&1 | filecheck %s --check-prefix=WW-BIR
// WW: error: HBM race on arg0[0:1, 0:8]: core 0 writes them in nisa.dma_copy at {{.*}}nisa_races.mlir:50:3, and core 1 writes them in nisa.dma_copy at {{.*}}nisa_races.mlir:50:3, with no sendrecv or core_barrier between the two; order the accesses with a core_barrier or sendrecv, or give each core its own elements
// WW-BIR: error: HBM race on arg0[0:1, 0:8]: core 0 writes them in bir.dma at {{.*}}nisa_races.mlir:50:3, and core 1 writes them in bir.dma at {{.*}}nisa_races.mlir:50:3
// RUN: not mx-run %s --symbol read_write --cores 2 --inputs %t.npz -o %t.rw.npz 2>&1 | filecheck %s --check-prefix=RW
// RUN: test ! -e %t.rw.npz
// RUN: not mx-run %s --symbol read_write --cores 2 --inputs %t.npz --schedule in-turn -p lower-nisa-to-bir 2>&1 | filecheck %s --check-prefix=RW
// RW: error: HBM race on arg0[1:2, 0:8]: core 0 reads them in {{nisa.dma_copy|bir.dma}} at {{.*}}nisa_races.mlir:62:5, and core 1 writes them in {{nisa.dma_copy|bir.dma}} at {{.*}}nisa_races.mlir:64:5
// RUN: not mx-run %s --symbol strided_overlap --cores 2 --inputs %t.npz 2>&1 | filecheck %s --check-prefix=SO
// RUN: not mx-run %s --symbol strided_overlap --cores 2 --inputs %t.npz --schedule in-turn -p lower-nisa-to-bir 2>&1 | filecheck %s --check-prefix=SO
// SO: error: HBM race on arg0[0:4, 2:5]: core 0 writes them in {{nisa.dma_copy|bir.dma}} at {{.*}}nisa_races.mlir:77:3, and core 1 writes them in {{nisa.dma_copy|bir.dma}} at {{.*}}nisa_races.mlir:77:3
// RUN: not mx-run %s --symbol later_iteration --cores 2 --random-inputs 0 2>&1 | filecheck %s --check-prefix=LATE
// RUN: not mx-run %s --symbol later_iteration --cores 2 --random-inputs 0 --schedule in-turn -p lower-nisa-to-bir 2>&1 | filecheck %s --check-prefix=LATE
// LATE: error: HBM race on arg0[2:3, 0:8]: core 0 writes them in {{nisa.dma_copy|bir.dma}} at {{.*}}nisa_races.mlir:93:5, and core 1 writes them in {{nisa.dma_copy|bir.dma}} at {{.*}}nisa_races.mlir:93:5
// Race-free: disjoint strided views (their bounding boxes overlap), writes ordered by
// core_barrier and by sendrecv; parallel and in-turn give the same bytes.
// RUN: mx-run %s --symbol strided_disjoint --cores 2 --inputs %t.npz --schedule parallel --quiet -o %t.strided_disjoint.nisa.parallel.npz
// RUN: mx-run %s --symbol strided_disjoint --cores 2 --inputs %t.npz --schedule in-turn --quiet -o %t.strided_disjoint.nisa.in-turn.npz
// RUN: python -c "import numpy as np, sys; a, b = (np.load(sys.argv[i])['arg0'] for i in (1, 2)); assert a.tobytes() == b.tobytes(); print(sys.argv[3], 'same', float(a.sum()))" %t.strided_disjoint.nisa.parallel.npz %t.strided_disjoint.nisa.in-turn.npz strided_disjoint | filecheck %s --check-prefix=FREE-strided_disjoint
// RUN: mx-run %s --symbol strided_disjoint --cores 2 --inputs %t.npz --schedule parallel -p lower-nisa-to-bir --quiet -o %t.strided_disjoint.bir.parallel.npz
// RUN: mx-run %s --symbol strided_disjoint --cores 2 --inputs %t.npz --schedule in-turn -p lower-nisa-to-bir --quiet -o %t.strided_disjoint.bir.in-turn.npz
// RUN: python -c "import numpy as np, sys; a, b = (np.load(sys.argv[i])['arg0'] for i in (1, 2)); assert a.tobytes() == b.tobytes(); print(sys.argv[3], 'same', float(a.sum()))" %t.strided_disjoint.bir.parallel.npz %t.strided_disjoint.bir.in-turn.npz strided_disjoint | filecheck %s --check-prefix=FREE-strided_disjoint
// RUN: mx-run %s --symbol barrier_ordered --cores 2 --inputs %t.npz --schedule parallel --quiet -o %t.barrier_ordered.nisa.parallel.npz
// RUN: mx-run %s --symbol barrier_ordered --cores 2 --inputs %t.npz --schedule in-turn --quiet -o %t.barrier_ordered.nisa.in-turn.npz
// RUN: python -c "import numpy as np, sys; a, b = (np.load(sys.argv[i])['arg0'] for i in (1, 2)); assert a.tobytes() == b.tobytes(); print(sys.argv[3], 'same', float(a.sum()))" %t.barrier_ordered.nisa.parallel.npz %t.barrier_ordered.nisa.in-turn.npz barrier_ordered | filecheck %s --check-prefix=FREE-barrier_ordered
// RUN: mx-run %s --symbol barrier_ordered --cores 2 --inputs %t.npz --schedule parallel -p lower-nisa-to-bir --quiet -o %t.barrier_ordered.bir.parallel.npz
// RUN: mx-run %s --symbol barrier_ordered --cores 2 --inputs %t.npz --schedule in-turn -p lower-nisa-to-bir --quiet -o %t.barrier_ordered.bir.in-turn.npz
// RUN: python -c "import numpy as np, sys; a, b = (np.load(sys.argv[i])['arg0'] for i in (1, 2)); assert a.tobytes() == b.tobytes(); print(sys.argv[3], 'same', float(a.sum()))" %t.barrier_ordered.bir.parallel.npz %t.barrier_ordered.bir.in-turn.npz barrier_ordered | filecheck %s --check-prefix=FREE-barrier_ordered
// RUN: mx-run %s --symbol sendrecv_ordered --cores 2 --inputs %t.npz --schedule parallel --quiet -o %t.sendrecv_ordered.nisa.parallel.npz
// RUN: mx-run %s --symbol sendrecv_ordered --cores 2 --inputs %t.npz --schedule in-turn --quiet -o %t.sendrecv_ordered.nisa.in-turn.npz
// RUN: python -c "import numpy as np, sys; a, b = (np.load(sys.argv[i])['arg0'] for i in (1, 2)); assert a.tobytes() == b.tobytes(); print(sys.argv[3], 'same', float(a.sum()))" %t.sendrecv_ordered.nisa.parallel.npz %t.sendrecv_ordered.nisa.in-turn.npz sendrecv_ordered | filecheck %s --check-prefix=FREE-sendrecv_ordered
// RUN: mx-run %s --symbol sendrecv_ordered --cores 2 --inputs %t.npz --schedule parallel -p lower-nisa-to-bir --quiet -o %t.sendrecv_ordered.bir.parallel.npz
// RUN: mx-run %s --symbol sendrecv_ordered --cores 2 --inputs %t.npz --schedule in-turn -p lower-nisa-to-bir --quiet -o %t.sendrecv_ordered.bir.in-turn.npz
// RUN: python -c "import numpy as np, sys; a, b = (np.load(sys.argv[i])['arg0'] for i in (1, 2)); assert a.tobytes() == b.tobytes(); print(sys.argv[3], 'same', float(a.sum()))" %t.sendrecv_ordered.bir.parallel.npz %t.sendrecv_ordered.bir.in-turn.npz sendrecv_ordered | filecheck %s --check-prefix=FREE-sendrecv_ordered
// FREE-strided_disjoint: strided_disjoint same 8.0
// FREE-barrier_ordered: barrier_ordered same 48.0
// FREE-sendrecv_ordered: sendrecv_ordered same 48.0

func.func @write_write(%out: memref<4x8xf32, #nisa.mem<hbm>>) {
  %r = nisa.program_id
  %t = memref.alloc() : memref<1x8xf32, #nisa.mem<sbuf>>
  nisa.memset %t, 1.0 : memref<1x8xf32, #nisa.mem<sbuf>>
  %v = memref.subview %out[0, 0] [1, 8] [1, 1] : memref<4x8xf32, #nisa.mem<hbm>> to memref<1x8xf32, strided<[8, 1]>, #nisa.mem<hbm>>
  nisa.dma_copy %v, %t : memref<1x8xf32, strided<[8, 1]>, #nisa.mem<hbm>>, memref<1x8xf32, #nisa.mem<sbuf>>
  func.return
}

func.func @read_write(%out: memref<4x8xf32, #nisa.mem<hbm>>) {
  %c0 = arith.constant 0 : index
  %r = nisa.program_id
  %is0 = arith.cmpi eq, %r, %c0 : index
  %t = memref.alloc() : memref<1x8xf32, #nisa.mem<sbuf>>
  nisa.memset %t, 1.0 : memref<1x8xf32, #nisa.mem<sbuf>>
  %row = memref.subview %out[1, 0] [1, 8] [1, 1] : memref<4x8xf32, #nisa.mem<hbm>> to memref<1x8xf32, strided<[8, 1], offset: 8>, #nisa.mem<hbm>>
  scf.if %is0 {
    nisa.dma_copy %t, %row : memref<1x8xf32, #nisa.mem<sbuf>>, memref<1x8xf32, strided<[8, 1], offset: 8>, #nisa.mem<hbm>>
  } else {
    nisa.dma_copy %row, %t : memref<1x8xf32, strided<[8, 1], offset: 8>, #nisa.mem<hbm>>, memref<1x8xf32, #nisa.mem<sbuf>>
  }
  func.return
}

// core r writes columns 2r, 2r + 2, 2r + 4: columns 2 and 4 twice
func.func @strided_overlap(%out: memref<4x8xf32, #nisa.mem<hbm>>) {
  %c2 = arith.constant 2 : index
  %r = nisa.program_id
  %col = arith.muli %r, %c2 : index
  %t = memref.alloc() : memref<4x3xf32, #nisa.mem<sbuf>>
  nisa.memset %t, 1.0 : memref<4x3xf32, #nisa.mem<sbuf>>
  %v = memref.subview %out[0, %col] [4, 3] [1, 2] : memref<4x8xf32, #nisa.mem<hbm>> to memref<4x3xf32, strided<[8, 2], offset: ?>, #nisa.mem<hbm>>
  nisa.dma_copy %v, %t : memref<4x3xf32, strided<[8, 2], offset: ?>, #nisa.mem<hbm>>, memref<4x3xf32, #nisa.mem<sbuf>>
  func.return
}

// core r writes row i + 2r at iteration i: row 2 is core 0's at i = 2, core 1's at i = 0
func.func @later_iteration(%out: memref<5x8xf32, #nisa.mem<hbm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = nisa.program_id
  %r2 = arith.addi %r, %r : index
  %t = memref.alloc() : memref<1x8xf32, #nisa.mem<sbuf>>
  nisa.memset %t, 1.0 : memref<1x8xf32, #nisa.mem<sbuf>>
  scf.for %i = %c0 to %c3 step %c1 {
    %row = arith.addi %i, %r2 : index
    %v = memref.subview %out[%row, 0] [1, 8] [1, 1] : memref<5x8xf32, #nisa.mem<hbm>> to memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
    nisa.dma_copy %v, %t : memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>, memref<1x8xf32, #nisa.mem<sbuf>>
  }
  func.return
}

// core r writes columns r, r + 2, r + 4, r + 6 of row 0: interleaved, never the same
func.func @strided_disjoint(%out: memref<4x8xf32, #nisa.mem<hbm>>) {
  %r = nisa.program_id
  %t = memref.alloc() : memref<1x4xf32, #nisa.mem<sbuf>>
  nisa.memset %t, 1.0 : memref<1x4xf32, #nisa.mem<sbuf>>
  %z = memref.alloc() : memref<4x8xf32, #nisa.mem<sbuf>>
  nisa.memset %z, 0.0 : memref<4x8xf32, #nisa.mem<sbuf>>
  %rows = memref.subview %out[1, 0] [3, 8] [1, 1] : memref<4x8xf32, #nisa.mem<hbm>> to memref<3x8xf32, strided<[8, 1], offset: 8>, #nisa.mem<hbm>>
  %zr = memref.subview %z[0, 0] [3, 8] [1, 1] : memref<4x8xf32, #nisa.mem<sbuf>> to memref<3x8xf32, strided<[8, 1]>, #nisa.mem<sbuf>>
  %v = memref.subview %out[0, %r] [1, 4] [1, 2] : memref<4x8xf32, #nisa.mem<hbm>> to memref<1x4xf32, strided<[8, 2], offset: ?>, #nisa.mem<hbm>>
  nisa.dma_copy %v, %t : memref<1x4xf32, strided<[8, 2], offset: ?>, #nisa.mem<hbm>>, memref<1x4xf32, #nisa.mem<sbuf>>
  %c0 = arith.constant 0 : index
  %is0 = arith.cmpi eq, %r, %c0 : index
  scf.if %is0 {
    nisa.dma_copy %rows, %zr : memref<3x8xf32, strided<[8, 1], offset: 8>, #nisa.mem<hbm>>, memref<3x8xf32, strided<[8, 1]>, #nisa.mem<sbuf>>
  }
  func.return
}

// core r writes row r, then (after the barrier) row 2 + r := row 1 - r + 1
func.func @barrier_ordered(%out: memref<4x8xf32, #nisa.mem<hbm>>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = nisa.program_id
  %q = arith.subi %c1, %r : index
  %t = memref.alloc() : memref<1x8xf32, #nisa.mem<sbuf>>
  nisa.memset %t, 1.0 : memref<1x8xf32, #nisa.mem<sbuf>>
  %mine = memref.subview %out[%r, 0] [1, 8] [1, 1] : memref<4x8xf32, #nisa.mem<hbm>> to memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  nisa.dma_copy %mine, %t : memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>, memref<1x8xf32, #nisa.mem<sbuf>>
  nisa.core_barrier %out : memref<4x8xf32, #nisa.mem<hbm>>
  %theirs = memref.subview %out[%q, 0] [1, 8] [1, 1] : memref<4x8xf32, #nisa.mem<hbm>> to memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  nisa.dma_copy %t, %theirs : memref<1x8xf32, #nisa.mem<sbuf>>, memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  %one = arith.constant 1.0 : f32
  nisa.tensor_scalar %t, %t, add %one : memref<1x8xf32, #nisa.mem<sbuf>>, memref<1x8xf32, #nisa.mem<sbuf>>, f32
  %row = arith.addi %r, %c2 : index
  %next = memref.subview %out[%row, 0] [1, 8] [1, 1] : memref<4x8xf32, #nisa.mem<hbm>> to memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  nisa.dma_copy %next, %t : memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>, memref<1x8xf32, #nisa.mem<sbuf>>
  func.return
}

// the same, ordered by a sendrecv of a small SBUF tile instead of a barrier
func.func @sendrecv_ordered(%out: memref<4x8xf32, #nisa.mem<hbm>>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = nisa.program_id
  %q = arith.subi %c1, %r : index
  %t = memref.alloc() : memref<1x8xf32, #nisa.mem<sbuf>>
  %s = memref.alloc() : memref<1x1xf32, #nisa.mem<sbuf>>
  nisa.memset %t, 1.0 : memref<1x8xf32, #nisa.mem<sbuf>>
  nisa.memset %s, 0.0 : memref<1x1xf32, #nisa.mem<sbuf>>
  %mine = memref.subview %out[%r, 0] [1, 8] [1, 1] : memref<4x8xf32, #nisa.mem<hbm>> to memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  nisa.dma_copy %mine, %t : memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>, memref<1x8xf32, #nisa.mem<sbuf>>
  nisa.sendrecv %s, %s to %q from %q pipe 0 : memref<1x1xf32, #nisa.mem<sbuf>>, memref<1x1xf32, #nisa.mem<sbuf>>
  %theirs = memref.subview %out[%q, 0] [1, 8] [1, 1] : memref<4x8xf32, #nisa.mem<hbm>> to memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  nisa.dma_copy %t, %theirs : memref<1x8xf32, #nisa.mem<sbuf>>, memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  %one = arith.constant 1.0 : f32
  nisa.tensor_scalar %t, %t, add %one : memref<1x8xf32, #nisa.mem<sbuf>>, memref<1x8xf32, #nisa.mem<sbuf>>, f32
  %row = arith.addi %r, %c2 : index
  %next = memref.subview %out[%row, 0] [1, 8] [1, 1] : memref<4x8xf32, #nisa.mem<hbm>> to memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  nisa.dma_copy %next, %t : memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>, memref<1x8xf32, #nisa.mem<sbuf>>
  func.return
}
