// A violated MX contract fails mx-opt: exit status 1, the located diagnostic on stderr
// (file:line:col, code, detail, cause, resolution, the source line and a caret under the
// op), no Python traceback, nothing on stdout, and no -o file written. With a pass
// pipeline the input is verified before the first pass runs.
//
// RUN: not mx-opt %s 2>&1 | filecheck %s --check-prefix=ERR
// RUN: not mx-opt %s -p legalize-quantize-mx,legalize-scaled-matmul 2>&1 | filecheck %s --check-prefix=ERR
// RUN: not mx-opt %s 2>&1 | filecheck %s --strict-whitespace --check-prefix=CARET
// RUN: not mx-opt %s > %t.stdout 2> %t.stderr
// RUN: python -c "import sys; sys.exit(open(sys.argv[1]).read() != '')" %t.stdout
// RUN: filecheck %s --check-prefix=ERR --input-file %t.stderr
//
// -o is not written on failure, and an existing file is left as it was:
// RUN: rm -f %t.mlir && not mx-opt %s -o %t.mlir
// RUN: python -c "import os, sys; sys.exit(os.path.exists(sys.argv[1]))" %t.mlir
// RUN: echo "previous contents" > %t.mlir && not mx-opt %s -o %t.mlir
// RUN: filecheck %s --check-prefix=KEEP --input-file %t.mlir
// KEEP: previous contents
//
// --verify-diagnostics prints the same diagnostic on stdout and exits 0 (for lit tests):
// RUN: mx-opt %s --verify-diagnostics --located-diagnostics | filecheck %s --check-prefix=ERR

// ERR-NOT:  Traceback
// ERR:      {{.*}}exit_status.mlir:32:5: error: 'hlo.custom_call' op [MXQ05] QuantizeMX: block_size is 16
// ERR-NEXT: {{^}}  cause: QuantizeMX block_size must be 32.
// ERR-NEXT: {{^}}  resolution: Set block_size to 32, the OCP MX block size (https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf).
// ERR-NEXT: {{^}}  %bad = hlo.custom_call @QuantizeMX(%x)
// ERR-NEXT: {{^ +\^$}}
// ERR-NOT:  {{Traceback|internal error}}
func.func @main(%x: tensor<128x256xbf16>) -> tuple<tensor<128x64xui32>, tensor<128x8xf8E8M0FNU>> {
  %ok = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<128x256xbf16>) -> tuple<tensor<128x64xui32>, tensor<128x8xf8E8M0FNU>>
    %bad = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 16, \"scale_method\": \"EMAX\"}"} : (tensor<128x256xbf16>) -> tuple<tensor<128x64xui32>, tensor<128x8xf8E8M0FNU>>
  // The caret sits under the first character of the op (here indented by 4):
  // CARET:      {{^}}    %bad = hlo.custom_call @QuantizeMX(%x)
  // CARET-NEXT: {{^}}    ^{{$}}
  func.return %ok : tuple<tensor<128x64xui32>, tensor<128x8xf8E8M0FNU>>
}
