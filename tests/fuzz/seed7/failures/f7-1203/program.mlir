func.func @kernel(%b0: memref<11x17x10xf32>, %b1: memref<13xf32>, %b2: memref<5x5x6xf32>) {
  %v5 = arith.constant 1.500000e0 : f32
  %v16 = arith.constant 1.750000e0 : f32
  %v25 = arith.constant 1.250000e0 : f32
  %v57 = arith.constant 1.500000e0 : f32
  affine.for %i0 = 1 to 5 {
    affine.for %i1 = 0 to 14 step 2 {
      %v1 = affine.load %b1[%i0 + 8] : memref<13xf32>
      %v2 = arith.index_cast %i1 : index to i32
      %v3 = arith.sitofp %v2 : i32 to f32
      %v4 = arith.addf %v1, %v3 : f32
      %v6 = arith.maximumf %v4, %v5 : f32
      affine.store %v6, %b1[%i0 + 7] : memref<13xf32>
      %v7 = affine.load %b1[8] : memref<13xf32>
      %v8 = affine.load %b1[8] : memref<13xf32>
      %v9 = arith.subf %v7, %v8 : f32
      affine.store %v9, %b1[7] : memref<13xf32>
    }
    affine.for %i2 = 0 to affine_map<(d0) -> (d0)>(%i0) {
      %v10 = affine.load %b1[%i0 * -2 + %i2 + 8] : memref<13xf32>
      %v11 = affine.load %b1[-%i0 + 9] : memref<13xf32>
      %v12 = arith.maximumf %v10, %v11 : f32
      %v13 = arith.index_cast %i0 : index to i32
      %v14 = arith.sitofp %v13 : i32 to f32
      %v15 = arith.addf %v12, %v14 : f32
      %v17 = arith.subf %v15, %v16 : f32
      affine.store %v17, %b0[%i2 + 7, %i2 + 6, %i2 * 2 + 3] : memref<11x17x10xf32>
    }
    %v18 = affine.load %b2[-%i0 + 5, %i0 - 1, 0] : memref<5x5x6xf32>
    %v19 = affine.load %b0[%i0 + 3, %i0 + 6, %i0 + 2] : memref<11x17x10xf32>
    %v20 = arith.mulf %v18, %v19 : f32
    %v21 = arith.index_cast %i0 : index to i32
    %v22 = arith.sitofp %v21 : i32 to f32
    %v23 = arith.subf %v20, %v22 : f32
    affine.store %v23, %b0[-%i0 + 4, %i0 * 3 + 4, -%i0 + 4] : memref<11x17x10xf32>
  }
  affine.for %i3 = 2 to 4 step 2 {
    affine.for %i4 = max affine_map<(d0) -> (-2, -1)>(%i3) to 0 {
      %v24 = affine.load %b0[%i3 + 3, %i3 * 2 + 5, %i3 * 3 + 3] : memref<11x17x10xf32>
      %v26 = arith.maximumf %v24, %v25 : f32
      affine.store %v26, %b2[%i4 * 4 + 4, %i3 * 2, %i3 * 3 - 1] : memref<5x5x6xf32>
    }
    %v27 = affine.load %b1[%i3 + 10] : memref<13xf32>
    %v28 = arith.index_cast %i3 : index to i32
    %v29 = arith.sitofp %v28 : i32 to f32
    %v30 = arith.addf %v27, %v29 : f32
    affine.store %v30, %b1[%i3 + 10] : memref<13xf32>
    affine.for %i5 = 1 to 3 {
      %v31 = affine.load %b0[%i5 + 6, -%i3 + 2, %i5 + 2] : memref<11x17x10xf32>
      %v32 = affine.load %b1[%i5 + 10] : memref<13xf32>
      %v33 = arith.addf %v31, %v32 : f32
      %v34 = arith.index_cast %i5 : index to i32
      %v35 = arith.sitofp %v34 : i32 to f32
      %v36 = arith.addf %v33, %v35 : f32
      affine.store %v36, %b0[%i5 + 6, -%i3 + 2, %i5 + 2] : memref<11x17x10xf32>
      affine.for %i6 = affine_map<(d0, d1) -> (d1 * 3 + 2)>(%i3, %i5) to affine_map<(d0, d1) -> (d1 * 3 + 1)>(%i3, %i5) {
        affine.for %i7 = -2 to 0 {
          %v37 = affine.load %b0[%i7 + 4, %i3 + 4, -%i3 + %i7 * 2 + 7] : memref<11x17x10xf32>
          %v38 = arith.index_cast %i3 : index to i32
          %v39 = arith.sitofp %v38 : i32 to f32
          %v40 = arith.addf %v37, %v39 : f32
          affine.store %v40, %b0[%i7 + 4, %i3 + 4, -%i3 + %i7 * 2 + 6] : memref<11x17x10xf32>
          %v41 = affine.load %b2[%i7 + 6, %i3 + %i7 * -2, -%i3 + %i6 + 1] : memref<5x5x6xf32>
          %v42 = affine.load %b2[%i7 + 5, %i3 + %i7 * -2 + 1, -%i3 + %i6] : memref<5x5x6xf32>
          %v43 = affine.load %b2[%i7 + 4, %i3 + %i7 * -2 - 1, -%i3 + %i6 + 1] : memref<5x5x6xf32>
          %v44 = arith.subf %v41, %v42 : f32
          %v45 = arith.addf %v44, %v43 : f32
          %v46 = arith.index_cast %i3 : index to i32
          %v47 = arith.sitofp %v46 : i32 to f32
          %v48 = arith.subf %v45, %v47 : f32
          affine.store %v48, %b2[%i7 + 5, %i3 + %i7 * -2, -%i3 + %i6 + 1] : memref<5x5x6xf32>
        }
        %v49 = affine.load %b2[%i3, 2, -%i6 - 3] : memref<5x5x6xf32>
        %v50 = affine.load %b2[%i3 + 2, 1, -%i6 - 1] : memref<5x5x6xf32>
        %v51 = affine.load %b2[%i3 + 2, 1, -%i6 - 1] : memref<5x5x6xf32>
        %v52 = arith.mulf %v49, %v50 : f32
        %v53 = arith.addf %v52, %v51 : f32
        %v54 = arith.index_cast %i3 : index to i32
        %v55 = arith.sitofp %v54 : i32 to f32
        %v56 = arith.addf %v53, %v55 : f32
        %v58 = arith.addf %v56, %v57 : f32
        affine.store %v58, %b2[%i3 + 1, 1, -%i6 - 2] : memref<5x5x6xf32>
      }
      affine.for %i8 = -2 to 2 {
        %v59 = arith.index_cast %i5 : index to i32
        %v60 = arith.sitofp %v59 : i32 to f32
        %v61 = arith.index_cast %i5 : index to i32
        %v62 = arith.sitofp %v61 : i32 to f32
        %v63 = arith.addf %v60, %v62 : f32
        affine.store %v63, %b2[-%i3 + 3, %i3 - 1, %i3 - %i8 - 1] : memref<5x5x6xf32>
      }
    }
  }
  return
}
