// Bounds and subscripts outside the representation: a min upper bound (a tiled loop) and a mod subscript.
// The nest is left alone with a remark saying why, and the output is byte-identical to
// what mlir-opt prints without the pass.
// RUN: mlir-opt-22 %s > %t.before
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched))' %s > %t.after 2> %t.remarks
// RUN: diff %t.before %t.after
// RUN: FileCheck %s < %t.remarks
// RUN: %autosched describe --tree %s | FileCheck %s --check-prefix=TREE

// CHECK-DAG: remark: affine-autosched: nest not modeled: upper bound of the loop at {{.*}}unsupported-bounds.mlir:[[@LINE+8]]:5 is a min of 2 expressions
// CHECK-DAG: remark: affine-autosched: nest not modeled: subscript at {{.*}}unsupported-bounds.mlir:[[@LINE+12]]:5 is not linear: it contains 'mod' of a non-constant
// CHECK-NOT: remark
// TREE: @f: 0 nest(s), 0 loop(s), 0 computation(s), 2 nest(s) not modeled

func.func @f(%A: memref<100xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %ii = 0 to 100 step 32 {
    affine.for %i = affine_map<(d0) -> (d0)>(%ii) to min affine_map<(d0) -> (d0 + 32, 100)>(%ii) {
      affine.store %z, %A[%i] : memref<100xf32>
    }
  }
  affine.for %i = 0 to 100 {
    affine.store %z, %A[%i mod 7] : memref<100xf32>
  }
  return
}
