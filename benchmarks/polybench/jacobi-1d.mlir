// jacobi-1d from PolyBench/C 4.2 at its LARGE size: 1-D Jacobi stencil, TSTEPS = 500,
// N = 2000, single precision. Deviations: the constant 0.33333 is an f32 (PolyBench
// writes a double literal); the integer parameters (tsteps, n) are compile-time
// constants. TSTEPS is kept at 500: a naive run is far below 1 s.
func.func @kernel_jacobi_1d(%A: memref<2000xf32>, %B: memref<2000xf32>) {
  %third = arith.constant 0.33333 : f32
  affine.for %t = 0 to 500 {
    affine.for %i = 1 to 1999 {
      %a0 = affine.load %A[%i - 1] : memref<2000xf32>
      %a1 = affine.load %A[%i] : memref<2000xf32>
      %a2 = affine.load %A[%i + 1] : memref<2000xf32>
      %s0 = arith.addf %a0, %a1 : f32
      %s1 = arith.addf %s0, %a2 : f32
      %v = arith.mulf %third, %s1 : f32
      affine.store %v, %B[%i] : memref<2000xf32>
    }
    affine.for %i = 1 to 1999 {
      %b0 = affine.load %B[%i - 1] : memref<2000xf32>
      %b1 = affine.load %B[%i] : memref<2000xf32>
      %b2 = affine.load %B[%i + 1] : memref<2000xf32>
      %s0 = arith.addf %b0, %b1 : f32
      %s1 = arith.addf %s0, %b2 : f32
      %v = arith.mulf %third, %s1 : f32
      affine.store %v, %A[%i] : memref<2000xf32>
    }
  }
  return
}
