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

/// What the legality of tiling the band `names` (as autosched_tx_tile takes it) depends
/// on besides the sizes, found without changing `func`: the same refusals as
/// autosched_tx_tile for everything but the sizes; else `*bands`, how many bands the names
/// match, and when that is one, each loop's constant trip count (-1 if not constant) in
/// `trips[n]` and in `backward[n]` whether a dependence carried in the band may run
/// backwards along it. Tiling with `sizes` is then refused (dependence) exactly when such a
/// loop is among those the sizes tile in effect: all but the trailing loops whose size
/// covers their trip count.
int32_t autosched_tx_tile_band(MlirOperation func, const char *const *names, size_t n,
                               int64_t *trips, uint8_t *backward, size_t *bands,
                               AutoschedTxReportFn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif // AFFINE_AUTOSCHED_KINDS_TILE_H
