// Reductions through iter_args (a scalar accumulator kept in registers) are modeled: the
// representation places the computation `C[i] = f(C[i], ..)` in the loop that carries it,
// as if the accumulator were written to memory at every iteration. Steps that keep the
// loop's iterations in order apply (unroll, steps on the loops around it); steps that
// would reorder or split them are refused with the reason, and the IR stays as it was.
// RUN: %autosched describe --tree %s | FileCheck %s --check-prefix=TREE
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@rows: unroll(L0.0:4); parallelize(L0)"}))' %s 2>&1 | FileCheck %s --check-prefix=UNROLL
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@rows: parallelize(L0.0)"}))' %s 2>&1 | FileCheck %s --check-prefix=PAR
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@rows: tile(L0.0:8)"}))' %s 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@rows: unroll(L0:2)"}))' %s 2>&1 | FileCheck %s --check-prefix=JAM
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched))' %s -o %t.out 2> %t.remarks
// RUN: FileCheck %s --check-prefix=DEFAULT < %t.remarks
// RUN: mlir-opt-22 --verify-diagnostics %t.out -o /dev/null

// TREE:      @rows: 1 nest(s), 2 loop(s), 1 computation(s), 0 nest(s) not modeled
// TREE:        L0: for d0 in [0, 64)  (64 iterations)
// TREE-NEXT:     L0.0: for d1 in [0, 64)  (64 iterations)  reduction
// TREE-NEXT:       S0: B0[d0] = f(B0[d0], B1[d0, d1])  ops: 1 add.f32, 1 mul.f32  reduces over L0.0
// TREE:      @total: 1 nest(s), 1 loop(s), 1 computation(s), 0 nest(s) not modeled
// TREE:        L0: for d0 in [0, 100)  (100 iterations)  reduction
// TREE-NEXT:     S0: B0[] = f(B0[], B1[d0])  ops: 1 max.f64  reduces over L0
// TREE:      @nested: 0 nest(s), 0 loop(s), 0 computation(s), 1 nest(s) not modeled
// TREE:        not modeled ({{.*}}): loop-carried values (iter_args) on the loop at {{.*}}: a result is yielded to an enclosing loop (nested reductions are not modeled)
// TREE:      @escapes: 0 nest(s)
// TREE:        not modeled ({{.*}}): loop-carried values (iter_args) on the loop at {{.*}}: a result is used other than by one affine.store

// UNROLL: remark: affine-autosched: applied schedule to @rows: unroll(L0.0:4); parallelize(L0)
// UNROLL: affine.parallel
// UNROLL: affine.for %{{.*}} = 0 to 64 step 4 iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// UNROLL-COUNT-4: arith.addf
// UNROLL: affine.yield

// PAR: error: affine-autosched: schedule not applied to @rows: step 1 (parallelize(L0.0)) refused: L0.0 carries a reduction through iter_args (running its iterations at once would reassociate it); the IR was left unchanged
// TILE: error: affine-autosched: schedule not applied to @rows: step 1 (tile(L0.0:8)) refused: tiling of L0.0, a reduction through iter_args, is not supported; the IR was left unchanged
// Unroll-and-jam through the reduction: each copy of the row gets its own accumulator.
// JAM: remark: affine-autosched: applied schedule to @rows: unroll(L0:2)
// JAM: affine.for %{{.*}} = 0 to 64 step 2 {
// JAM-COUNT-2: affine.load %{{.*}} : memref<64xf32>
// JAM: affine.for %{{.*}} = 0 to 64 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32) {
// JAM-COUNT-2: affine.store %{{.*}} : memref<64xf32>

// DEFAULT-DAG: remark: affine-autosched: @rows:
// DEFAULT-DAG: remark: affine-autosched: @total:
// DEFAULT-DAG: remark: affine-autosched: nest not modeled: loop-carried values (iter_args) {{.*}} (nested reductions are not modeled)
// DEFAULT-NOT: error

func.func @rows(%A: memref<64x64xf32>, %out: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    %init = affine.load %out[%i] : memref<64xf32>
    %s = affine.for %j = 0 to 64 iter_args(%acc = %init) -> (f32) {
      %a = affine.load %A[%i, %j] : memref<64x64xf32>
      %sq = arith.mulf %a, %a : f32
      %n = arith.addf %acc, %sq : f32
      affine.yield %n : f32
    }
    affine.store %s, %out[%i] : memref<64xf32>
  }
  return
}

// The whole nest is the reduction: its result is stored after it, at the top level.
func.func @total(%A: memref<100xf64>, %out: memref<f64>) {
  %lowest = arith.constant -1.0e300 : f64
  %m = affine.for %i = 0 to 100 iter_args(%acc = %lowest) -> (f64) {
    %a = affine.load %A[%i] : memref<100xf64>
    %n = arith.maximumf %acc, %a : f64
    affine.yield %n : f64
  }
  affine.store %m, %out[] : memref<f64>
  return
}

// Still refused: a reduction over two loops carried through both.
func.func @nested(%A: memref<8x8xf32>, %out: memref<f32>) {
  %z = arith.constant 0.0 : f32
  %r = affine.for %i = 0 to 8 iter_args(%a = %z) -> (f32) {
    %s = affine.for %j = 0 to 8 iter_args(%b = %a) -> (f32) {
      %x = affine.load %A[%i, %j] : memref<8x8xf32>
      %n = arith.addf %b, %x : f32
      affine.yield %n : f32
    }
    affine.yield %s : f32
  }
  affine.store %r, %out[] : memref<f32>
  return
}

// Still refused: the result is used by more than its store.
func.func @escapes(%A: memref<8xf32>, %out: memref<2xf32>) {
  %z = arith.constant 0.0 : f32
  %r = affine.for %i = 0 to 8 iter_args(%a = %z) -> (f32) {
    %x = affine.load %A[%i] : memref<8xf32>
    %n = arith.addf %a, %x : f32
    affine.yield %n : f32
  }
  affine.store %r, %out[0] : memref<2xf32>
  affine.store %r, %out[1] : memref<2xf32>
  return
}
