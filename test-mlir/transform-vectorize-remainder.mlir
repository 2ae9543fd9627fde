// vectorize with a remainder: a loop whose trip count is not a known multiple of the width
// runs its whole groups as vectors and the rest in a scalar copy after it (same name).
// Constant bounds: 100 iterations by 16 lanes -> [0, 96) as vectors, [96, 100) scalar.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@scale: vectorize(L0.0:16)"}))' %s 2>&1 | FileCheck %s --check-prefix=CONST
// A triangular loop (j < i + 1): the split point is computed from the bounds, and the
// remainder starts at max(split, lb).
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@triangle: vectorize(L0.0:8)"}))' %s 2>&1 | FileCheck %s --check-prefix=TRI
// A tile's point loop (min bound): the partial last tile is peeled first. 100 columns in
// tiles of 24: four full tiles of 3 vectors each, and a last tile of 4 that stays scalar.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@scale: tile(L0.0:24); vectorize(L0.0:8)"}))' %s 2>&1 | FileCheck %s --check-prefix=PEEL
// RUN: %autosched run %s --function scale -s "tile(L0.0:24); vectorize(L0.0:8)" --reps 1 --warmup 0 | FileCheck %s --check-prefix=EXEC
// Refusals, with the IR unchanged: fewer iterations than lanes (a max lower bound with no
// partial tile to peel: test-mlir/minmax-bounds.mlir).
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@short: vectorize(L0:16)"}))' %s 2>&1 | FileCheck %s --check-prefix=SHORT

// CONST-LABEL: func.func @scale
// CONST:      affine.for %[[I:.*]] = 0 to 50 {
// CONST-NEXT:   affine.for %{{.*}} = 0 to 96 step 16 {
// CONST:          vector.transfer_read {{.*}} : memref<50x100xf32>, vector<16xf32>
// CONST:          vector.transfer_write {{.*}} : vector<16xf32>, memref<50x100xf32>
// CONST:        }
// CONST-NEXT:   affine.for %[[J:.*]] = 96 to 100 {
// CONST-NEXT:     affine.load %{{.*}}[%[[I]], %[[J]]] : memref<50x100xf32>
// CONST-NOT:  vector
// CONST:      return

// TRI-LABEL: func.func @triangle
// TRI:        affine.for %[[I:.*]] = 0 to 64 {
// TRI:          %[[SPLIT:.*]] = affine.apply #[[FLOOR:.*]](%[[I]])
// TRI-NEXT:     affine.for %{{.*}} = 0 to #{{.*}}(%[[SPLIT]]) step 8 {
// TRI:            vector.transfer_write {{.*}} : vector<8xf64>, memref<64x64xf64>
// TRI:          affine.for %{{.*}} = max #{{.*}}(%[[SPLIT]], %{{.*}}) to #{{.*}}(%[[I]]) {
// TRI-NEXT:       affine.load

// PEEL-LABEL: func.func @scale
// PEEL:        affine.for %{{.*}} = 0 to 50 {
// PEEL-NEXT:     affine.for %[[T:.*]] = 0 to 96 step 24 {
// PEEL-NEXT:       affine.for %{{.*}} = #{{.*}}(%[[T]]) to #{{.*}}(%[[T]]) step 8 {
// PEEL:              vector.transfer_write {{.*}} : vector<8xf32>, memref<50x100xf32>
// PEEL:          affine.for %{{.*}} = 96 to 100 {
// PEEL-NEXT:       affine.load
// PEEL-NOT:    min
// PEEL:        return
// EXEC: equivalent: all buffers bitwise identical
// SHORT: step 1 (vectorize(L0:16)) refused: L0 runs 10 iterations, fewer than the width 16; the IR was left unchanged

func.func @scale(%A: memref<50x100xf32>, %s: f32) {
  affine.for %i = 0 to 50 {
    affine.for %j = 0 to 100 {
      %a = affine.load %A[%i, %j] : memref<50x100xf32>
      %b = arith.mulf %a, %s : f32
      affine.store %b, %A[%i, %j] : memref<50x100xf32>
    }
  }
  return
}

func.func @triangle(%A: memref<64x64xf64>, %B: memref<64x64xf64>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
      %b = affine.load %B[%i, %j] : memref<64x64xf64>
      %a = affine.load %A[%i, %j] : memref<64x64xf64>
      %c = arith.addf %a, %b : f64
      affine.store %c, %A[%i, %j] : memref<64x64xf64>
    }
  }
  return
}

func.func @short(%A: memref<10xi32>) {
  affine.for %i = 0 to 10 {
    %a = affine.load %A[%i] : memref<10xi32>
    %b = arith.addi %a, %a : i32
    affine.store %b, %A[%i] : memref<10xi32>
  }
  return
}
