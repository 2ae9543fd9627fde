// `autosched optimize`: the model-guided beam search picks a schedule, applies it, and the
// output is valid IR (parsed again by mlir-opt). The schedule itself depends on the shipped
// model, so only its form is checked here.
// RUN: %autosched optimize %s -o %t.mlir 2>&1 | FileCheck %s --check-prefix=CHOSEN
// RUN: mlir-opt-22 %t.mlir -o /dev/null
// RUN: %autosched optimize %s --max-depth 0 -o %t.same.mlir 2>&1 | FileCheck %s --check-prefix=KEPT
// RUN: mlir-opt-22 %s | diff - %t.same.mlir

// CHOSEN: autosched: @scale_rows: applied {{.+}} (predicted speedup {{[0-9.]+}}x{{( \[[0-9.]+x, [0-9.]+x\])?}}; evaluator model, {{[0-9]+}} candidates scored, search {{[0-9.]+}} s)
// KEPT: autosched: @scale_rows: kept the original: no schedule was predicted faster than the original by more than 5% (evaluator model, 1 candidates scored, search {{[0-9.]+}} s)

func.func @scale_rows(%A: memref<512x1024xf32>, %s: memref<512xf32>) {
  affine.for %i = 0 to 512 {
    affine.for %j = 0 to 1024 {
      %a = affine.load %A[%i, %j] : memref<512x1024xf32>
      %f = affine.load %s[%i] : memref<512xf32>
      %p = arith.mulf %a, %f : f32
      affine.store %p, %A[%i, %j] : memref<512x1024xf32>
    }
  }
  return
}
