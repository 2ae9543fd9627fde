// conv1d: a one-dimensional convolution layer (speech and sequence models), batch 8, 128
// input and 128 output channels, 500 outputs per channel, a kernel of 5, no padding:
// out[n][f][x] = sum over c, k of in[n][c][x + k] * w[f][c][k], single precision.
// loops n, f, x, c, k. A model-selection kernel.
func.func @kernel_conv1d(%out: memref<8x128x500xf32>, %in: memref<8x128x504xf32>, %w: memref<128x128x5xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %n = 0 to 8 {
    affine.for %f = 0 to 128 {
      affine.for %x = 0 to 500 {
        affine.store %zero, %out[%n, %f, %x] : memref<8x128x500xf32>
        affine.for %c = 0 to 128 {
          affine.for %k = 0 to 5 {
            %i = affine.load %in[%n, %c, %x + %k] : memref<8x128x504xf32>
            %v = affine.load %w[%f, %c, %k] : memref<128x128x5xf32>
            %o = affine.load %out[%n, %f, %x] : memref<8x128x500xf32>
            %p = arith.mulf %i, %v : f32
            %s = arith.addf %o, %p : f32
            affine.store %s, %out[%n, %f, %x] : memref<8x128x500xf32>
          }
        }
      }
    }
  }
  return
}
