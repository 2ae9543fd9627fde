// A call in the nest: calls may have side effects the representation cannot see.
// The nest is left alone with a remark saying why; without a search (max-depth=0) the output
// is byte-identical to what mlir-opt prints without the pass.
// RUN: mlir-opt-22 %s > %t.before
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{max-depth=0}))' %s > %t.after 2> %t.remarks
// RUN: diff %t.before %t.after
// RUN: FileCheck %s < %t.remarks
// With the search on, the modeled nest may change; the nest with the call stays as it was.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched))' %s 2>/dev/null | FileCheck %s --check-prefix=SEARCH
// RUN: %autosched describe --tree %s | FileCheck %s --check-prefix=TREE

// CHECK: remark: affine-autosched: nest not modeled: call to @g at {{.*}}unsupported-call.mlir:[[@LINE+13]]:10 (calls may have side effects)
// CHECK: remark: affine-autosched: @f: kept the original
// CHECK-NOT: remark
// SEARCH:      affine.for %{{.*}} = 0 to 64 {
// SEARCH-NEXT:   affine.load
// SEARCH-NEXT:   func.call @g
// The second nest of @f has no call and is modeled.
// TREE: @f: 1 nest(s), 1 loop(s), 1 computation(s), 1 nest(s) not modeled

func.func private @g(f32) -> f32
func.func @f(%A: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    %a = affine.load %A[%i] : memref<64xf32>
    %b = func.call @g(%a) : (f32) -> f32
    affine.store %b, %A[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %a = affine.load %A[%i] : memref<64xf32>
    %b = arith.addf %a, %a : f32
    affine.store %b, %A[%i] : memref<64xf32>
  }
  return
}
