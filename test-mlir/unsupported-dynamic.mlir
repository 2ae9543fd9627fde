// A buffer of dynamic shape: sizes unknown at compile time are not modeled.
// The nest is left alone with a remark saying why, and the output is byte-identical to
// what mlir-opt prints without the pass.
// RUN: mlir-opt-22 %s > %t.before
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched))' %s > %t.after 2> %t.remarks
// RUN: diff %t.before %t.after
// RUN: FileCheck %s < %t.remarks
// RUN: %autosched describe --tree %s | FileCheck %s --check-prefix=TREE

// CHECK: remark: affine-autosched: nest not modeled: dynamic shape memref<?x64xf32> of a buffer accessed at {{.*}}unsupported-dynamic.mlir:[[@LINE+8]]:7
// CHECK-NOT: remark
// TREE: 1 nest(s) not modeled

func.func @f(%A: memref<?x64xf32>, %n: index) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to %n {
    affine.for %j = 0 to 64 {
      affine.store %z, %A[%i, %j] : memref<?x64xf32>
    }
  }
  return
}
