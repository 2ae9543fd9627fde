// accumulate: C[i][j], loaded and stored in every iteration of the k loop, is carried in a
// register instead (iter_args): loaded before the loop, stored after it.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@gemm: accumulate(L0.0.0)"}))' %s 2>&1 | FileCheck %s --check-prefix=ACC
// Then unroll-and-jam of j and i: a 2x2 register tile, four accumulators in the k loop.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@gemm: accumulate(L0.0.0); unroll(L0.0:2); unroll(L0:2)"}))' %s 2>&1 | FileCheck %s --check-prefix=TILE
// The same tile jammed rows first: the accumulators, the loads before the loop, the k
// loop's body and the stores after it come in memory order (row by row), as LLVM's SLP
// vectorizer bundles them (passes/kinds/Unroll.cpp, orderAccumulators).
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@gemm: accumulate(L0.0.0); unroll(L0:2); unroll(L0.0:2)"}))' %s 2>&1 | FileCheck %s --check-prefix=ORDER
// Refusals, the IR unchanged: the loop reads the accumulated memref elsewhere; no element
// is loaded and stored in the loop; a jam that would read a row's total before the
// previous row stored it.
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@aliasing: accumulate(L0.0)"}))' %s 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@gemm: accumulate(L0.0)"}))' %s 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@total: accumulate(L0.0); unroll(L0:2)"}))' %s 2>&1 | FileCheck %s --check-prefix=JAM

// ACC-LABEL: func.func @gemm
// ACC:      affine.for %[[I:.*]] = 0 to 64 {
// ACC-NEXT:   affine.for %[[J:.*]] = 0 to 48 {
// ACC-NEXT:     %[[INIT:.*]] = affine.load %{{.*}}[%[[I]], %[[J]]] : memref<64x48xf32>
// ACC-NEXT:     %[[SUM:.*]] = affine.for %{{.*}} = 0 to 32 iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
// ACC-NOT:        memref<64x48xf32>
// ACC:            %[[NEW:.*]] = arith.addf %[[ACC]], %{{.*}} : f32
// ACC-NEXT:       affine.yield %[[NEW]] : f32
// ACC-NEXT:     }
// ACC-NEXT:     affine.store %[[SUM]], %{{.*}}[%[[I]], %[[J]]] : memref<64x48xf32>

// TILE-LABEL: func.func @gemm
// TILE:       affine.for %{{.*}} = 0 to 64 step 2 {
// TILE-NEXT:    affine.for %{{.*}} = 0 to 48 step 2 {
// TILE-COUNT-4: affine.load {{.*}} : memref<64x48xf32>
// TILE:         affine.for %{{.*}} = 0 to 32 iter_args({{.*}}) -> (f32, f32, f32, f32) {
// TILE-NOT:       memref<64x48xf32>
// TILE:           affine.yield {{.*}} : f32, f32, f32, f32
// TILE-COUNT-4: affine.store {{.*}} : memref<64x48xf32>

// ORDER-LABEL: func.func @gemm
// ORDER:       affine.for %[[I:.*]] = 0 to 64 step 2 {
// ORDER-NEXT:    affine.for %[[J:.*]] = 0 to 48 step 2 {
// ORDER-NEXT:      %[[C00:.*]] = affine.load %{{.*}}[%[[I]], %[[J]]] : memref<64x48xf32>
// ORDER-NEXT:      %[[J1:.*]] = affine.apply #{{.*}}(%[[J]])
// ORDER-NEXT:      %[[C01:.*]] = affine.load %{{.*}}[%[[I]], %[[J1]]] : memref<64x48xf32>
// ORDER-NEXT:      %[[I1:.*]] = affine.apply #{{.*}}(%[[I]])
// ORDER-NEXT:      %[[C10:.*]] = affine.load %{{.*}}[%[[I1]], %[[J]]] : memref<64x48xf32>
// ORDER:           %[[C11:.*]] = affine.load %{{.*}}[%{{.*}}, %[[J1]]] : memref<64x48xf32>
// ORDER-NEXT:      %[[R:.*]]:4 = affine.for %{{.*}} = 0 to 32 iter_args(%[[A00:.*]] = %[[C00]], %[[A01:.*]] = %[[C01]], %[[A10:.*]] = %[[C10]], %[[A11:.*]] = %[[C11]])
// ORDER:             %[[S00:.*]] = arith.addf %[[A00]], %{{.*}} : f32
// ORDER:             %[[S01:.*]] = arith.addf %[[A01]], %{{.*}} : f32
// ORDER:             %[[S10:.*]] = arith.addf %[[A10]], %{{.*}} : f32
// ORDER:             %[[S11:.*]] = arith.addf %[[A11]], %{{.*}} : f32
// ORDER-NEXT:        affine.yield %[[S00]], %[[S01]], %[[S10]], %[[S11]] : f32, f32, f32, f32
// ORDER:           affine.store %[[R]]#0, %{{.*}}[%[[I]], %[[J]]] : memref<64x48xf32>
// ORDER:           affine.store %[[R]]#1, %{{.*}}[%[[I]], %{{.*}}] : memref<64x48xf32>
// ORDER:           affine.store %[[R]]#2, %{{.*}}[%{{.*}}, %[[J]]] : memref<64x48xf32>
// ORDER:           affine.store %[[R]]#3, %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x48xf32>

// OTHER: step 1 (accumulate(L0.0)) refused: another access to the memref of L0.0's accumulator (affine.load) would read or write its element behind it; the IR was left unchanged
// NONE: step 1 (accumulate(L0.0)) refused: L0.0 holds no load and store of one element whose subscripts do not vary in it; the IR was left unchanged
// JAM: step 2 (unroll(L0:2)) refused: unroll-and-jam of L0 would reorder an access beside its inner loop with another iteration of its group; the IR was left unchanged

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

// x[i] accumulates over j while x[j] is read in the same loop: at j = i it must see the
// partial sum in memory.
func.func @aliasing(%A: memref<32x32xf64>, %x: memref<32xf64>) {
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 32 {
      %a = affine.load %A[%i, %j] : memref<32x32xf64>
      %xj = affine.load %x[%j] : memref<32xf64>
      %xi = affine.load %x[%i] : memref<32xf64>
      %p = arith.mulf %a, %xj : f64
      %s = arith.addf %xi, %p : f64
      affine.store %s, %x[%i] : memref<32xf64>
    }
  }
  return
}

// Every row adds into one total: jamming two rows would load the total for the second
// before the first stored it.
func.func @total(%A: memref<16x16xi32>, %t: memref<1xi32>) {
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      %a = affine.load %A[%i, %j] : memref<16x16xi32>
      %c = affine.load %t[0] : memref<1xi32>
      %s = arith.addi %c, %a : i32
      affine.store %s, %t[0] : memref<1xi32>
    }
  }
  return
}

// A loop that may not run (j < i): its accumulator would be loaded and stored at i = 0,
// where the element x[i - 1] is outside the buffer.
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@maybe_empty: accumulate(L0.0)"}))' %s 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: step 1 (accumulate(L0.0)) refused: L0.0 may not run for some iterations of the loops around it: the accumulator's load before it and store after it would touch an element the loop does not; the IR was left unchanged
func.func @maybe_empty(%A: memref<16x16xf32>, %x: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
      %a = affine.load %A[%i, %j] : memref<16x16xf32>
      %c = affine.load %x[%i - 1] : memref<16xf32>
      %s = arith.addf %c, %a : f32
      affine.store %s, %x[%i - 1] : memref<16xf32>
    }
  }
  return
}
