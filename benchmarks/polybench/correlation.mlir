// correlation from PolyBench/C 4.2 at its LARGE size: correlation matrix of N = 1400
// observations of M = 1200 variables, single precision. float_n is PolyBench's scalar
// argument (N as a float); mean and stddev are its temporaries (kernel arguments);
// eps = 0.1. `stddev[j] <= eps ? 1.0 : stddev[j]` is an arith.cmpf + arith.select.
// The final `corr[M-1][M-1] = 1.0` is a store outside any loop, as in PolyBench.
// The integer size parameters (m, n) are compile-time constants.
func.func @kernel_correlation(%float_n: f32, %data: memref<1400x1200xf32>,
                              %corr: memref<1200x1200xf32>, %mean: memref<1200xf32>,
                              %stddev: memref<1200xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 0.1 : f32
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
  affine.for %j = 0 to 1200 {
    affine.store %zero, %stddev[%j] : memref<1200xf32>
    affine.for %i = 0 to 1400 {
      %d = affine.load %data[%i, %j] : memref<1400x1200xf32>
      %m = affine.load %mean[%j] : memref<1200xf32>
      %acc = affine.load %stddev[%j] : memref<1200xf32>
      %x0 = arith.subf %d, %m : f32
      %x1 = arith.subf %d, %m : f32
      %p = arith.mulf %x0, %x1 : f32
      %s = arith.addf %acc, %p : f32
      affine.store %s, %stddev[%j] : memref<1200xf32>
    }
    %v0 = affine.load %stddev[%j] : memref<1200xf32>
    %q = arith.divf %v0, %float_n : f32
    affine.store %q, %stddev[%j] : memref<1200xf32>
    %v1 = affine.load %stddev[%j] : memref<1200xf32>
    %r = math.sqrt %v1 : f32
    affine.store %r, %stddev[%j] : memref<1200xf32>
    %v2 = affine.load %stddev[%j] : memref<1200xf32>
    %small = arith.cmpf ole, %v2, %eps : f32
    %c = arith.select %small, %one, %v2 : f32
    affine.store %c, %stddev[%j] : memref<1200xf32>
  }
  affine.for %i = 0 to 1400 {
    affine.for %j = 0 to 1200 {
      %d0 = affine.load %data[%i, %j] : memref<1400x1200xf32>
      %m = affine.load %mean[%j] : memref<1200xf32>
      %s = arith.subf %d0, %m : f32
      affine.store %s, %data[%i, %j] : memref<1400x1200xf32>
      %d1 = affine.load %data[%i, %j] : memref<1400x1200xf32>
      %sd = affine.load %stddev[%j] : memref<1200xf32>
      %rn = math.sqrt %float_n : f32
      %den = arith.mulf %rn, %sd : f32
      %q = arith.divf %d1, %den : f32
      affine.store %q, %data[%i, %j] : memref<1400x1200xf32>
    }
  }
  affine.for %i = 0 to 1199 {
    affine.store %one, %corr[%i, %i] : memref<1200x1200xf32>
    affine.for %j = affine_map<(d0) -> (d0 + 1)>(%i) to 1200 {
      affine.store %zero, %corr[%i, %j] : memref<1200x1200xf32>
      affine.for %k = 0 to 1400 {
        %a = affine.load %data[%k, %i] : memref<1400x1200xf32>
        %b = affine.load %data[%k, %j] : memref<1400x1200xf32>
        %acc = affine.load %corr[%i, %j] : memref<1200x1200xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.store %s, %corr[%i, %j] : memref<1200x1200xf32>
      }
      %c = affine.load %corr[%i, %j] : memref<1200x1200xf32>
      affine.store %c, %corr[%j, %i] : memref<1200x1200xf32>
    }
  }
  affine.store %one, %corr[1199, 1199] : memref<1200x1200xf32>
  return
}
