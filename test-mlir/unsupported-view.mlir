// A buffer that is a view (memref.subview) of another: aliasing is not modeled.
// The nest is left alone with a remark saying why, and the output is byte-identical to
// what mlir-opt prints without the pass.
// RUN: mlir-opt-22 %s > %t.before
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched))' %s > %t.after 2> %t.remarks
// RUN: diff %t.before %t.after
// RUN: FileCheck %s < %t.remarks
// RUN: %autosched describe --tree %s | FileCheck %s --check-prefix=TREE

// CHECK: remark: affine-autosched: nest not modeled: buffer accessed at {{.*}}unsupported-view.mlir:[[@LINE+8]]:5 is defined by 'memref.subview' (views and aliasing are not modeled)
// CHECK-NOT: remark
// TREE: 1 nest(s) not modeled

func.func @f(%A: memref<64x64xf32>) {
  %z = arith.constant 0.0 : f32
  %v = memref.subview %A[0, 0] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1]>>
  affine.for %i = 0 to 32 {
    affine.store %z, %v[%i, %i] : memref<32x32xf32, strided<[64, 1]>>
  }
  return
}
