// Transform-dialect scripts of the pass's schedules (emit-transform=, autosched
// export-transform) replay to the pass's output with the project's transform ops
// (--load-dialect-plugin); an illegal step fails with the reason and leaves the function
// as it was; transform.autosched.optimize runs the search where a script asks for it.
//
// RUN: rm -rf %t && split-file %s %t
// The pass's choice on gemm, its script, and the script replayed: the same IR.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{emit-transform=%t/gemm.script.mlir}))' \
// RUN:   %S/gemm.mlir -o %t/gemm.pass.mlir 2>/dev/null
// RUN: FileCheck %s --check-prefix=SCRIPT < %t/gemm.script.mlir
// RUN: mlir-opt-22 --load-dialect-plugin=%plugin --load-pass-plugin=%plugin \
// RUN:   --transform-preload-library=transform-library-paths=%t/gemm.script.mlir --transform-interpreter \
// RUN:   %S/gemm.mlir -o %t/gemm.replayed.mlir
// RUN: diff %t/gemm.pass.mlir %t/gemm.replayed.mlir
// The command line writes the same script.
// RUN: %autosched export-transform %S/gemm.mlir %t/gemm.cli.mlir 2>/dev/null
// RUN: diff %t/gemm.script.mlir %t/gemm.cli.mlir
//
// An illegal step: an error with the reason, the function unchanged (printed after the failure).
// RUN: not mlir-opt-22 --load-dialect-plugin=%plugin --load-pass-plugin=%plugin --mlir-print-ir-after-failure \
// RUN:   --transform-preload-library=transform-library-paths=%t/illegal.mlir --transform-interpreter \
// RUN:   %S/seidel-2d.mlir 2>&1 | FileCheck %s --check-prefixes=ILLEGAL,UNCHANGED
// RUN: not mlir-opt-22 --load-dialect-plugin=%plugin --load-pass-plugin=%plugin \
// RUN:   --transform-preload-library=transform-library-paths=%t/unnamed.mlir --transform-interpreter \
// RUN:   %S/seidel-2d.mlir 2>&1 | FileCheck %s --check-prefix=UNNAMED
// RUN: not mlir-opt-22 --load-dialect-plugin=%plugin --load-pass-plugin=%plugin \
// RUN:   --transform-preload-library=transform-library-paths=%t/missing.mlir --transform-interpreter \
// RUN:   %S/seidel-2d.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// A script that asks for the search.
// RUN: mlir-opt-22 --load-dialect-plugin=%plugin --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --transform-preload-library=transform-library-paths=%t/optimize.mlir --transform-interpreter \
// RUN:   %S/gemm.mlir -o %t/gemm.optimized.mlir 2> %t/optimize.remarks
// RUN: FileCheck %s --check-prefix=OPTIMIZE < %t/optimize.remarks
// RUN: diff %t/gemm.pass.mlir %t/gemm.optimized.mlir

// SCRIPT: module attributes {transform.with_named_sequence} {
// SCRIPT: transform.named_sequence @autosched_gemm(%f0: !transform.any_op {transform.consumed}) {
// SCRIPT-NEXT: %f1 = transform.autosched.name_loops %f0
// SCRIPT-NEXT: %f2 = transform.autosched.step %f1 "
// SCRIPT: transform.autosched.clear_names
// SCRIPT: transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
// SCRIPT-NEXT: %func0 = transform.autosched.match_function "gemm" in %root
// SCRIPT-NEXT: transform.include @autosched_gemm failures(propagate) (%func0)

// ILLEGAL: error: affine-autosched: @seidel_2d: step 1 (interchange(L0.0.0, L0.0)) refused: interchange(L0.0.0, L0.0) would reverse a dependence {{.*}}; this op's steps were not applied (earlier ops' stay)
// UNCHANGED: affine.for %{{.*}} = 0 to 40 {
// UNCHANGED-NEXT: affine.for %{{.*}} = 1 to 199 {
// UNCHANGED-NEXT: affine.for %{{.*}} = 1 to 199 {
// UNCHANGED-NOT: autosched.loop
// UNNAMED: error: affine-autosched: @seidel_2d: step 1 (parallelize(L0)): the function's loops carry no names: run transform.autosched.name_loops on it first
// MISSING: error: no func.func @no_such_function in the payload
// OPTIMIZE: remark: affine-autosched: @gemm: applied

//--- illegal.mlir
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f0 = transform.autosched.match_function "seidel_2d" in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.autosched.name_loops %f0 : (!transform.any_op) -> !transform.any_op
    %f2 = transform.autosched.step %f1 "interchange(L0.0.0, L0.0)" : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

//--- unnamed.mlir
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f0 = transform.autosched.match_function "seidel_2d" in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.autosched.step %f0 "parallelize(L0)" : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

//--- missing.mlir
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f0 = transform.autosched.match_function "no_such_function" in %root : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

//--- optimize.mlir
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f0 = transform.autosched.match_function "gemm" in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.autosched.optimize %f0 options = "beam-width=8" : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
