// tile: a 2-loop band of gemm; 64 is a multiple of 16 (plain intra-tile bounds), 48 is not
// a multiple of 32 (MLIR bounds the last tile with a min). The tile loops come first.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="tile(L0:16, L0.0:32)"}))' %s 2>/dev/null | FileCheck %s
// A three-loop band, then the tile loops renamed L0.t and L0.0.t take further steps.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="tile(L0:16, L0.0:16, L0.0.0:8); parallelize(L0.t)"}))' %s 2>/dev/null | FileCheck %s --check-prefix=BAND3

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[P16:.*]] = affine_map<(d0) -> (d0 + 16)>
// CHECK-DAG: #[[MIN:.*]] = affine_map<(d0) -> (d0 + 32, 48)>
// CHECK:      affine.for %[[II:.*]] = 0 to 64 step 16 {
// CHECK-NEXT:   affine.for %[[JJ:.*]] = 0 to 48 step 32 {
// CHECK-NEXT:     affine.for %[[I:.*]] = #[[ID]](%[[II]]) to #[[P16]](%[[II]]) {
// CHECK-NEXT:       affine.for %[[J:.*]] = #[[ID]](%[[JJ]]) to min #[[MIN]](%[[JJ]]) {
// CHECK-NEXT:         affine.for %{{.*}} = 0 to 32 {

// BAND3:      affine.parallel (%{{.*}}) = (0) to (64) step (16) {
// BAND3-NEXT:   affine.for %{{.*}} = 0 to 48 step 16 {
// BAND3-NEXT:     affine.for %{{.*}} = 0 to 32 step 8 {
// BAND3-NEXT:       affine.for
// BAND3-NEXT:         affine.for
// BAND3-NEXT:           affine.for

func.func @gemm(%A: memref<64x32xf32>, %B: memref<32x48xf32>, %C: memref<64x48xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 48 {
      affine.for %k = 0 to 32 {
        %a = affine.load %A[%i, %k] : memref<64x32xf32>
        %b = affine.load %B[%k, %j] : memref<32x48xf32>
        %c = affine.load %C[%i, %j] : memref<64x48xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<64x48xf32>
      }
    }
  }
  return
}
