// jacobi-2d from PolyBench/C 4.2 at its LARGE size: 2-D Jacobi stencil, TSTEPS = 500,
// N = 1300, single precision. TSTEPS is kept at PolyBench's 500 (a naive run takes
// about 0.4 s). Deviations: the integer parameters (tsteps, n) are compile-time constants.
func.func @kernel_jacobi_2d(%A: memref<1300x1300xf32>, %B: memref<1300x1300xf32>) {
  %fifth = arith.constant 0.2 : f32
  affine.for %t = 0 to 500 {
    affine.for %i = 1 to 1299 {
      affine.for %j = 1 to 1299 {
        %a0 = affine.load %A[%i, %j] : memref<1300x1300xf32>
        %a1 = affine.load %A[%i, %j - 1] : memref<1300x1300xf32>
        %a2 = affine.load %A[%i, %j + 1] : memref<1300x1300xf32>
        %a3 = affine.load %A[%i + 1, %j] : memref<1300x1300xf32>
        %a4 = affine.load %A[%i - 1, %j] : memref<1300x1300xf32>
        %s0 = arith.addf %a0, %a1 : f32
        %s1 = arith.addf %s0, %a2 : f32
        %s2 = arith.addf %s1, %a3 : f32
        %s3 = arith.addf %s2, %a4 : f32
        %v = arith.mulf %fifth, %s3 : f32
        affine.store %v, %B[%i, %j] : memref<1300x1300xf32>
      }
    }
    affine.for %i = 1 to 1299 {
      affine.for %j = 1 to 1299 {
        %b0 = affine.load %B[%i, %j] : memref<1300x1300xf32>
        %b1 = affine.load %B[%i, %j - 1] : memref<1300x1300xf32>
        %b2 = affine.load %B[%i, %j + 1] : memref<1300x1300xf32>
        %b3 = affine.load %B[%i + 1, %j] : memref<1300x1300xf32>
        %b4 = affine.load %B[%i - 1, %j] : memref<1300x1300xf32>
        %s0 = arith.addf %b0, %b1 : f32
        %s1 = arith.addf %s0, %b2 : f32
        %s2 = arith.addf %s1, %b3 : f32
        %s3 = arith.addf %s2, %b4 : f32
        %v = arith.mulf %fifth, %s3 : f32
        affine.store %v, %A[%i, %j] : memref<1300x1300xf32>
      }
    }
  }
  return
}
