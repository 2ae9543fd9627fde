func.func @kernel(%b0: memref<1xf32>, %b1: memref<11x47x21xi32>, %b2: memref<17x19xi32>, %b3: memref<20xf32>) {
  affine.for %i0 = 1 to 6 {
    affine.for %i1 = 0 to 3 {
      affine.for %i2 = affine_map<(d0, d1) -> (d0 - 1)>(%i0, %i1) to affine_map<(d0, d1) -> (d0 * 2 + 3)>(%i0, %i1) step 3 {
        affine.for %i3 = 0 to 8 step 2 {
          %v1 = affine.load %b2[%i1, -%i1 + 2] : memref<17x19xi32>
          %v2 = affine.load %b1[%i3 + 4, %i1, %i2 * -2 + 20] : memref<11x47x21xi32>
          %v3 = arith.muli %v1, %v2 : i32
          %v4 = arith.index_cast %i0 : index to i32
          %v5 = arith.subi %v3, %v4 : i32
          affine.store %v5, %b2[0, %i1 + 1] : memref<17x19xi32>
        }
      }
    }
    %v6 = affine.load %b3[0] : memref<20xf32>
    %v7 = arith.index_cast %i0 : index to i32
    %v8 = arith.sitofp %v7 : i32 to f32
    %v9 = arith.addf %v6, %v8 : f32
    affine.store %v9, %b3[%i0 * 3 + 4] : memref<20xf32>
  }
  affine.for %i4 = 2 to 3 {
    affine.for %i5 = max affine_map<(d0) -> (d0 * 3 - 2, 2)>(%i4) to affine_map<(d0) -> (d0 * 3 + 12)>(%i4) step 2 {
      %v10 = affine.load %b1[%i4 * -2 + 4, %i5 * 2, 18] : memref<11x47x21xi32>
      %v11 = affine.load %b1[-%i4 + 6, %i5 * 3 - 2, 17] : memref<11x47x21xi32>
      %v12 = arith.addi %v10, %v11 : i32
      affine.store %v12, %b2[%i5, %i5 + 2] : memref<17x19xi32>
    }
    affine.for %i6 = 2 to 8 {
      %v13 = affine.load %b3[%i6 + 4] : memref<20xf32>
      %v14 = arith.index_cast %i4 : index to i32
      %v15 = arith.sitofp %v14 : i32 to f32
      %v16 = arith.subf %v13, %v15 : f32
      affine.store %v16, %b3[%i6 + 3] : memref<20xf32>
    }
  }
  return
}
