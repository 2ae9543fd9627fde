// An scf.for loop inside an affine nest: only affine.for loops are modeled.
// The nest is left alone with a remark saying why, and the output is byte-identical to
// what mlir-opt prints without the pass.
// RUN: mlir-opt-22 %s > %t.before
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched))' %s > %t.after 2> %t.remarks
// RUN: diff %t.before %t.after
// RUN: FileCheck %s < %t.remarks
// RUN: %autosched describe --tree %s | FileCheck %s --check-prefix=TREE

// CHECK: remark: affine-autosched: nest not modeled: 'scf.for' loop at {{.*}}unsupported-scf.mlir:[[@LINE+10]]:5 (only affine.for loops are modeled)
// CHECK-NOT: remark
// TREE: 1 nest(s) not modeled

func.func @f(%A: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 64 {
    scf.for %j = %c0 to %c64 step %c1 {
      memref.store %z, %A[%i, %j] : memref<64x64xf32>
    }
  }
  return
}
