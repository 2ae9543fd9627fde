// strided-conv: a 3x3 convolution with stride 2 (a ResNet downsampling layer), one image,
// 128 input and 128 output channels, a 57x57 input, a 28x28 output:
// out[k][h][w] += in[c][2h+r][2w+s] * W[k][c][r][s], single precision. out is zeroed inside
// the kernel first; loops k, h, w, c, r, s.
func.func @kernel_strided_conv(%out: memref<128x28x28xf32>, %in: memref<128x57x57xf32>,
                               %W: memref<128x128x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %k = 0 to 128 {
    affine.for %h = 0 to 28 {
      affine.for %w = 0 to 28 {
        affine.store %zero, %out[%k, %h, %w] : memref<128x28x28xf32>
      }
    }
  }
  affine.for %k = 0 to 128 {
    affine.for %h = 0 to 28 {
      affine.for %w = 0 to 28 {
        affine.for %c = 0 to 128 {
          affine.for %r = 0 to 3 {
            affine.for %s = 0 to 3 {
              %x = affine.load %in[%c, %h * 2 + %r, %w * 2 + %s] : memref<128x57x57xf32>
              %f = affine.load %W[%k, %c, %r, %s] : memref<128x128x3x3xf32>
              %acc = affine.load %out[%k, %h, %w] : memref<128x28x28xf32>
              %p = arith.mulf %x, %f : f32
              %v = arith.addf %acc, %p : f32
              affine.store %v, %out[%k, %h, %w] : memref<128x28x28xf32>
            }
          }
        }
      }
    }
  }
  return
}
