//===- Tile.h - Rectangular tiling --------------------------------*- C -*-===//
//
// The C entry of the tile kind (passes/kinds/Tile.cpp), called from
// src/schedule/kinds/tile.rs through the bindings that build.rs generates.
//
//===----------------------------------------------------------------------===//
#ifndef AFFINE_AUTOSCHED_KINDS_TILE_H
#define AFFINE_AUTOSCHED_KINDS_TILE_H

#include "TransformsFFI.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Tiles every perfectly nested band of the `n` loops `names` (listed outermost first) by
/// `sizes` (MLIR's tilePerfectlyNested): the tile loops are named `<name>.t`, the point
/// loops keep `<name>`.
///
/// Refuses when the loops do not form such a band in the listed order, when the band is
/// not rectangular, when a loop of it carries a reduction through iter_args, and
/// (AUTOSCHED_TX_REFUSED_DEPENDENCE) when the band is not fully permutable (a dependence
/// component along a tiled loop may be negative; innermost loops whose tile covers their
/// whole constant trip count do not count).
int32_t autosched_tx_tile(MlirOperation func, const char *const *names,
                          const int64_t *sizes, size_t n, AutoschedTxReportFn fn,
                          void *ctx);

#ifdef __cplusplus
}
#endif

#endif // AFFINE_AUTOSCHED_KINDS_TILE_H
