// Offline tuning: `autosched tune` measures every function once into the records; a second
// run resumes (nothing left to do); a budget of 0 starts nothing; the pass then applies the
// tuned schedules from the records.
//
// RUN: rm -f %t.db
// RUN: %autosched tune %s --records %t.db --evaluator hybrid --budget 0 --quiet | FileCheck %s --check-prefix=NONE
// RUN: %autosched tune %s --records %t.db --evaluator hybrid --quiet --json %t.rows.json | FileCheck %s --check-prefix=FIRST
// RUN: %autosched tune %s --records %t.db --evaluator hybrid --quiet | FileCheck %s --check-prefix=AGAIN
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{records=%t.db}))' %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PASS
// RUN: not %autosched tune %s --records %t.db --evaluator model 2>&1 | FileCheck %s --check-prefix=MODEL

// NONE: 3 functions: 0 tuned, 0 already in the records, 3 not started (the budget ran out: the same command resumes)
// FIRST-DAG: @transpose {{ *}}tuned
// FIRST-DAG: @rows {{ *}}tuned
// FIRST-DAG: @no_loops {{ *}}nothing {{.*}}no loop nest
// FIRST: 3 functions: 2 tuned, 0 already in the records, 0 not started, 1 with nothing to tune, 0 failed
// AGAIN: 3 functions: 0 tuned, 2 already in the records
// PASS-DAG: @transpose: {{.*}}from the tuning records
// PASS-DAG: @rows: {{.*}}from the tuning records
// MODEL: error: --evaluator model: tuning measures; use hybrid or execution

func.func @transpose(%a: memref<256x256xf32>, %b: memref<256x256xf32>) {
  affine.for %i = 0 to 256 {
    affine.for %j = 0 to 256 {
      %v = affine.load %a[%j, %i] : memref<256x256xf32>
      affine.store %v, %b[%i, %j] : memref<256x256xf32>
    }
  }
  return
}

func.func @rows(%a: memref<128x512xf32>, %s: memref<128xf32>) {
  affine.for %i = 0 to 128 {
    affine.for %j = 0 to 512 {
      %v = affine.load %a[%i, %j] : memref<128x512xf32>
      %acc = affine.load %s[%i] : memref<128xf32>
      %w = arith.addf %acc, %v : f32
      affine.store %w, %s[%i] : memref<128xf32>
    }
  }
  return
}

func.func @no_loops(%a: memref<4xf32>) {
  return
}
