// IR that parses but fails verification: the op's verifier message at the op's place in
// the input, exit 1, no traceback; -o is not written and an existing file is kept.

// RUN: not mx-opt %s 2>&1 | filecheck %s
// RUN: not mx-opt %s -p legalize-quantize-mx 2>&1 | filecheck %s
// RUN: python -c "open(r'%t.mlir', 'w').write('stale')"
// RUN: not mx-opt %s -o %t.mlir
// RUN: python -c "import sys; sys.exit(open(r'%t.mlir').read() != 'stale')"

// CHECK-NOT: Traceback
// CHECK:      {{^}}{{.*}}verify-failure.mlir:20:3: error: 'hlo.custom_call' op [MXQ05] QuantizeMX: block_size is 16{{$}}
// CHECK-NEXT: {{^}}  cause: QuantizeMX block_size must be 32.{{$}}
// CHECK-NEXT: {{^}}  resolution: Set block_size to 32
// CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
// CHECK-NEXT: {{^}}  ^{{$}}
// CHECK-NOT: {{.}}

func.func @f(%x: tensor<2x32xbf16>) -> tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>> {
  %c = hlo.constant dense<1> : tensor<i64>
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e5m2\22, \22dim\22: -1, \22block_size\22: 16, \22scale_method\22: \22EMAX\22}"} : (tensor<2x32xbf16>) -> tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>>
  func.return %q : tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>>
}
