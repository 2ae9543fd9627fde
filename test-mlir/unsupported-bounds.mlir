// A subscript outside the representation (a mod of a loop): the nest is left alone with a
// remark saying why, and the output is byte-identical to what mlir-opt prints without the
// pass. (`min`/`max` bounds are modeled: see minmax-bounds.mlir.)
// RUN: mlir-opt-22 %s > %t.before
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched))' %s > %t.after 2> %t.remarks
// RUN: diff %t.before %t.after
// RUN: FileCheck %s < %t.remarks
// RUN: %autosched describe --tree %s | FileCheck %s --check-prefix=TREE

// CHECK: remark: affine-autosched: nest not modeled: subscript at {{.*}}unsupported-bounds.mlir:[[@LINE+7]]:5 is not linear: it contains 'mod' of a non-constant
// CHECK-NOT: remark
// TREE: @f: 0 nest(s), 0 loop(s), 0 computation(s), 1 nest(s) not modeled

func.func @f(%A: memref<100xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 100 {
    affine.store %z, %A[%i mod 7] : memref<100xf32>
  }
  return
}
