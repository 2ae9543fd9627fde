// doitgen from PolyBench/C 4.2 at its LARGE size (multiresolution analysis kernel):
// for each (r, q): sum[p] = sum_s A[r][q][s] * C4[s][p]; A[r][q][p] = sum[p].
// NR = 150, NQ = 140, NP = 160, single precision. sum is PolyBench's temporary
// (a kernel argument); the integer size parameters are compile-time constants.
func.func @kernel_doitgen(%A: memref<150x140x160xf32>, %C4: memref<160x160xf32>,
                          %sum: memref<160xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %r = 0 to 150 {
    affine.for %q = 0 to 140 {
      affine.for %p = 0 to 160 {
        affine.store %zero, %sum[%p] : memref<160xf32>
        affine.for %s = 0 to 160 {
          %a = affine.load %A[%r, %q, %s] : memref<150x140x160xf32>
          %c = affine.load %C4[%s, %p] : memref<160x160xf32>
          %acc = affine.load %sum[%p] : memref<160xf32>
          %m = arith.mulf %a, %c : f32
          %n = arith.addf %acc, %m : f32
          affine.store %n, %sum[%p] : memref<160xf32>
        }
      }
      affine.for %p = 0 to 160 {
        %v = affine.load %sum[%p] : memref<160xf32>
        affine.store %v, %A[%r, %q, %p] : memref<150x140x160xf32>
      }
    }
  }
  return
}
