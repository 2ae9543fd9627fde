// A computation deeper than the cost model's 7 loop levels: the default (model) search
// keeps the original with a remark saying why, not a failed search; the IR is unchanged.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched))' %s 2>&1 | FileCheck %s
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(affine-autosched))' %s 2>/dev/null > %t.out
// RUN: mlir-opt-22 %s > %t.ref && diff %t.ref %t.out

// CHECK: remark: affine-autosched: @deep: kept the original: the cost model cannot describe it (computation S0 is 8 loops deep; the model takes at most 7); evaluator=execution can search it
// CHECK-NOT: warning
// CHECK-NOT: error

func.func @deep(%A: memref<2x2x2x2x2x2x2x2xf64>) {
  affine.for %i0 = 0 to 2 {
    affine.for %i1 = 0 to 2 {
      affine.for %i2 = 0 to 2 {
        affine.for %i3 = 0 to 2 {
          affine.for %i4 = 0 to 2 {
            affine.for %i5 = 0 to 2 {
              affine.for %i6 = 0 to 2 {
                affine.for %i7 = 0 to 2 {
                  %a = affine.load %A[%i0, %i1, %i2, %i3, %i4, %i5, %i6, %i7] : memref<2x2x2x2x2x2x2x2xf64>
                  %b = arith.addf %a, %a : f64
                  affine.store %b, %A[%i0, %i1, %i2, %i3, %i4, %i5, %i6, %i7] : memref<2x2x2x2x2x2x2x2xf64>
                }
              }
            }
          }
        }
      }
    }
  }
  return
}
