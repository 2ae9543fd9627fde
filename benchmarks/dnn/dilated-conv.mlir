// dilated-conv: a 3x3 convolution with dilation 2 (an atrous layer as in DeepLab), one
// image, 64 input and 64 output channels, a 36x36 input, a 32x32 output:
// out[k][h][w] += in[c][h+2r][w+2s] * W[k][c][r][s], single precision. out is zeroed inside
// the kernel first; loops k, h, w, c, r, s.
func.func @kernel_dilated_conv(%out: memref<64x32x32xf32>, %in: memref<64x36x36xf32>,
                               %W: memref<64x64x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %k = 0 to 64 {
    affine.for %h = 0 to 32 {
      affine.for %w = 0 to 32 {
        affine.store %zero, %out[%k, %h, %w] : memref<64x32x32xf32>
      }
    }
  }
  affine.for %k = 0 to 64 {
    affine.for %h = 0 to 32 {
      affine.for %w = 0 to 32 {
        affine.for %c = 0 to 64 {
          affine.for %r = 0 to 3 {
            affine.for %s = 0 to 3 {
              %x = affine.load %in[%c, %h + %r * 2, %w + %s * 2] : memref<64x36x36xf32>
              %f = affine.load %W[%k, %c, %r, %s] : memref<64x64x3x3xf32>
              %acc = affine.load %out[%k, %h, %w] : memref<64x32x32xf32>
              %p = arith.mulf %x, %f : f32
              %v = arith.addf %acc, %p : f32
              affine.store %v, %out[%k, %h, %w] : memref<64x32x32xf32>
            }
          }
        }
      }
    }
  }
  return
}
