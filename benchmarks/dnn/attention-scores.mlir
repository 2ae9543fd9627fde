// attention-scores: the scores of multi-head attention, 8 heads, a sequence of 256, a head
// dimension of 64: S[h][i][j] = scale * sum over d of Q[h][i][d] * K[h][j][d] (K read
// transposed), single precision. S is zeroed in the nest that computes it; loops h, i, j, d,
// then the scaling in its own nest.
func.func @kernel_attention_scores(%S: memref<8x256x256xf32>, %Q: memref<8x256x64xf32>,
                                   %K: memref<8x256x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32
  affine.for %h = 0 to 8 {
    affine.for %i = 0 to 256 {
      affine.for %j = 0 to 256 {
        affine.store %zero, %S[%h, %i, %j] : memref<8x256x256xf32>
        affine.for %d = 0 to 64 {
          %q = affine.load %Q[%h, %i, %d] : memref<8x256x64xf32>
          %k = affine.load %K[%h, %j, %d] : memref<8x256x64xf32>
          %acc = affine.load %S[%h, %i, %j] : memref<8x256x256xf32>
          %p = arith.mulf %q, %k : f32
          %v = arith.addf %acc, %p : f32
          affine.store %v, %S[%h, %i, %j] : memref<8x256x256xf32>
        }
      }
    }
  }
  affine.for %h = 0 to 8 {
    affine.for %i = 0 to 256 {
      affine.for %j = 0 to 256 {
        %s = affine.load %S[%h, %i, %j] : memref<8x256x256xf32>
        %v = arith.mulf %s, %scale : f32
        affine.store %v, %S[%h, %i, %j] : memref<8x256x256xf32>
      }
    }
  }
  return
}
