// grouped-conv: a 3x3 convolution in 4 groups (ResNeXt-like), one image, 128 input and 128
// output channels (32 per group), a 30x30 input, a 28x28 output:
// out[32g+k][h][w] += in[32g+c][h+r][w+s] * W[32g+k][c][r][s], single precision. out is
// zeroed inside the kernel first; loops g, k, h, w, c, r, s.
func.func @kernel_grouped_conv(%out: memref<128x28x28xf32>, %in: memref<128x30x30xf32>,
                               %W: memref<128x32x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %k = 0 to 128 {
    affine.for %h = 0 to 28 {
      affine.for %w = 0 to 28 {
        affine.store %zero, %out[%k, %h, %w] : memref<128x28x28xf32>
      }
    }
  }
  affine.for %g = 0 to 4 {
    affine.for %k = 0 to 32 {
      affine.for %h = 0 to 28 {
        affine.for %w = 0 to 28 {
          affine.for %c = 0 to 32 {
            affine.for %r = 0 to 3 {
              affine.for %s = 0 to 3 {
                %x = affine.load %in[%g * 32 + %c, %h + %r, %w + %s] : memref<128x30x30xf32>
                %f = affine.load %W[%g * 32 + %k, %c, %r, %s] : memref<128x32x3x3xf32>
                %acc = affine.load %out[%g * 32 + %k, %h, %w] : memref<128x28x28xf32>
                %p = arith.mulf %x, %f : f32
                %v = arith.addf %acc, %p : f32
                affine.store %v, %out[%g * 32 + %k, %h, %w] : memref<128x28x28xf32>
              }
            }
          }
        }
      }
    }
  }
  return
}
