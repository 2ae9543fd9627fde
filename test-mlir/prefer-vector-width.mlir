// prefer-vector-width=N: the LLVM function attribute prefer-vector-width, through
// func.func's passthrough attribute (kept with the entries it had, an old width replaced),
// which the lowering carries to the LLVM function. 0 (the default) leaves the function
// as it is; other widths are refused.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{prefer-vector-width=512 schedule="@copy: tile(L0:16)"}))' %s 2>&1 | FileCheck %s --check-prefix=SET
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{prefer-vector-width=512 schedule="@copy: tile(L0:16)"}))' %s 2>/dev/null \
// RUN: | mlir-opt-22 --lower-affine --convert-scf-to-openmp --convert-vector-to-scf --lower-affine \
// RUN:   --finalize-memref-to-llvm --convert-scf-to-cf --convert-openmp-to-llvm --convert-vector-to-llvm \
// RUN:   --convert-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@copy: tile(L0:16)"}))' %s 2>&1 | FileCheck %s --check-prefix=DEFAULT
// The decision report records the code generation options the function was given.
// RUN: rm -f %t.jsonl
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{prefer-vector-width=512 fp-contract=true report=%t.jsonl schedule="@copy: tile(L0:16)"}))' %s -o /dev/null
// RUN: FileCheck %s --check-prefix=REPORT < %t.jsonl
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{prefer-vector-width=384}))' %s 2>&1 | FileCheck %s --check-prefix=BAD

// SET: remark: affine-autosched: @copy: prefer-vector-width: LLVM is asked to vectorize for 512-bit vectors
// SET: func.func @copy({{.*}}) attributes {passthrough = ["nounwind", ["prefer-vector-width", "512"]]}

// LLVM: llvm.func @copy({{.*}}) attributes {passthrough = ["nounwind", ["prefer-vector-width", "512"]]}

// DEFAULT-NOT: remark: affine-autosched: @copy: prefer-vector-width
// DEFAULT: func.func @copy({{.*}}) attributes {passthrough = ["nounwind", ["prefer-vector-width", "128"]]}

// REPORT: "function":"copy"
// REPORT-SAME: "source":"explicit"
// REPORT-SAME: "codegen":{"fp_contract":true,"prefer_vector_width":512}

// BAD: error: affine-autosched: option 'prefer-vector-width' must be one of 0, 128, 256, 512, got '384'

func.func @copy(%A: memref<64xf32>, %B: memref<64xf32>) attributes {passthrough = ["nounwind", ["prefer-vector-width", "128"]]} {
  affine.for %i = 0 to 64 {
    %a = affine.load %A[%i] : memref<64xf32>
    affine.store %a, %B[%i] : memref<64xf32>
  }
  return
}
