// Affine loops inside other control flow (scf.if), and an affine.parallel nest.
// The nest is left alone with a remark saying why, and the output is byte-identical to
// what mlir-opt prints without the pass.
// RUN: mlir-opt-22 %s > %t.before
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched))' %s > %t.after 2> %t.remarks
// RUN: diff %t.before %t.after
// RUN: FileCheck %s < %t.remarks
// RUN: %autosched describe --tree %s | FileCheck %s --check-prefix=TREE

// CHECK-DAG: remark: affine-autosched: nest not modeled: loop nested inside 'scf.if' at {{.*}}unsupported-enclosed.mlir:[[@LINE+7]]:3 (only top-level affine.for nests are modeled)
// CHECK-DAG: remark: affine-autosched: nest not modeled: 'affine.parallel' at {{.*}}unsupported-enclosed.mlir:[[@LINE+11]]:3 (the nest is already parallelized)
// CHECK-NOT: remark
// TREE: @f: 0 nest(s), 0 loop(s), 0 computation(s), 2 nest(s) not modeled

func.func @f(%A: memref<64xf32>, %c: i1) {
  %z = arith.constant 0.0 : f32
  scf.if %c {
    affine.for %i = 0 to 64 {
      affine.store %z, %A[%i] : memref<64xf32>
    }
  }
  affine.parallel (%i) = (0) to (64) {
    affine.store %z, %A[%i] : memref<64xf32>
  }
  return
}
