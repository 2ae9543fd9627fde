// distribute: a loop split into one loop per child, in order, each part named after it
// (.d0, .d1, ...). 2mm's first product: C[i][j] = 0 is split from its k loop, then the
// rows, which leaves a perfect i-j-k nest that can be interchanged to i-k-j.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@matmul: distribute(L0.0); distribute(L0); interchange(L0.0.0, L0.0.d1)"}))' %s 2>/dev/null | FileCheck %s --check-prefix=MM
// The parts of a loop are its children: loops and stores, each with the loads and
// arithmetic that feed it.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@forward: distribute(L0)"}))' %s 2>/dev/null | FileCheck %s --check-prefix=FWD
// Refusals leave the function as it was, with the reason.
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false --mlir-print-ir-after-failure \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@backward: distribute(L0)"}))' %s > %t.back 2>&1
// RUN: FileCheck %s --check-prefix=BACK < %t.back
// RUN: FileCheck %s --check-prefix=BACKIR < %t.back
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@shared: distribute(L0)"}))' %s 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@matmul: distribute(L0)"}))' %s 2>&1 | FileCheck %s --check-prefix=SINGLE
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@forward: distribute(L0); unroll(L0.d3:2)"}))' %s 2>&1 | FileCheck %s --check-prefix=PART
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@forward: unroll(L0:2); distribute(L0)"}))' %s 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@forward: distribute(L0); parallelize(L0)"}))' %s 2>&1 | FileCheck %s --check-prefix=GONE

// MM-LABEL: func.func @matmul
// MM:      affine.for %[[I:.*]] = 0 to 32 {
// MM-NEXT:   affine.for %[[J:.*]] = 0 to 48 {
// MM-NEXT:     affine.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]]
// MM-NEXT:   }
// MM-NEXT: }
// MM-NEXT: affine.for %[[I2:.*]] = 0 to 32 {
// MM-NEXT:   affine.for %[[K:.*]] = 0 to 64 {
// MM-NEXT:     affine.for %[[J2:.*]] = 0 to 48 {
// MM:            affine.store %{{.*}}, %{{.*}}[%[[I2]], %[[J2]]]
// MM-NEXT:     }
// MM-NEXT:   }
// MM-NEXT: }
// MM-NEXT: return
func.func @matmul(%A: memref<32x64xf32>, %B: memref<64x48xf32>, %C: memref<32x48xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 48 {
      affine.store %zero, %C[%i, %j] : memref<32x48xf32>
      affine.for %k = 0 to 64 {
        %a = affine.load %A[%i, %k] : memref<32x64xf32>
        %b = affine.load %B[%k, %j] : memref<64x48xf32>
        %c = affine.load %C[%i, %j] : memref<32x48xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<32x48xf32>
      }
    }
  }
  return
}

// @forward: T[i] is read at i + 1 by the second statement (a dependence from the first
// part to a later iteration of the second: kept when all of the first runs first).
// FWD-LABEL: func.func @forward
// FWD:      affine.for %[[I:.*]] = 1 to 64 {
// FWD-NEXT:   affine.load %{{.*}}[%[[I]]]
// FWD-NEXT:   arith.mulf
// FWD-NEXT:   affine.store %{{.*}}, %[[T:.*]][%[[I]]]
// FWD-NEXT: }
// FWD-NEXT: affine.for %[[I2:.*]] = 1 to 64 {
// FWD-NEXT:   affine.load %[[T]][%[[I2]] - 1]
// FWD-NEXT:   affine.store
// FWD-NEXT: }
// FWD-NEXT: affine.for %{{.*}} = 1 to 64 {
// FWD-NEXT:   affine.for
// FWD:      return
func.func @forward(%A: memref<64xf32>, %T: memref<64xf32>, %B: memref<64xf32>, %M: memref<64x8xf32>) {
  %two = arith.constant 2.0 : f32
  affine.for %i = 1 to 64 {
    %a = affine.load %A[%i] : memref<64xf32>
    %t = arith.mulf %a, %two : f32
    affine.store %t, %T[%i] : memref<64xf32>
    %p = affine.load %T[%i - 1] : memref<64xf32>
    affine.store %p, %B[%i] : memref<64xf32>
    affine.for %j = 0 to 8 {
      affine.store %two, %M[%i, %j] : memref<64x8xf32>
    }
  }
  return
}

// @backward: the second statement writes T[i], which the first reads at i + 1: with all
// of the first part run first, it would read T before the second part wrote it.
// BACK: error: affine-autosched: schedule not applied to @backward: step 1 (distribute(L0)) refused: distributing L0 would reverse a dependence: part 1 accesses at one iteration what part 0 accesses at a later one
// BACKIR: IR Dump After {{.*}}AffineAutoschedPass Failed
// BACKIR-NEXT: func.func @backward
// BACKIR-NEXT:   affine.for %{{.*}} = 1 to 64 {
// BACKIR-NEXT:     affine.load
// BACKIR-NEXT:     affine.store
// BACKIR-NEXT:     affine.load
// BACKIR-NEXT:     affine.store
// BACKIR-NEXT:   }
func.func @backward(%A: memref<64xf32>, %T: memref<64xf32>, %B: memref<64xf32>) {
  affine.for %i = 1 to 64 {
    %p = affine.load %T[%i - 1] : memref<64xf32>
    affine.store %p, %B[%i] : memref<64xf32>
    %a = affine.load %A[%i] : memref<64xf32>
    affine.store %a, %T[%i] : memref<64xf32>
  }
  return
}

// SHARED: step 1 (distribute(L0)) refused: L0 cannot be distributed: a value computed for one of its statements is used by another
func.func @shared(%A: memref<64xf32>, %B: memref<64xf32>, %C: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    %a = affine.load %A[%i] : memref<64xf32>
    affine.store %a, %B[%i] : memref<64xf32>
    affine.store %a, %C[%i] : memref<64xf32>
  }
  return
}

// SINGLE: step 1 (distribute(L0)) refused: L0 holds a single loop or statement: nothing to distribute
// PART: step 2 (unroll(L0.d3:2)) refused: no loop named L0.d3 in the function
// ORDER: step 2 (distribute(L0)): distribute must come before unroll and vectorize steps (step 1)
// GONE: step 2 (parallelize(L0)): L0 no longer exists after step 1 (distribute)
