// maxpool: 3x3 max pooling with stride 2 (ResNet's stem), one image, 64 channels, a 113x113
// input, a 56x56 output: out[c][h][w] = max over r, s of in[c][2h+r][2w+s], single precision.
// The window's first element initializes the output; loops c, h, w, r, s.
func.func @kernel_maxpool(%out: memref<64x56x56xf32>, %in: memref<64x113x113xf32>) {
  affine.for %c = 0 to 64 {
    affine.for %h = 0 to 56 {
      affine.for %w = 0 to 56 {
        %first = affine.load %in[%c, %h * 2, %w * 2] : memref<64x113x113xf32>
        affine.store %first, %out[%c, %h, %w] : memref<64x56x56xf32>
        affine.for %r = 0 to 3 {
          affine.for %s = 0 to 3 {
            %x = affine.load %in[%c, %h * 2 + %r, %w * 2 + %s] : memref<64x113x113xf32>
            %m = affine.load %out[%c, %h, %w] : memref<64x56x56xf32>
            %v = arith.maximumf %m, %x : f32
            affine.store %v, %out[%c, %h, %w] : memref<64x56x56xf32>
          }
        }
      }
    }
  }
  return
}
