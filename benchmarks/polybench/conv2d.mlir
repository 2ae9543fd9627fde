// conv2d (not PolyBench): direct 2-D convolution layer, NCHW, stride 1, no padding,
// out[n][k][h][w] += in[n][c][h+r][w+s] * W[k][c][r][s] with N = 4, C = 64, K = 64,
// a 58x58 input, a 56x56 output and a 3x3 filter, single precision. out is zeroed
// inside the kernel in its own nest first; loops n, k, h, w, c, r, s in that order.
func.func @kernel_conv2d(%out: memref<4x64x56x56xf32>, %in: memref<4x64x58x58xf32>,
                         %W: memref<64x64x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %n = 0 to 4 {
    affine.for %k = 0 to 64 {
      affine.for %h = 0 to 56 {
        affine.for %w = 0 to 56 {
          affine.store %zero, %out[%n, %k, %h, %w] : memref<4x64x56x56xf32>
        }
      }
    }
  }
  affine.for %n = 0 to 4 {
    affine.for %k = 0 to 64 {
      affine.for %h = 0 to 56 {
        affine.for %w = 0 to 56 {
          affine.for %c = 0 to 64 {
            affine.for %r = 0 to 3 {
              affine.for %s = 0 to 3 {
                %x = affine.load %in[%n, %c, %h + %r, %w + %s] : memref<4x64x58x58xf32>
                %f = affine.load %W[%k, %c, %r, %s] : memref<64x64x3x3xf32>
                %acc = affine.load %out[%n, %k, %h, %w] : memref<4x64x56x56xf32>
                %p = arith.mulf %x, %f : f32
                %v = arith.addf %acc, %p : f32
                affine.store %v, %out[%n, %k, %h, %w] : memref<4x64x56x56xf32>
              }
            }
          }
        }
      }
    }
  }
  return
}
