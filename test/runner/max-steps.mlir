// mx-run --max-steps: a run that interprets more ops than the bound ends at the op it
// reaches, located, naming the loop around it; constant loops that alone exceed the
// bound are refused before the run, at the loop.
// RUN: not mx-run %s --max-steps 1000 2>&1 | filecheck %s --check-prefix=WHILE
// RUN: not mx-run %s --symbol counted --max-steps 21 2>&1 | filecheck %s --check-prefix=COUNTED
// RUN: mx-run %s --symbol counted --max-steps 28 | filecheck %s --check-prefix=FITS
// RUN: not mx-run %s --symbol constant 2>&1 | filecheck %s --check-prefix=ESTIMATE

// WHILE: max-steps.mlir:16:5: error: 'scf.condition' op --max-steps 1000: the run has interpreted 1000 ops (all cores together) and stops at this one inside the scf.while at {{.*}}max-steps.mlir:15:3
// WHILE-NOT: Traceback
func.func @main() -> i64 {
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %t = arith.constant true
  %r = scf.while (%acc = %z) : (i64) -> i64 {
    scf.condition(%t) %acc : i64
  } do {
  ^bb0(%a: i64):
    %n = arith.addi %a, %one : i64
    scf.yield %n : i64
  }
  func.return %r : i64
}

// 6 ops, the scf.for, 10 x (addi, yield), func.return: 28 steps; step 22 is the 8th addi
// COUNTED: max-steps.mlir:36:5: error: 'arith.addi' op --max-steps 21: {{.*}} inside the scf.for at {{.*}}max-steps.mlir:35:3
// FITS: result0: i64 {{.*}} min=10 max=10
func.func @counted() -> i64 {
  %lb = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %ub = arith.addi %c5, %c5 : index
  %st = arith.constant 1 : index
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %z) -> (i64) {
    %n = arith.addi %acc, %one : i64
    scf.yield %n : i64
  }
  func.return %r : i64
}

// ESTIMATE: max-steps.mlir:49:3: error: 'scf.for' op the run would interpret at least 2,000,000,000,007 ops; this scf.for runs 1,000,000,000,000 times, more than --max-steps 1,000,000,000; make the loop shorter, or raise --max-steps (0: no limit)
func.func @constant() -> i64 {
  %lb = arith.constant 0 : index
  %ub = arith.constant 1000000000000 : index
  %st = arith.constant 1 : index
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %z) -> (i64) {
    %n = arith.addi %acc, %one : i64
    scf.yield %n : i64
  }
  func.return %r : i64
}
