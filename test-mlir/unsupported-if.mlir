// An affine.if in the nest: conditional execution is not modeled.
// The nest is left alone with a remark saying why, and the output is byte-identical to
// what mlir-opt prints without the pass.
// RUN: mlir-opt-22 %s > %t.before
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched))' %s > %t.after 2> %t.remarks
// RUN: diff %t.before %t.after
// RUN: FileCheck %s < %t.remarks
// RUN: %autosched describe --tree %s | FileCheck %s --check-prefix=TREE

// CHECK: unsupported-if.mlir:[[@LINE+7]]:3: remark: affine-autosched: nest not modeled: 'affine.if' at {{.*}}unsupported-if.mlir:[[@LINE+9]]:7 (conditional execution)
// CHECK-NOT: remark
// TREE: @f: 0 nest(s), 0 loop(s), 0 computation(s), 1 nest(s) not modeled

#set = affine_set<(d0, d1) : (d0 - d1 >= 0)>
func.func @f(%A: memref<64x64xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      affine.if #set(%i, %j) {
        affine.store %z, %A[%i, %j] : memref<64x64xf32>
      }
    }
  }
  return
}
