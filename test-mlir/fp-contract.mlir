// fp-contract=true: the function's floating-point adds, subtracts and multiplies are marked
// fastmath<contract> (kept with the flags they had), so LLVM may fuse a multiply into the
// add that uses it; divisions and integer arithmetic are left alone. A permission, not a
// schedule step: said in a remark, off by default.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{fp-contract=true schedule="@gemm: accumulate(L0.0.0)"}))' %s 2>&1 | FileCheck %s --check-prefix=ON
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@gemm: accumulate(L0.0.0)"}))' %s 2>&1 | FileCheck %s --check-prefix=OFF
// The flags survive the lowering of README.md to the LLVM dialect, where LLVM reads them.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{fp-contract=true schedule="@gemm: accumulate(L0.0.0)"}))' %s 2>/dev/null \
// RUN: | mlir-opt-22 --lower-affine --convert-scf-to-openmp --convert-vector-to-scf --lower-affine \
// RUN:   --finalize-memref-to-llvm --convert-scf-to-cf --convert-openmp-to-llvm --convert-vector-to-llvm \
// RUN:   --convert-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM
// A refused schedule leaves the IR as it was: nothing marked either.
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{fp-contract=true schedule="@gemm: accumulate(L0.0)"}))' %s 2>&1 | FileCheck %s --check-prefix=REFUSED
// Only true or false.
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{fp-contract=fast}))' %s 2>&1 | FileCheck %s --check-prefix=BAD

// ON: remark: affine-autosched: @gemm: fp-contract: 3 floating-point operations marked fastmath<contract>
// ON-LABEL: func.func @gemm
// ON:   affine.for %{{.*}} = 0 to 32 iter_args
// ON:     arith.mulf %{{.*}}, %{{.*}} fastmath<nnan,contract> : f32
// ON:     arith.subf %{{.*}}, %{{.*}} fastmath<contract> : f32
// ON:     arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
// ON:     arith.divf %{{.*}}, %{{.*}} : f32
// ON:     arith.addi %{{.*}}, %{{.*}} : i32

// OFF-NOT: remark: affine-autosched: @gemm: fp-contract
// OFF-LABEL: func.func @gemm
// OFF:   arith.mulf %{{.*}}, %{{.*}} fastmath<nnan> : f32
// OFF:   arith.subf %{{.*}}, %{{.*}} : f32
// OFF:   arith.addf %{{.*}}, %{{.*}} : f32
// OFF-NOT: contract

// LLVM: llvm.fmul %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<nnan, contract>} : f32
// LLVM: llvm.fsub %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<contract>} : f32
// LLVM: llvm.fadd %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<contract>} : f32

// REFUSED: error: affine-autosched: schedule not applied to @gemm: step 1 (accumulate(L0.0)) refused
// REFUSED-NOT: remark: affine-autosched: @gemm: fp-contract
// REFUSED-LABEL: func.func @gemm
// REFUSED-NOT: contract

// BAD: for the --fp-contract option: 'fast' is invalid value for boolean argument

func.func @gemm(%A: memref<64x32xf32>, %B: memref<32x48xf32>, %C: memref<64x48xf32>,
                %D: memref<64x48xf32>, %N: memref<64xi32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 48 {
      affine.for %k = 0 to 32 {
        %a = affine.load %A[%i, %k] : memref<64x32xf32>
        %b = affine.load %B[%k, %j] : memref<32x48xf32>
        %c = affine.load %C[%i, %j] : memref<64x48xf32>
        %p = arith.mulf %a, %b fastmath<nnan> : f32
        %q = arith.subf %p, %a : f32
        %s = arith.addf %c, %q : f32
        affine.store %s, %C[%i, %j] : memref<64x48xf32>
      }
    }
  }
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 48 {
      %c = affine.load %C[%i, %j] : memref<64x48xf32>
      %d = arith.divf %c, %c : f32
      affine.store %d, %D[%i, %j] : memref<64x48xf32>
    }
    %n = affine.load %N[%i] : memref<64xi32>
    %m = arith.addi %n, %n : i32
    affine.store %m, %N[%i] : memref<64xi32>
  }
  return
}
