// vectorize of a loop that carries dependences: legal when each one runs from an operation
// to a later one in the body (the source's vector operation runs first over all lanes), or
// spans at least the vector's width; refused otherwise, saying so.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@forward: vectorize(L0:4)"}))' %s 2>&1 | FileCheck %s --check-prefix=FWD
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@far: vectorize(L0:8)"}))' %s 2>&1 | FileCheck %s --check-prefix=FAR
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@far: vectorize(L0:16)"}))' %s 2>&1 | FileCheck %s --check-prefix=NEAR
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@backward: vectorize(L0:4)"}))' %s 2>&1 | FileCheck %s --check-prefix=BACK

// FWD: remark: affine-autosched: applied schedule to @forward: vectorize(L0:4)
// FWD: vector.transfer_write
// FAR: remark: affine-autosched: applied schedule to @far: vectorize(L0:8)
// NEAR: refused: L0 carries a dependence shorter than 16 iterations from an operation to one before it in the body (or to itself)
// BACK: refused: L0 carries a dependence shorter than 4 iterations

// A[i] is written, then A[i - 1] read (a later operation); B[i + 3] is written and read 4
// iterations later by the first operation.
func.func @forward(%A: memref<72xf32>, %B: memref<72xf32>) {
  affine.for %i = 1 to 65 {
    %b = affine.load %B[%i - 1] : memref<72xf32>
    affine.store %b, %A[%i] : memref<72xf32>
    %a = affine.load %A[%i - 1] : memref<72xf32>
    affine.store %a, %B[%i + 3] : memref<72xf32>
  }
  return
}

// A[i + 8] = 2 * A[i]: distance 8.
func.func @far(%A: memref<72xf32>) {
  affine.for %i = 0 to 64 {
    %a = affine.load %A[%i] : memref<72xf32>
    %s = arith.addf %a, %a : f32
    affine.store %s, %A[%i + 8] : memref<72xf32>
  }
  return
}

// A[i] = A[i - 1] + 1: the store feeds the load of the next iteration, which comes first.
func.func @backward(%A: memref<72xf32>) {
  %one = arith.constant 1.0 : f32
  affine.for %i = 1 to 65 {
    %a = affine.load %A[%i - 1] : memref<72xf32>
    %s = arith.addf %a, %one : f32
    affine.store %s, %A[%i] : memref<72xf32>
  }
  return
}
