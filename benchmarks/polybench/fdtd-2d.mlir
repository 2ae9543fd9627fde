// fdtd-2d from PolyBench/C 4.2 at its LARGE size: 2-D finite-difference time-domain
// kernel, TMAX = 500, NX = 1000, NY = 1200, single precision; _fict_ is PolyBench's
// source array of TMAX elements. TMAX is kept at PolyBench's 500 (a naive run takes
// about 0.3 s). Deviations: the integer parameters (tmax, nx, ny) are compile-time
// constants.
func.func @kernel_fdtd_2d(%ex: memref<1000x1200xf32>, %ey: memref<1000x1200xf32>,
                          %hz: memref<1000x1200xf32>, %fict: memref<500xf32>) {
  %half = arith.constant 0.5 : f32
  %c07 = arith.constant 0.7 : f32
  affine.for %t = 0 to 500 {
    affine.for %j = 0 to 1200 {
      %f = affine.load %fict[%t] : memref<500xf32>
      affine.store %f, %ey[0, %j] : memref<1000x1200xf32>
    }
    affine.for %i = 1 to 1000 {
      affine.for %j = 0 to 1200 {
        %e = affine.load %ey[%i, %j] : memref<1000x1200xf32>
        %h0 = affine.load %hz[%i, %j] : memref<1000x1200xf32>
        %h1 = affine.load %hz[%i - 1, %j] : memref<1000x1200xf32>
        %d = arith.subf %h0, %h1 : f32
        %m = arith.mulf %half, %d : f32
        %v = arith.subf %e, %m : f32
        affine.store %v, %ey[%i, %j] : memref<1000x1200xf32>
      }
    }
    affine.for %i = 0 to 1000 {
      affine.for %j = 1 to 1200 {
        %e = affine.load %ex[%i, %j] : memref<1000x1200xf32>
        %h0 = affine.load %hz[%i, %j] : memref<1000x1200xf32>
        %h1 = affine.load %hz[%i, %j - 1] : memref<1000x1200xf32>
        %d = arith.subf %h0, %h1 : f32
        %m = arith.mulf %half, %d : f32
        %v = arith.subf %e, %m : f32
        affine.store %v, %ex[%i, %j] : memref<1000x1200xf32>
      }
    }
    affine.for %i = 0 to 999 {
      affine.for %j = 0 to 1199 {
        %h = affine.load %hz[%i, %j] : memref<1000x1200xf32>
        %x1 = affine.load %ex[%i, %j + 1] : memref<1000x1200xf32>
        %x0 = affine.load %ex[%i, %j] : memref<1000x1200xf32>
        %y1 = affine.load %ey[%i + 1, %j] : memref<1000x1200xf32>
        %y0 = affine.load %ey[%i, %j] : memref<1000x1200xf32>
        %s0 = arith.subf %x1, %x0 : f32
        %s1 = arith.addf %s0, %y1 : f32
        %s2 = arith.subf %s1, %y0 : f32
        %m = arith.mulf %c07, %s2 : f32
        %v = arith.subf %h, %m : f32
        affine.store %v, %hz[%i, %j] : memref<1000x1200xf32>
      }
    }
  }
  return
}
