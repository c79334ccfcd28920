"""Write a function of ``depth`` nested ``scf.for`` loops (one iteration each) that
returns its tensor argument: ``python nested_loops.py DEPTH OUT.mlir``."""

import sys

depth, out = int(sys.argv[1]), sys.argv[2]
lines = [
    "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {",
    "  %c0 = arith.constant 0 : index",
    "  %c1 = arith.constant 1 : index",
]
lines += [f"{'  ' * (i + 1)}scf.for %i{i} = %c0 to %c1 step %c1 {{" for i in range(depth)]
lines += [f"{'  ' * (i + 1)}}}" for i in reversed(range(depth))]
lines += ["  func.return %x : tensor<4xf32>", "}"]
with open(out, "w") as stream:
    stream.write("\n".join(lines) + "\n")
