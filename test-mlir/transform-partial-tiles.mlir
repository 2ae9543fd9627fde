// Unrolling or vectorizing a tiled loop whose last tile is partial (`%t to min(%t + T, N)`)
// peels that tile first: the tile loop keeps its full tiles and the last one becomes a copy
// after it, with constant bounds. A later step on the tile loop concerns the full tiles
// only: here every tile reads A[9] and the last one writes it, so the tile loop runs in
// parallel only once the last tile is out of it.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="tile(L0:4); unroll(L0:2); parallelize(L0.t)"}))' %s 2>&1 | FileCheck %s
// RUN: %autosched run %s -s "tile(L0:4); unroll(L0:2); parallelize(L0.t)" --reps 1 --warmup 0 | FileCheck %s --check-prefix=EXEC
// RUN: %autosched run %s -s "tile(L0:4); vectorize(L0:2)" --reps 1 --warmup 0 | FileCheck %s --check-prefix=EXEC
// Without the unroll the last tile is in the loop: refused, the IR unchanged.
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="tile(L0:4); parallelize(L0.t)"}))' %s 2>&1 | FileCheck %s --check-prefix=CARRIED

// CHECK:      remark: affine-autosched: applied schedule to @last_tile_writes: tile(L0:4); unroll(L0:2); parallelize(L0.t)
// CHECK:      affine.parallel (%[[T:.*]]) = (0) to (8) step (4) {
// CHECK-NEXT:   affine.for %{{.*}} = #{{.*}}(%[[T]]) to #{{.*}}(%[[T]]) step 2 {
// CHECK:      }
// CHECK-NOT:  min
// CHECK:      affine.store %{{.*}}, %{{.*}}[%c8]
// CHECK:      affine.store %{{.*}}, %{{.*}}[%{{.*}}]
// CHECK:      return
// EXEC: equivalent: all buffers bitwise identical
// CARRIED: step 2 (parallelize(L0.t)) refused: L0.t carries a dependence; the IR was left unchanged

func.func @last_tile_writes(%A: memref<10xf64>) {
  affine.for %i = 0 to 10 {
    %a = affine.load %A[%i] : memref<10xf64>
    %b = affine.load %A[9] : memref<10xf64>
    %s = arith.addf %a, %b : f64
    affine.store %s, %A[%i] : memref<10xf64>
  }
  return
}
