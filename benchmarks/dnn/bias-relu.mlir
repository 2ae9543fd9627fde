// bias-relu: a convolution layer's epilogue as separate element-wise nests (what a
// framework lowers one operator at a time): t = x + bias[c]; y = max(t, 0) * scale over 256
// channels at 56x56, single precision. Two nests linked by the temporary t (fusion material).
func.func @kernel_bias_relu(%y: memref<256x56x56xf32>, %t: memref<256x56x56xf32>,
                            %x: memref<256x56x56xf32>, %bias: memref<256xf32>) {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.5 : f32
  affine.for %c = 0 to 256 {
    affine.for %h = 0 to 56 {
      affine.for %w = 0 to 56 {
        %a = affine.load %x[%c, %h, %w] : memref<256x56x56xf32>
        %b = affine.load %bias[%c] : memref<256xf32>
        %s = arith.addf %a, %b : f32
        affine.store %s, %t[%c, %h, %w] : memref<256x56x56xf32>
      }
    }
  }
  affine.for %c = 0 to 256 {
    affine.for %h = 0 to 56 {
      affine.for %w = 0 to 56 {
        %a = affine.load %t[%c, %h, %w] : memref<256x56x56xf32>
        %r = arith.maximumf %a, %zero : f32
        %v = arith.mulf %r, %scale : f32
        affine.store %v, %y[%c, %h, %w] : memref<256x56x56xf32>
      }
    }
  }
  return
}
