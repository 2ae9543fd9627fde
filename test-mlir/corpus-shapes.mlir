// Shapes from MLIR's own affine tests (upstream tiling, linalg-to-affine, vector loads,
// conditionals, iter_args) beside a nest the pass models, in one function: the default
// pass must neither crash nor fail the pipeline; the tiled loop's min bound and the
// iter_args reduction are modeled, the nests it does not model get a remark each and stay
// as they are; the output verifies (test-mlir/lower-all.mlir lowers it).
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched))' %s -o %t.out 2> %t.remarks
// RUN: FileCheck %s < %t.remarks
// RUN: mlir-opt-22 --verify-diagnostics %t.out -o /dev/null
// RUN: FileCheck %s --check-prefix=KEPT < %t.out

// CHECK-DAG: remark: affine-autosched: nest not modeled: {{.*}}affine.if
// CHECK-DAG: remark: affine-autosched: nest not modeled: {{.*}}vector
// CHECK-DAG: remark: affine-autosched: @mixed:
// CHECK-NOT: error
// CHECK-NOT: warning

// The min bound and the reduction survive whatever the search chose; the unmodeled nests
// are printed back unchanged:
// KEPT: min #map
// KEPT: iter_args
// KEPT: affine.if
// KEPT: affine.vector_load

#tile_ub = affine_map<(d0) -> (d0 + 32, 100)>
#set = affine_set<(d0) : (d0 - 10 >= 0)>
func.func @mixed(%A: memref<100xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>, %s: memref<f32>) {
  %z = arith.constant 0.0 : f32
  // Upstream tiling: a point loop with a min bound.
  affine.for %ii = 0 to 100 step 32 {
    affine.for %i = affine_map<(d0) -> (d0)>(%ii) to min #tile_ub(%ii) {
      affine.store %z, %A[%i] : memref<100xf32>
    }
  }
  // A modeled nest: the search may transform it.
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %b = affine.load %B[%j, %i] : memref<64x64xf32>
      affine.store %b, %C[%i, %j] : memref<64x64xf32>
    }
  }
  // A scalar reduction in registers.
  %r = affine.for %i = 0 to 100 iter_args(%acc = %z) -> (f32) {
    %a = affine.load %A[%i] : memref<100xf32>
    %n = arith.addf %acc, %a : f32
    affine.yield %n : f32
  }
  affine.store %r, %s[] : memref<f32>
  // A conditional.
  affine.for %i = 0 to 100 {
    affine.if #set(%i) {
      affine.store %z, %A[%i] : memref<100xf32>
    }
  }
  // Vector loads.
  affine.for %i = 0 to 64 step 8 {
    %v = affine.vector_load %B[0, %i] : memref<64x64xf32>, vector<8xf32>
    affine.vector_store %v, %C[0, %i] : memref<64x64xf32>, vector<8xf32>
  }
  return
}
