// gemm-tn: a matrix product whose left operand is stored transposed (BLAS's "TN" form):
// C[i][j] = sum over k of A[k][i] * B[k][j], 640x720 outputs, 800 terms, single precision.
// loops i, j, k. A model-selection kernel (benchmarks/selection/README.md): not reported.
func.func @kernel_gemm_tn(%C: memref<640x720xf32>, %A: memref<800x640xf32>, %B: memref<800x720xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 640 {
    affine.for %j = 0 to 720 {
      affine.store %zero, %C[%i, %j] : memref<640x720xf32>
      affine.for %k = 0 to 800 {
        %a = affine.load %A[%k, %i] : memref<800x640xf32>
        %b = affine.load %B[%k, %j] : memref<800x720xf32>
        %c = affine.load %C[%i, %j] : memref<640x720xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<640x720xf32>
      }
    }
  }
  return
}
