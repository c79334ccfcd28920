// Upstream-style round trips (the suite's XDSL_ROUNDTRIP and XDSL_GENERIC_ROUNDTRIP)
// with mx-opt on either side of the pipe, over upstream dialects: each tool reads what
// the other prints, and mx-opt prints what xdsl-opt prints. An upstream-style sample.

// RUN: mx-opt %s --print-op-generic --split-input-file | xdsl-opt --split-input-file > %t.mx-x
// RUN: xdsl-opt %s --print-op-generic --split-input-file | mx-opt --split-input-file > %t.x-mx
// RUN: xdsl-opt %s --split-input-file > %t.x
// RUN: diff %t.mx-x %t.x
// RUN: diff %t.x-mx %t.x
// RUN: filecheck %s --input-file %t.x-mx
// RUN: mx-opt %s --print-op-generic --split-input-file | filecheck %s --check-prefix=CHECK-GENERIC

func.func @loop(%n: index, %buf: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    memref.store %zero, %buf[%i] : memref<?xf32>
  }
  func.return
}
// CHECK-LABEL: func.func @loop(%n: index, %buf: memref<?xf32>) {
// CHECK:         scf.for %i = %c0 to %n step %c1 {
// CHECK-NEXT:      memref.store %zero, %buf[%i] : memref<?xf32>
// CHECK-NEXT:    }
// CHECK-GENERIC: "scf.for"(%c0, %n, %c1) ({
// CHECK-GENERIC: "memref.store"(%zero, %buf, %i) : (f32, memref<?xf32>, index) -> ()

// -----

func.func @select(%c: i1, %a: vector<4xi8>, %b: vector<4xi8>) -> vector<4xi8> attributes {llvm.emit_c_interface} {
  %r = arith.select %c, %a, %b : vector<4xi8>
  func.return %r : vector<4xi8>
}
// CHECK-LABEL: func.func @select(%c: i1, %a: vector<4xi8>, %b: vector<4xi8>) -> vector<4xi8> attributes {llvm.emit_c_interface} {
// CHECK-NEXT:    %r = arith.select %c, %a, %b : vector<4xi8>
// CHECK-GENERIC: "arith.select"(%c, %a, %b) : (i1, vector<4xi8>, vector<4xi8>) -> vector<4xi8>
