// The pass composes in an existing pipeline: after canonicalize (which folds the constant
// index operand into the access), before lower-affine; the result still verifies.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(canonicalize,affine-autosched{dump-representation=true},cse),lower-affine,canonicalize)' %s \
// RUN:   2> %t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks

// CHECK-LABEL: func.func @copy_row
// CHECK: scf.for
// CHECK-NOT: affine.for
// REMARK: remark: affine-autosched: representation of nest 0 of @copy_row:
// REMARK-SAME: "loads":[{"buffer":1,"matrix":{{\[\[}}0,3],[1,0]]}]

func.func @copy_row(%A: memref<8x16xf32>, %B: memref<16xf32>) {
  %c3 = arith.constant 3 : index
  affine.for %j = 0 to 16 {
    %a = affine.load %A[%c3, %j] : memref<8x16xf32>
    affine.store %a, %B[%j] : memref<16xf32>
  }
  return
}
