// heat-3d from PolyBench/C 4.2 at its LARGE size: 3-D heat equation stencil, TSTEPS = 500,
// N = 120, single precision. TSTEPS is kept at PolyBench's 500 (a naive run takes about
// 0.5 s). Deviations: the integer parameters (tsteps, n) are compile-time constants.
// The time loop runs t = 1 .. TSTEPS as in PolyBench.
func.func @kernel_heat_3d(%A: memref<120x120x120xf32>, %B: memref<120x120x120xf32>) {
  %eighth = arith.constant 0.125 : f32
  %two = arith.constant 2.0 : f32
  affine.for %t = 1 to 501 {
    affine.for %i = 1 to 119 {
      affine.for %j = 1 to 119 {
        affine.for %k = 1 to 119 {
          %ac = affine.load %A[%i, %j, %k] : memref<120x120x120xf32>
          %aip = affine.load %A[%i + 1, %j, %k] : memref<120x120x120xf32>
          %aim = affine.load %A[%i - 1, %j, %k] : memref<120x120x120xf32>
          %ajp = affine.load %A[%i, %j + 1, %k] : memref<120x120x120xf32>
          %ajm = affine.load %A[%i, %j - 1, %k] : memref<120x120x120xf32>
          %akp = affine.load %A[%i, %j, %k + 1] : memref<120x120x120xf32>
          %akm = affine.load %A[%i, %j, %k - 1] : memref<120x120x120xf32>
          %ic = arith.mulf %two, %ac : f32
          %i0 = arith.subf %aip, %ic : f32
          %i1 = arith.addf %i0, %aim : f32
          %i2 = arith.mulf %eighth, %i1 : f32
          %jc = arith.mulf %two, %ac : f32
          %j0 = arith.subf %ajp, %jc : f32
          %j1 = arith.addf %j0, %ajm : f32
          %j2 = arith.mulf %eighth, %j1 : f32
          %kc = arith.mulf %two, %ac : f32
          %k0 = arith.subf %akp, %kc : f32
          %k1 = arith.addf %k0, %akm : f32
          %k2 = arith.mulf %eighth, %k1 : f32
          %s0 = arith.addf %i2, %j2 : f32
          %s1 = arith.addf %s0, %k2 : f32
          %v = arith.addf %s1, %ac : f32
          affine.store %v, %B[%i, %j, %k] : memref<120x120x120xf32>
        }
      }
    }
    affine.for %i = 1 to 119 {
      affine.for %j = 1 to 119 {
        affine.for %k = 1 to 119 {
          %bc = affine.load %B[%i, %j, %k] : memref<120x120x120xf32>
          %bip = affine.load %B[%i + 1, %j, %k] : memref<120x120x120xf32>
          %bim = affine.load %B[%i - 1, %j, %k] : memref<120x120x120xf32>
          %bjp = affine.load %B[%i, %j + 1, %k] : memref<120x120x120xf32>
          %bjm = affine.load %B[%i, %j - 1, %k] : memref<120x120x120xf32>
          %bkp = affine.load %B[%i, %j, %k + 1] : memref<120x120x120xf32>
          %bkm = affine.load %B[%i, %j, %k - 1] : memref<120x120x120xf32>
          %ic = arith.mulf %two, %bc : f32
          %i0 = arith.subf %bip, %ic : f32
          %i1 = arith.addf %i0, %bim : f32
          %i2 = arith.mulf %eighth, %i1 : f32
          %jc = arith.mulf %two, %bc : f32
          %j0 = arith.subf %bjp, %jc : f32
          %j1 = arith.addf %j0, %bjm : f32
          %j2 = arith.mulf %eighth, %j1 : f32
          %kc = arith.mulf %two, %bc : f32
          %k0 = arith.subf %bkp, %kc : f32
          %k1 = arith.addf %k0, %bkm : f32
          %k2 = arith.mulf %eighth, %k1 : f32
          %s0 = arith.addf %i2, %j2 : f32
          %s1 = arith.addf %s0, %k2 : f32
          %v = arith.addf %s1, %bc : f32
          affine.store %v, %A[%i, %j, %k] : memref<120x120x120xf32>
        }
      }
    }
  }
  return
}
