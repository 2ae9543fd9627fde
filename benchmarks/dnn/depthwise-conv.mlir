// depthwise-conv: a depthwise 3x3 convolution layer (MobileNet's first depthwise layer),
// one image, 32 channels, a 114x114 input (padding included), a 112x112 output, stride 1:
// out[c][h][w] += in[c][h+r][w+s] * W[c][r][s], single precision. out is zeroed inside the
// kernel in its own nest first; loops c, h, w, r, s.
func.func @kernel_depthwise_conv(%out: memref<32x112x112xf32>, %in: memref<32x114x114xf32>,
                                 %W: memref<32x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %c = 0 to 32 {
    affine.for %h = 0 to 112 {
      affine.for %w = 0 to 112 {
        affine.store %zero, %out[%c, %h, %w] : memref<32x112x112xf32>
      }
    }
  }
  affine.for %c = 0 to 32 {
    affine.for %h = 0 to 112 {
      affine.for %w = 0 to 112 {
        affine.for %r = 0 to 3 {
          affine.for %s = 0 to 3 {
            %x = affine.load %in[%c, %h + %r, %w + %s] : memref<32x114x114xf32>
            %f = affine.load %W[%c, %r, %s] : memref<32x3x3xf32>
            %acc = affine.load %out[%c, %h, %w] : memref<32x112x112xf32>
            %p = arith.mulf %x, %f : f32
            %v = arith.addf %acc, %p : f32
            affine.store %v, %out[%c, %h, %w] : memref<32x112x112xf32>
          }
        }
      }
    }
  }
  return
}
