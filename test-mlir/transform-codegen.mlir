// The code generation options (fp-contract=, prefer-vector-width=) travel with the
// Transform-dialect script as transform.autosched.codegen, where the pass applied them:
// before a search's steps, after a schedule= option's; the replayed IR is the pass's.
//
// RUN: rm -rf %t && split-file %s %t
// Searched, with both options: the script gives them first, and replays to the pass's IR.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{fp-contract=true prefer-vector-width=256 emit-transform=%t/searched.script.mlir}))' \
// RUN:   %S/gemm.mlir -o %t/searched.pass.mlir 2>/dev/null
// RUN: FileCheck %s --check-prefix=SEARCHED < %t/searched.script.mlir
// RUN: mlir-opt-22 --load-dialect-plugin=%plugin --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --transform-preload-library=transform-library-paths=%t/searched.script.mlir --transform-interpreter \
// RUN:   %S/gemm.mlir -o %t/searched.replayed.mlir 2> %t/searched.remarks
// RUN: diff %t/searched.pass.mlir %t/searched.replayed.mlir
// RUN: FileCheck %s --check-prefix=REMARKS < %t/searched.remarks
// The command line writes the same script.
// RUN: %autosched export-transform --fp-contract --prefer-vector-width 256 %S/gemm.mlir %t/searched.cli.mlir 2>/dev/null
// RUN: diff %t/searched.script.mlir %t/searched.cli.mlir
//
// An explicit schedule: the options after its steps.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="parallelize(L0)" prefer-vector-width=512 emit-transform=%t/explicit.script.mlir}))' \
// RUN:   %S/gemm.mlir -o %t/explicit.pass.mlir 2>/dev/null
// RUN: FileCheck %s --check-prefix=EXPLICIT < %t/explicit.script.mlir
// RUN: mlir-opt-22 --load-dialect-plugin=%plugin --load-pass-plugin=%plugin \
// RUN:   --transform-preload-library=transform-library-paths=%t/explicit.script.mlir --transform-interpreter \
// RUN:   %S/gemm.mlir -o %t/explicit.replayed.mlir 2>/dev/null
// RUN: diff %t/explicit.pass.mlir %t/explicit.replayed.mlir
//
// The original kept (an empty schedule), an option given: the script still gives it.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule=";" fp-contract=true emit-transform=%t/kept.script.mlir}))' \
// RUN:   %S/gemm.mlir -o %t/kept.pass.mlir 2>/dev/null
// RUN: FileCheck %s --check-prefix=KEPT < %t/kept.script.mlir
// RUN: mlir-opt-22 --load-dialect-plugin=%plugin --load-pass-plugin=%plugin \
// RUN:   --transform-preload-library=transform-library-paths=%t/kept.script.mlir --transform-interpreter \
// RUN:   %S/gemm.mlir -o %t/kept.replayed.mlir 2>/dev/null
// RUN: diff %t/kept.pass.mlir %t/kept.replayed.mlir
//
// A width LLVM's x86 targets do not have: an error, the function unchanged.
// RUN: not mlir-opt-22 --load-dialect-plugin=%plugin --load-pass-plugin=%plugin --mlir-print-ir-after-failure \
// RUN:   --transform-preload-library=transform-library-paths=%t/bad-width.mlir --transform-interpreter \
// RUN:   %S/gemm.mlir 2>&1 | FileCheck %s --check-prefix=BAD

// SEARCHED: transform.named_sequence @autosched_gemm(%f0: !transform.any_op {transform.consumed}) {
// SEARCHED-NEXT: %f1 = transform.autosched.name_loops %f0
// SEARCHED-NEXT: %f2 = transform.autosched.codegen %f1 {fp_contract, prefer_vector_width = 256 : i64}
// SEARCHED-NEXT: %f3 = transform.autosched.step %f2 "
// SEARCHED-NOT: transform.autosched.codegen
// SEARCHED: transform.autosched.clear_names
// REMARKS: remark: affine-autosched: @gemm: fp-contract: {{[0-9]+}} floating-point operations marked fastmath<contract>
// REMARKS: remark: affine-autosched: @gemm: prefer-vector-width: LLVM is asked to vectorize for 256-bit vectors
// EXPLICIT: %f1 = transform.autosched.name_loops %f0
// EXPLICIT-NEXT: %f2 = transform.autosched.step %f1 "parallelize(L0)"
// EXPLICIT-NEXT: %f3 = transform.autosched.codegen %f2 {prefer_vector_width = 512 : i64}
// EXPLICIT-NEXT: %f4 = transform.autosched.clear_names %f3
// KEPT: %f2 = transform.autosched.codegen %f1 {fp_contract}
// KEPT-NEXT: %f3 = transform.autosched.clear_names %f2
// KEPT: transform.include @autosched_gemm
// BAD: error: affine-autosched: prefer_vector_width must be one of 128, 256, 512, got 384
// BAD-NOT: passthrough

//--- bad-width.mlir
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f0 = transform.autosched.match_function "gemm" in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.autosched.codegen %f0 {fp_contract, prefer_vector_width = 384 : i64} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
