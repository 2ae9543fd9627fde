// `max` lower and `min` upper bounds (what upstream tiling, --affine-loop-tile and
// unrolling's clean-up loops make) are modeled: the loop starts at the largest lower
// expression and ends before the smallest upper one. The search may transform such nests;
// steps MLIR cannot express on them are refused with the reason.
// RUN: %autosched describe --tree %s | FileCheck %s --check-prefix=TREE
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@tiled: parallelize(L0); unroll(L0.0.0:4)"}))' %s 2>&1 | FileCheck %s --check-prefix=APPLY
// A point loop of the schedule's own tiling unrolled by a factor its trip count may not be
// a multiple of: the partial last tile is peeled (full tiles `%t to %t + 24`, the last one
// constant), then each copy is unrolled with its own clean-up.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@tiled: tile(L0.0.0:24); unroll(L0.0.0:5)"}))' %s 2>&1 | FileCheck %s --check-prefix=PEEL
// RUN: %autosched run %s --function tiled -s "tile(L0.0.0:24); unroll(L0.0.0:5)" --reps 1 --warmup 0 | FileCheck %s --check-prefix=EXEC
// The input's own tiling is not peeled (L0 is not L0.0's tile loop of the schedule), nor a
// max lower bound (the window's): refused, IR unchanged.
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@tiled: unroll(L0.0:3)"}))' %s 2>&1 | FileCheck %s --check-prefix=INPUT
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@clamped: unroll(L0.0:2)"}))' %s 2>&1 | FileCheck %s --check-prefix=UNROLL
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@clamped: vectorize(L0.0:4)"}))' %s 2>&1 | FileCheck %s --check-prefix=VEC
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@tiled: interchange(L0, L0.0)"}))' %s 2>&1 | FileCheck %s --check-prefix=SWAP
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched))' %s -o %t.out 2> %t.remarks
// RUN: FileCheck %s --check-prefix=DEFAULT < %t.remarks
// RUN: mlir-opt-22 --verify-diagnostics %t.out -o /dev/null

// TREE:      @tiled: 1 nest(s), 3 loop(s), 1 computation(s), 0 nest(s) not modeled
// TREE:        L0: for d0 in [0, 100) step 32  (4 iterations)
// TREE-NEXT:     L0.0: for d1 in [d0, min(d0 + 32, 100))
// TREE-NEXT:       L0.0.0: for d2 in [0, 64)  (64 iterations)
// TREE:      @clamped: 1 nest(s), 2 loop(s), 1 computation(s), 0 nest(s) not modeled
// TREE:        L0: for d0 in [max(0, 2), min(30, 40))  (28 iterations)
// TREE-NEXT:     L0.0: for d1 in [max(d0 - 2, 0), min(d0 + 3, 30))

// APPLY: remark: affine-autosched: applied schedule to @tiled: parallelize(L0); unroll(L0.0.0:4)
// APPLY: affine.parallel
// APPLY: affine.for %{{.*}} = #{{.*}}(%{{.*}}) to min #{{.*}}(%{{.*}}) {
// APPLY: affine.for %{{.*}} = 0 to 64 step 4 {

// PEEL: remark: affine-autosched: applied schedule to @tiled: tile(L0.0.0:24); unroll(L0.0.0:5)
// PEEL:      affine.for %[[T:.*]] = 0 to 48 step 24 {
// PEEL-NEXT:   affine.for %{{.*}} = #{{.*}}(%[[T]]) to #{{.*}}(%[[T]]) step 5 {
// PEEL:        affine.for %{{.*}} = 48 to 63 step 5 {
// PEEL:      func.func @clamped
// INPUT: refused: L0.0 has a max or min bound and a trip count that is not a known multiple of 3 (MLIR's unroller cannot bound the clean-up loop; L0.0's upper bound is a min over L0, which is not its tile loop (only the partial tiles of the schedule's own tiling are peeled)); the IR was left unchanged
// EXEC: equivalent: all buffers bitwise identical

// VEC: refused: L0.0 has a max or min bound and a trip count that is not a known multiple of 4 (its remainder loop cannot be bounded; L0.0's lower bound is a max of several expressions); the IR was left unchanged
// UNROLL: refused: L0.0 has a max or min bound and a trip count that is not a known multiple of 2 (MLIR's unroller cannot bound the clean-up loop; L0.0's lower bound is a max of several expressions); the IR was left unchanged
// SWAP: refused: the bounds of L0.0 depend on L0 (the band is not rectangular)

// DEFAULT-DAG: remark: affine-autosched: @tiled:
// DEFAULT-DAG: remark: affine-autosched: @clamped:
// DEFAULT-NOT: not modeled
// DEFAULT-NOT: error

#tile_ub = affine_map<(d0) -> (d0 + 32, 100)>
func.func @tiled(%A: memref<100x64xf32>, %B: memref<100x64xf32>) {
  affine.for %ii = 0 to 100 step 32 {
    affine.for %i = affine_map<(d0) -> (d0)>(%ii) to min #tile_ub(%ii) {
      affine.for %j = 0 to 64 {
        %a = affine.load %A[%i, %j] : memref<100x64xf32>
        %b = arith.mulf %a, %a : f32
        affine.store %b, %B[%i, %j] : memref<100x64xf32>
      }
    }
  }
  return
}

// A windowed sum clamped at both ends (a 1-D convolution with borders).
func.func @clamped(%A: memref<40xf64>, %B: memref<40xf64>) {
  affine.for %i = max affine_map<() -> (0, 2)>() to min affine_map<() -> (30, 40)>() {
    affine.for %k = max affine_map<(d0) -> (d0 - 2, 0)>(%i) to min affine_map<(d0) -> (d0 + 3, 30)>(%i) {
      %a = affine.load %A[%k] : memref<40xf64>
      %b = affine.load %B[%i] : memref<40xf64>
      %s = arith.addf %a, %b : f64
      affine.store %s, %B[%i] : memref<40xf64>
    }
  }
  return
}
