// gesummv from PolyBench/C 4.2, LARGE_DATASET: y = alpha*A*x + beta*B*x (tmp = A*x),
// N = 1300, single precision (f32). Only deviation: the integer size parameter n is
// dropped (sizes are static).
func.func @kernel_gesummv(%alpha: f32, %beta: f32, %A: memref<1300x1300xf32>,
                          %B: memref<1300x1300xf32>, %tmp: memref<1300xf32>,
                          %x: memref<1300xf32>, %y: memref<1300xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 1300 {
    affine.store %zero, %tmp[%i] : memref<1300xf32>
    affine.store %zero, %y[%i] : memref<1300xf32>
    affine.for %j = 0 to 1300 {
      %a = affine.load %A[%i, %j] : memref<1300x1300xf32>
      %xv = affine.load %x[%j] : memref<1300xf32>
      %t = affine.load %tmp[%i] : memref<1300xf32>
      %p1 = arith.mulf %a, %xv : f32
      %s1 = arith.addf %p1, %t : f32
      affine.store %s1, %tmp[%i] : memref<1300xf32>
      %b = affine.load %B[%i, %j] : memref<1300x1300xf32>
      %xv2 = affine.load %x[%j] : memref<1300xf32>
      %yv = affine.load %y[%i] : memref<1300xf32>
      %p2 = arith.mulf %b, %xv2 : f32
      %s2 = arith.addf %p2, %yv : f32
      affine.store %s2, %y[%i] : memref<1300xf32>
    }
    %t = affine.load %tmp[%i] : memref<1300xf32>
    %yv = affine.load %y[%i] : memref<1300xf32>
    %at = arith.mulf %alpha, %t : f32
    %by = arith.mulf %beta, %yv : f32
    %s = arith.addf %at, %by : f32
    affine.store %s, %y[%i] : memref<1300xf32>
  }
  return
}
