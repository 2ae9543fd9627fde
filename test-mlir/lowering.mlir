// The pass's output goes through the lowering users are told to use (README.md,
// "Lowering the pass's output"; the same as LOWERING in src/measure/compile.rs, which a
// Rust test keeps in step with this file) down to LLVM IR.
// DEFINE: %{lower} = mlir-opt-22 --lower-affine --convert-scf-to-openmp --convert-vector-to-scf --lower-affine \
// DEFINE:   --finalize-memref-to-llvm --convert-scf-to-cf --convert-openmp-to-llvm --convert-vector-to-llvm \
// DEFINE:   --convert-to-llvm --reconcile-unrealized-casts
// DEFINE: %{opt} = mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false
//
// A parallel loop whose body holds a loop bounded by the parallel induction variable,
// with another loop inside: with --convert-vector-to-llvm before --convert-openmp-to-llvm
// this failed ('llvm.br' op operand #0 must be variadic of LLVM dialect-compatible type,
// but got 'index').
// RUN: %{opt} --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@triangle: parallelize(L0)"}))' %s -o %t.par.mlir
// RUN: FileCheck %s --check-prefix=PAR-IR < %t.par.mlir
// RUN: %{lower} %t.par.mlir | mlir-translate-22 --mlir-to-llvmir | FileCheck %s --check-prefix=PAR
// Vector operations.
// RUN: %{opt} --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@scale: vectorize(L0.0:8)"}))' %s -o %t.vec.mlir
// RUN: FileCheck %s --check-prefix=VEC-IR < %t.vec.mlir
// RUN: %{lower} %t.vec.mlir | mlir-translate-22 --mlir-to-llvmir | FileCheck %s --check-prefix=VEC
// Parallel and vector together.
// RUN: %{opt} --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@scale: parallelize(L0); vectorize(L0.0:8)"}))' %s -o %t.parvec.mlir
// RUN: %{lower} %t.parvec.mlir | mlir-translate-22 --mlir-to-llvmir | FileCheck %s --check-prefix=PARVEC
// Tiling (min bounds) and unrolling (a clean-up loop).
// RUN: %{opt} --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@gemm: tile(L0:16, L0.0:16); unroll(L0.0.0:3)"}))' %s -o %t.tile.mlir
// RUN: FileCheck %s --check-prefix=TILE-IR < %t.tile.mlir
// RUN: %{lower} %t.tile.mlir | mlir-translate-22 --mlir-to-llvmir | FileCheck %s --check-prefix=TILE

// PAR-IR: affine.parallel
// PAR: define void @triangle(
// PAR: call void {{.*}}@__kmpc_fork_call(

// VEC-IR: vector.transfer_read
// VEC: define void @scale(
// VEC: <8 x float>

// PARVEC: define void @scale(
// PARVEC: call void {{.*}}@__kmpc_fork_call({{.*}}@scale..omp_par
// PARVEC: define internal void @scale..omp_par(
// PARVEC: fmul <8 x float>

// TILE-IR: affine.for %{{.*}} = {{.*}} to min
// TILE-IR: affine.for %{{.*}} = {{.*}} step 3 {
// TILE: define void @gemm(
// TILE: fmul float

func.func @triangle(%A: memref<12x8xf64>) {
  %cst = arith.constant 1.0 : f64
  affine.for %i = 0 to 8 {
    affine.for %j = affine_map<(d0) -> (d0 + 1)>(%i) to 8 {
      affine.for %k = 2 to 8 {
        affine.store %cst, %A[%k + 1, %i] : memref<12x8xf64>
      }
    }
  }
  return
}

func.func @scale(%A: memref<32x64xf32>, %B: memref<32x64xf32>) {
  %c = arith.constant 3.0 : f32
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 64 {
      %a = affine.load %A[%i, %j] : memref<32x64xf32>
      %s = arith.mulf %a, %c : f32
      affine.store %s, %B[%i, %j] : memref<32x64xf32>
    }
  }
  return
}

func.func @gemm(%A: memref<40x20xf32>, %B: memref<20x40xf32>, %C: memref<40x40xf32>) {
  affine.for %i = 0 to 40 {
    affine.for %j = 0 to 40 {
      affine.for %k = 0 to 20 {
        %a = affine.load %A[%i, %k] : memref<40x20xf32>
        %b = affine.load %B[%k, %j] : memref<20x40xf32>
        %c = affine.load %C[%i, %j] : memref<40x40xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<40x40xf32>
      }
    }
  }
  return
}
