// A non-affine memref.load (an indirect access A[idx[i]]) in the nest.
// The nest is left alone with a remark saying why, and the output is byte-identical to
// what mlir-opt prints without the pass.
// RUN: mlir-opt-22 %s > %t.before
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched))' %s > %t.after 2> %t.remarks
// RUN: diff %t.before %t.after
// RUN: FileCheck %s < %t.remarks
// RUN: %autosched describe --tree %s | FileCheck %s --check-prefix=TREE

// CHECK: remark: affine-autosched: nest not modeled: non-affine access 'memref.load' at {{.*}}unsupported-memref-load.mlir:[[@LINE+7]]:10
// CHECK-NOT: remark
// TREE: 1 nest(s) not modeled

func.func @gather(%A: memref<64xf32>, %idx: memref<64xindex>, %out: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    %k = affine.load %idx[%i] : memref<64xindex>
    %a = memref.load %A[%k] : memref<64xf32>
    affine.store %a, %out[%i] : memref<64xf32>
  }
  return
}
