// layernorm: layer normalization of 512 tokens of 768 features (BERT-base), without the
// affine parameters: mean[t] = sum x[t][f] / 768; var[t] = sum (x[t][f] - mean[t])^2 / 768;
// y[t][f] = (x[t][f] - mean[t]) / sqrt(var[t] + 1e-5), single precision. Four nests: the two
// statistics (each zeroed in its own nest), then the normalization.
func.func @kernel_layernorm(%y: memref<512x768xf32>, %x: memref<512x768xf32>,
                            %mean: memref<512xf32>, %var: memref<512xf32>) {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.00130208333 : f32
  %eps = arith.constant 1.0e-5 : f32
  affine.for %t = 0 to 512 {
    affine.store %zero, %mean[%t] : memref<512xf32>
    affine.store %zero, %var[%t] : memref<512xf32>
  }
  affine.for %t = 0 to 512 {
    affine.for %f = 0 to 768 {
      %a = affine.load %x[%t, %f] : memref<512x768xf32>
      %m = affine.load %mean[%t] : memref<512xf32>
      %s = arith.addf %m, %a : f32
      affine.store %s, %mean[%t] : memref<512xf32>
    }
  }
  affine.for %t = 0 to 512 {
    affine.for %f = 0 to 768 {
      %a = affine.load %x[%t, %f] : memref<512x768xf32>
      %m = affine.load %mean[%t] : memref<512xf32>
      %mu = arith.mulf %m, %inv : f32
      %d = arith.subf %a, %mu : f32
      %sq = arith.mulf %d, %d : f32
      %v = affine.load %var[%t] : memref<512xf32>
      %s = arith.addf %v, %sq : f32
      affine.store %s, %var[%t] : memref<512xf32>
    }
  }
  affine.for %t = 0 to 512 {
    affine.for %f = 0 to 768 {
      %a = affine.load %x[%t, %f] : memref<512x768xf32>
      %m = affine.load %mean[%t] : memref<512xf32>
      %mu = arith.mulf %m, %inv : f32
      %d = arith.subf %a, %mu : f32
      %v = affine.load %var[%t] : memref<512xf32>
      %vn = arith.mulf %v, %inv : f32
      %ve = arith.addf %vn, %eps : f32
      %sd = math.sqrt %ve : f32
      %n = arith.divf %d, %sd : f32
      affine.store %n, %y[%t, %f] : memref<512x768xf32>
    }
  }
  return
}
