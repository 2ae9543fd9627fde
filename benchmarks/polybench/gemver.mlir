// gemver from PolyBench/C 4.2, LARGE_DATASET: A += u1*v1^T + u2*v2^T, x += beta*A^T*y + z,
// w += alpha*A*x, N = 2000, single precision (f32). Only deviation: the integer size
// parameter n is dropped (sizes are static).
func.func @kernel_gemver(%alpha: f32, %beta: f32, %A: memref<2000x2000xf32>,
                         %u1: memref<2000xf32>, %v1: memref<2000xf32>, %u2: memref<2000xf32>,
                         %v2: memref<2000xf32>, %w: memref<2000xf32>, %x: memref<2000xf32>,
                         %y: memref<2000xf32>, %z: memref<2000xf32>) {
  affine.for %i = 0 to 2000 {
    affine.for %j = 0 to 2000 {
      %a = affine.load %A[%i, %j] : memref<2000x2000xf32>
      %u1v = affine.load %u1[%i] : memref<2000xf32>
      %v1v = affine.load %v1[%j] : memref<2000xf32>
      %u2v = affine.load %u2[%i] : memref<2000xf32>
      %v2v = affine.load %v2[%j] : memref<2000xf32>
      %p1 = arith.mulf %u1v, %v1v : f32
      %s1 = arith.addf %a, %p1 : f32
      %p2 = arith.mulf %u2v, %v2v : f32
      %s2 = arith.addf %s1, %p2 : f32
      affine.store %s2, %A[%i, %j] : memref<2000x2000xf32>
    }
  }
  affine.for %i = 0 to 2000 {
    affine.for %j = 0 to 2000 {
      %xv = affine.load %x[%i] : memref<2000xf32>
      %a = affine.load %A[%j, %i] : memref<2000x2000xf32>
      %yv = affine.load %y[%j] : memref<2000xf32>
      %p1 = arith.mulf %beta, %a : f32
      %p2 = arith.mulf %p1, %yv : f32
      %s = arith.addf %xv, %p2 : f32
      affine.store %s, %x[%i] : memref<2000xf32>
    }
  }
  affine.for %i = 0 to 2000 {
    %xv = affine.load %x[%i] : memref<2000xf32>
    %zv = affine.load %z[%i] : memref<2000xf32>
    %s = arith.addf %xv, %zv : f32
    affine.store %s, %x[%i] : memref<2000xf32>
  }
  affine.for %i = 0 to 2000 {
    affine.for %j = 0 to 2000 {
      %wv = affine.load %w[%i] : memref<2000xf32>
      %a = affine.load %A[%i, %j] : memref<2000x2000xf32>
      %xv = affine.load %x[%j] : memref<2000xf32>
      %p1 = arith.mulf %alpha, %a : f32
      %p2 = arith.mulf %p1, %xv : f32
      %s = arith.addf %wv, %p2 : f32
      affine.store %s, %w[%i] : memref<2000xf32>
    }
  }
  return
}
