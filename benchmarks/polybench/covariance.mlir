// covariance from PolyBench/C 4.2 at its LARGE size: covariance matrix of N = 1400
// observations of M = 1200 variables, single precision. float_n is PolyBench's scalar
// argument (N as a float); mean is its temporary (a kernel argument). Only the upper
// triangle is computed and mirrored, as in PolyBench. The integer size parameters
// (m, n) are compile-time constants.
func.func @kernel_covariance(%float_n: f32, %data: memref<1400x1200xf32>,
                             %cov: memref<1200x1200xf32>, %mean: memref<1200xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  affine.for %j = 0 to 1200 {
    affine.store %zero, %mean[%j] : memref<1200xf32>
    affine.for %i = 0 to 1400 {
      %d = affine.load %data[%i, %j] : memref<1400x1200xf32>
      %acc = affine.load %mean[%j] : memref<1200xf32>
      %s = arith.addf %acc, %d : f32
      affine.store %s, %mean[%j] : memref<1200xf32>
    }
    %m = affine.load %mean[%j] : memref<1200xf32>
    %q = arith.divf %m, %float_n : f32
    affine.store %q, %mean[%j] : memref<1200xf32>
  }
  affine.for %i = 0 to 1400 {
    affine.for %j = 0 to 1200 {
      %d = affine.load %data[%i, %j] : memref<1400x1200xf32>
      %m = affine.load %mean[%j] : memref<1200xf32>
      %s = arith.subf %d, %m : f32
      affine.store %s, %data[%i, %j] : memref<1400x1200xf32>
    }
  }
  affine.for %i = 0 to 1200 {
    affine.for %j = affine_map<(d0) -> (d0)>(%i) to 1200 {
      affine.store %zero, %cov[%i, %j] : memref<1200x1200xf32>
      affine.for %k = 0 to 1400 {
        %a = affine.load %data[%k, %i] : memref<1400x1200xf32>
        %b = affine.load %data[%k, %j] : memref<1400x1200xf32>
        %acc = affine.load %cov[%i, %j] : memref<1200x1200xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.store %s, %cov[%i, %j] : memref<1200x1200xf32>
      }
      %c = affine.load %cov[%i, %j] : memref<1200x1200xf32>
      %n1 = arith.subf %float_n, %one : f32
      %q = arith.divf %c, %n1 : f32
      affine.store %q, %cov[%i, %j] : memref<1200x1200xf32>
      %c2 = affine.load %cov[%i, %j] : memref<1200x1200xf32>
      affine.store %c2, %cov[%j, %i] : memref<1200x1200xf32>
    }
  }
  return
}
