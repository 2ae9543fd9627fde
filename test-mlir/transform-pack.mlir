// pack: before the loop, the part of an argument that the loop reads is copied into a
// local buffer of that part's shape, and the loop reads the copy.
// Tiles of 16 x 20 over a 64 x 48 product (48 is not a multiple of 20: the last j tile is
// a partial one): B's box under the j tile is all 32 k by 20 j.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@gemm: tile(L0:16, L0.0:20); pack(L0.0, %arg1)"}))' %s 2>&1 | FileCheck %s --check-prefix=TILE
// Both inputs at the point loop under the tile loops, then the register tile and the
// parallel tile loop over them.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@gemm: tile(L0:16, L0.0:16, L0.0.0:16); pack(L0, %arg0); pack(L0, %arg1); accumulate(L0.0.0); unroll(L0.0:4); parallelize(L0.t)"}))' %s 2>&1 | FileCheck %s --check-prefix=BOTH
// A loop-invariant scale of the packed values goes into the copy (alpha * A[i][k] is
// computed once per copied element, the kernel reads the product); B, whose loads are
// multiplied by a value that varies in the loop, is copied as it is.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@scaled: tile(L0:16, L0.0:16, L0.0.0:16); pack(L0, %arg1); pack(L0, %arg2)"}))' %s 2>&1 | FileCheck %s --check-prefix=FOLD
// Not folded: a packed value also used other than by the product; products by different
// scales.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@twouses: pack(L0, %arg1)"}))' %s 2>&1 | FileCheck %s --check-prefix=TWOUSES
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@twoscales: pack(L0, %arg2)"}))' %s 2>&1 | FileCheck %s --check-prefix=TWOSCALES
// A copy in another order: W[o][i] read along o by the register tile's columns is copied
// as [i][o] (the box under the rows' point loop: 20 outputs by 16 inputs), and the tile
// reads it contiguously. The whole of a triangular kernel's A, transposed, before its nest.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@dense: tile(L0:16, L0.0:20, L0.0.0:16); pack(L0, %arg2, [1, 0]); accumulate(L0.0.0); unroll(L0.0:4)"}))' %s 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@lower: pack(L0, %arg1, [1, 0])"}))' %s 2>&1 | FileCheck %s --check-prefix=ROOT
// Refusals, the IR unchanged: the loop writes the argument; does not read it; reads it
// through vector loads; the part it reads is over the size limit; no such argument; an
// order that is not one of the argument's dimensions.
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@gemm: pack(L0.0, %arg2)"}))' %s 2>&1 | FileCheck %s --check-prefix=WRITES
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@scale: pack(L0, %arg2)"}))' %s 2>&1 | FileCheck %s --check-prefix=UNREAD
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@scale: vectorize(L0.0:8); pack(L0, %arg0)"}))' %s 2>&1 | FileCheck %s --check-prefix=VECTOR
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@huge: pack(L0.0, %arg0)"}))' %s 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@scale: pack(L0, %arg7)"}))' %s 2>&1 | FileCheck %s --check-prefix=NOARG
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@huge: pack(L0, %arg1, [1, 0])"}))' %s 2>&1 | FileCheck %s --check-prefix=RANK
// A parse error names the column.
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@scale: pack(L0, B)"}))' %s 2>&1 | FileCheck %s --check-prefix=PARSE

// TILE-LABEL: func.func @gemm
// TILE:         affine.for %[[IT:.*]] = 0 to 64 step 16 {
// TILE-NEXT:      affine.for %[[JT:.*]] = 0 to 48 step 20 {
// TILE-NEXT:        affine.for %[[I:.*]] = #{{.*}}(%[[IT]]) to #{{.*}}(%[[IT]]) {
// TILE:               %[[BUF:.*]] = memref.alloc() : memref<32x20xf32>
// TILE:               affine.for %[[CK:.*]] = 0 to 32 {
// TILE-NEXT:            affine.for %[[CJ:.*]] = {{.*}}(%[[JT]]) to min {{.*}}(%[[JT]]) {
// TILE-NEXT:              %[[V:.*]] = affine.load %arg1[%[[CK]], %[[CJ]]] : memref<32x48xf32>
// TILE-NEXT:              affine.store %[[V]], %[[BUF]][%[[CK]], %[[CJ]] - %[[JT]]] : memref<32x20xf32>
// TILE:               affine.for %[[J:.*]] = #{{.*}}(%[[JT]]) to min #{{.*}}(%[[JT]]) {
// TILE-NEXT:            affine.for %[[K:.*]] = 0 to 32 {
// TILE-NOT:               %arg1
// TILE:                   affine.load %[[BUF]][%[[K]], -%[[JT]] + %[[J]]] : memref<32x20xf32>
// TILE:               memref.dealloc %[[BUF]] : memref<32x20xf32>

// BOTH-LABEL: func.func @gemm
// BOTH:         affine.parallel
// BOTH:           %[[A:.*]] = memref.alloc() : memref<16x16xf32>
// BOTH:           %[[B:.*]] = memref.alloc() : memref<16x16xf32>
// BOTH:           affine.for {{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32) {
// BOTH-NOT:         %arg0
// BOTH-NOT:         %arg1
// BOTH:             affine.load %[[A]]
// BOTH:           memref.dealloc %[[B]]
// BOTH-NEXT:      memref.dealloc %[[A]]

// FOLD-LABEL: func.func @scaled(%arg0
// FOLD:           %[[A:.*]] = memref.alloc() : memref<16x16xf32>
// FOLD:             %[[V:.*]] = affine.load %arg1[{{.*}}] : memref<64x32xf32>
// FOLD-NEXT:        %[[S:.*]] = arith.mulf %arg0, %[[V]] : f32
// FOLD-NEXT:        affine.store %[[S]], %[[A]][{{.*}}] : memref<16x16xf32>
// FOLD:           %[[B:.*]] = memref.alloc() : memref<16x16xf32>
// FOLD:             %[[W:.*]] = affine.load %arg2[{{.*}}] : memref<32x48xf32>
// FOLD-NEXT:        affine.store %[[W]], %[[B]][{{.*}}] : memref<16x16xf32>
// FOLD:           affine.for
// FOLD:             %[[X:.*]] = affine.load %[[A]]
// FOLD-NEXT:        %[[Y:.*]] = affine.load %[[B]]
// FOLD-NOT:         %arg0
// FOLD:             arith.mulf %[[X]], %[[Y]] : f32
// FOLD:         return

// TWOUSES-LABEL: func.func @twouses(%arg0
// TWOUSES:         %[[V:.*]] = affine.load %arg1
// TWOUSES-NEXT:    affine.store %[[V]]
// TWOUSES:         arith.mulf %arg0, %{{.*}} : f32
// TWOSCALES-LABEL: func.func @twoscales(%arg0
// TWOSCALES:         %[[W:.*]] = affine.load %arg2
// TWOSCALES-NEXT:    affine.store %[[W]]
// TWOSCALES:         arith.mulf %arg0, %{{.*}} : f32
// TWOSCALES:         arith.mulf %arg1, %{{.*}} : f32

// ORDER-LABEL: func.func @dense
// ORDER:           %[[W:[a-z0-9_]+]] = memref.alloc() : memref<16x20xf32>
// ORDER:           affine.for %[[CO:[a-z0-9_]+]] = {{.*}} {
// ORDER-NEXT:        affine.for %[[CI:[a-z0-9_]+]] = {{.*}} {
// ORDER-NEXT:          %[[V:[a-z0-9_]+]] = affine.load %arg2[%[[CO]], %[[CI]]] : memref<48x32xf32>
// ORDER-NEXT:          affine.store %[[V]], %[[W]][%[[CI]] - %{{.*}}, %[[CO]] - %{{.*}}] : memref<16x20xf32>
// ORDER:           affine.for {{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32) {
// ORDER-NOT:         %arg2
// ORDER:             affine.load %[[W]][{{.*}}] : memref<16x20xf32>
// ORDER:           memref.dealloc %[[W]] : memref<16x20xf32>

// ROOT-LABEL: func.func @lower
// ROOT:          %[[AT:[a-z0-9_]+]] = memref.alloc() : memref<32x40xf32>
// ROOT:          affine.for %[[R:[a-z0-9_]+]] = 0 to 40 {
// ROOT-NEXT:       affine.for %[[C:[a-z0-9_]+]] = 0 to 32 {
// ROOT-NEXT:         %[[V:[a-z0-9_]+]] = affine.load %arg1[%[[R]], %[[C]]] : memref<40x32xf32>
// ROOT-NEXT:         affine.store %[[V]], %[[AT]][%[[C]], %[[R]]] : memref<32x40xf32>
// ROOT:          affine.for %[[I:[a-z0-9_]+]] = 0 to 40 {
// ROOT-NEXT:       affine.for %[[K:[a-z0-9_]+]] = 0 to 32 {
// ROOT-NEXT:         affine.for %[[J:[a-z0-9_]+]] = 0 to #{{.*}}(%[[I]]) {
// ROOT-NEXT:           affine.load %[[AT]][%[[K]], %[[I]]] : memref<32x40xf32>
// ROOT-NEXT:           affine.load %[[AT]][%[[K]], %[[J]]] : memref<32x40xf32>
// ROOT:          memref.dealloc %[[AT]] : memref<32x40xf32>
// ROOT-NEXT:     return

// WRITES: step 1 (pack(L0.0, %arg2)) refused: L0.0 writes %arg2 (affine.store): its copy would go stale; the IR was left unchanged
// UNREAD: step 1 (pack(L0, %arg2)) refused: L0 does not read %arg2; the IR was left unchanged
// VECTOR: step 2 (pack(L0, %arg0)) refused: L0 uses %arg0 in vector.transfer_read, which the copy cannot rewrite (pack before vectorizing); the IR was left unchanged
// SIZE: step 1 (pack(L0.0, %arg0)) refused: the copy of %arg0 before L0.0 would take 128 MiB (at most 64); the IR was left unchanged
// NOARG: step 1 (pack(L0, %arg7)) refused: @scale has no argument %arg7; the IR was left unchanged
// RANK: step 1 (pack(L0, %arg1, [1, 0])) refused: the copy's order [1, 0] is not a permutation of %arg1's 1 dimensions; the IR was left unchanged
// PARSE: schedule:{{[0-9]+}}: expected '%' before the argument's name (%arg1), found 'B'

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

// gemm with PolyBench's alpha * A[i][k] * B[k][j].
func.func @scaled(%alpha: f32, %A: memref<64x32xf32>, %B: memref<32x48xf32>, %C: memref<64x48xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 48 {
      affine.for %k = 0 to 32 {
        %a = affine.load %A[%i, %k] : memref<64x32xf32>
        %b = affine.load %B[%k, %j] : memref<32x48xf32>
        %c = affine.load %C[%i, %j] : memref<64x48xf32>
        %p = arith.mulf %alpha, %a : f32
        %q = arith.mulf %p, %b : f32
        %s = arith.addf %c, %q : f32
        affine.store %s, %C[%i, %j] : memref<64x48xf32>
      }
    }
  }
  return
}

// PyTorch's Linear: out[b][o] += x[b][i] * W[o][i] (48 = 2 x 20 + 8: a partial last tile).
func.func @dense(%x: memref<64x32xf32>, %out: memref<64x48xf32>, %W: memref<48x32xf32>) {
  affine.for %b = 0 to 64 {
    affine.for %o = 0 to 48 {
      affine.for %i = 0 to 32 {
        %a = affine.load %x[%b, %i] : memref<64x32xf32>
        %w = affine.load %W[%o, %i] : memref<48x32xf32>
        %c = affine.load %out[%b, %o] : memref<64x48xf32>
        %p = arith.mulf %a, %w : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %out[%b, %o] : memref<64x48xf32>
      }
    }
  }
  return
}

// syrk's update without its scaling: C[i][j] += A[i][k] * A[j][k] for j <= i.
func.func @lower(%C: memref<40x40xf32>, %A: memref<40x32xf32>) {
  affine.for %i = 0 to 40 {
    affine.for %k = 0 to 32 {
      affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
        %a = affine.load %A[%i, %k] : memref<40x32xf32>
        %b = affine.load %A[%j, %k] : memref<40x32xf32>
        %c = affine.load %C[%i, %j] : memref<40x40xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<40x40xf32>
      }
    }
  }
  return
}

func.func @twouses(%alpha: f32, %A: memref<32x64xf32>, %B: memref<32x64xf32>) {
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 64 {
      %a = affine.load %A[%i, %j] : memref<32x64xf32>
      %p = arith.mulf %alpha, %a : f32
      %s = arith.addf %p, %a : f32
      affine.store %s, %B[%i, %j] : memref<32x64xf32>
    }
  }
  return
}

func.func @twoscales(%alpha: f32, %beta: f32, %A: memref<32x64xf32>, %B: memref<32x64xf32>) {
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 64 {
      %a = affine.load %A[%i, %j] : memref<32x64xf32>
      %p = arith.mulf %alpha, %a : f32
      %q = arith.mulf %beta, %a : f32
      %s = arith.addf %p, %q : f32
      affine.store %s, %B[%i, %j] : memref<32x64xf32>
    }
  }
  return
}

func.func @scale(%A: memref<32x64xf32>, %B: memref<32x64xf32>, %unused: memref<32xf32>) {
  %two = arith.constant 2.0 : f32
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 64 {
      %a = affine.load %A[%i, %j] : memref<32x64xf32>
      %p = arith.mulf %a, %two : f32
      affine.store %p, %B[%i, %j] : memref<32x64xf32>
    }
  }
  return
}

// 128 MiB read under L0.0's parent: over the size limit of a copy.
func.func @huge(%A: memref<8192x4096xf32>, %B: memref<8192xf32>) {
  affine.for %t = 0 to 2 {
    affine.for %i = 0 to 8192 {
      affine.for %j = 0 to 4096 {
        %a = affine.load %A[%i, %j] : memref<8192x4096xf32>
        %b = affine.load %B[%i] : memref<8192xf32>
        %s = arith.addf %a, %b : f32
        affine.store %s, %B[%i] : memref<8192xf32>
      }
    }
  }
  return
}
