// Odd but valid inputs: the pass never crashes, models or explains each nest, and without a
// search (max-depth=0) leaves the IR byte-identical; with the search on, its output verifies.
// RUN: mlir-opt-22 --allow-unregistered-dialect %s > %t.before
// RUN: mlir-opt-22 --allow-unregistered-dialect --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{dump-file=%t.jsonl max-depth=0}),builtin.module(func.func(affine-autosched{max-depth=0})))' %s > %t.after 2> %t.remarks
// RUN: diff %t.before %t.after
// RUN: FileCheck %s < %t.remarks
// RUN: mlir-opt-22 --allow-unregistered-dialect --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched))' %s 2> %t.search.remarks \
// RUN:   | mlir-opt-22 --allow-unregistered-dialect -o /dev/null
// RUN: FileCheck %s < %t.search.remarks
// RUN: %autosched describe --allow-unregistered-dialect --tree %s | FileCheck %s --check-prefix=TREE

// CHECK-DAG: remark: affine-autosched: nest not modeled: unsupported operation 'test.opaque'
// CHECK-DAG: remark: affine-autosched: nest not modeled: subscript of the access at {{.*}} depends on a symbol
// CHECK-DAG: remark: affine-autosched: nest not modeled: unsupported element type vector<4xf32>
// CHECK-DAG: remark: affine-autosched: nest not modeled: index operand at {{.*}} is defined by 'arith.addi'
// CHECK-DAG: remark: affine-autosched: nest not modeled: vector operation 'affine.vector_load'
// CHECK-NOT: error

// An empty loop, a loop with no store, a zero-trip loop and a single-result min bound.
// TREE:      @shapes: 3 nest(s), 4 loop(s), 1 computation(s), 0 nest(s) not modeled
// TREE:      L0: for d0 in [0, 10)  (10 iterations)
// TREE:      L1: for d0 in [5, 5)  (0 iterations)
// TREE:      L2: for d0 in [0, 7)  (7 iterations)
// TREE-NEXT:   L2.0: for d1 in [d0, 7)
// TREE-NEXT:     S0: B0[d0 + 2, d1] = f(B1[])
func.func @shapes(%A: memref<9x7xindex>, %g: memref<index>) {
  affine.for %i = 0 to 10 {
  }
  affine.for %i = 5 to 5 {
    %x = affine.load %A[0, 0] : memref<9x7xindex>
  }
  affine.for %i = 0 to min affine_map<() -> (7)>() {
    affine.for %j = affine_map<(d0) -> (d0)>(%i) to 7 {
      %v = affine.load %g[] : memref<index>
      %k = affine.apply affine_map<(d0) -> (d0 + 2)>(%i)
      affine.store %v, %A[%k, %j] : memref<9x7xindex>
    }
  }
  return
}

// Constant folding of floordiv in a bound; a global buffer; an external function.
// TREE:      @folding: 1 nest(s), 1 loop(s), 1 computation(s), 0 nest(s) not modeled
// TREE-NEXT:   B0 = memref.get_global at {{.*}}: memref<4xf32>
// TREE:      L0: for d0 in [0, 3)  (3 iterations)
memref.global "private" @lut : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func private @external(memref<4xf32>)
func.func @folding() {
  %G = memref.get_global @lut : memref<4xf32>
  %c1 = arith.constant 1.0 : f32
  affine.for %i = 0 to affine_map<() -> (7 floordiv 2)>() {
    %a = affine.load %G[%i + 1] : memref<4xf32>
    %s = arith.addf %a, %c1 : f32
    affine.store %s, %G[%i] : memref<4xf32>
  }
  return
}

// Refusals of every kind in one function; the pass reports each and carries on.
func.func @refusals(%A: memref<16x16xf32>, %V: memref<16xvector<4xf32>>, %n: index) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 16 {
    "test.opaque"(%i) : (index) -> ()
  }
  affine.for %i = 0 to 8 {
    affine.store %z, %A[%i + %n, 0] : memref<16x16xf32>
  }
  affine.for %i = 0 to 16 {
    %v = affine.load %V[%i] : memref<16xvector<4xf32>>
    affine.store %v, %V[%i] : memref<16xvector<4xf32>>
  }
  %m = arith.addi %n, %n : index
  affine.for %i = 0 to 16 {
    affine.store %z, %A[%m, %i] : memref<16x16xf32>
  }
  affine.for %i = 0 to 16 step 4 {
    %v = affine.vector_load %A[0, %i] : memref<16x16xf32>, vector<4xf32>
    affine.vector_store %v, %A[1, %i] : memref<16x16xf32>, vector<4xf32>
  }
  return
}

// A function in a nested module, and one with several blocks.
module @inner {
  func.func @nested(%A: memref<4xf32>) {
    %z = arith.constant 0.0 : f32
    affine.for %i = 0 to 4 {
      affine.store %z, %A[%i] : memref<4xf32>
    }
    return
  }
}
func.func @blocks(%A: memref<4xf32>, %c: i1) {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 4 {
    affine.store %z, %A[%i] : memref<4xf32>
  }
  cf.br ^bb2
^bb2:
  return
}
