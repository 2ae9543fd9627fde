// Loop-carried values (iter_args): a scalar reduction kept in registers.
// The nest is left alone with a remark saying why, and the output is byte-identical to
// what mlir-opt prints without the pass.
// RUN: mlir-opt-22 %s > %t.before
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched))' %s > %t.after 2> %t.remarks
// RUN: diff %t.before %t.after
// RUN: FileCheck %s < %t.remarks
// RUN: %autosched describe --tree %s | FileCheck %s --check-prefix=TREE

// CHECK: remark: affine-autosched: nest not modeled: loop-carried values (iter_args) on the loop at {{.*}}unsupported-iter-args.mlir:[[@LINE+7]]:10
// CHECK-NOT: remark
// TREE: 1 nest(s) not modeled

func.func @f(%A: memref<64x64xf32>, %out: memref<64xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 64 {
    %s = affine.for %j = 0 to 64 iter_args(%acc = %z) -> (f32) {
      %a = affine.load %A[%i, %j] : memref<64x64xf32>
      %n = arith.addf %acc, %a : f32
      affine.yield %n : f32
    }
    affine.store %s, %out[%i] : memref<64xf32>
  }
  return
}
