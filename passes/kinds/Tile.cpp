//===- Tile.cpp - Rectangular tiling --------------------------------------===//
//
// The entry point of this kind (declared in passes/kinds/Tile.h) and the helpers only it
// uses; what the kinds share is in passes/Transforms.h.
//
//===----------------------------------------------------------------------===//

#include "kinds/Tile.h"
#include "Transforms.h"

#include "mlir/Dialect/Affine/Analysis/LoopAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/LoopUtils.h"

#include <string>

using namespace mlir;
using namespace mlir::affine;
using namespace autosched;

namespace {

/// Rectangular tiling is legal when the band is fully permutable: every dependence
/// carried inside the band has non-negative components along all band loops.
///
/// Loops whose tile covers their whole (constant) trip count are not tiled in effect:
/// their tile loop runs once (tilePerfectlyNested steps it by size * step over the
/// original bounds) and their point loop runs the whole loop. When they are the
/// innermost loops of the band (a trailing suffix), the point loops stay innermost in
/// their original order, so the schedule is the tiling of the outer loops alone with the
/// suffix inside it, and only the outer loops need to be permutable. A full loop in the
/// middle or at the outer end of the band is different: the tile loops of the loops
/// inside it are hoisted above its point loop, which interchanges them with it and can
/// reverse a dependence, so it still counts.
/// Which loops of the band a dependence carried inside it may run backwards along (a
/// negative component): tiling such a loop would reverse that dependence. Independent of the
/// tile sizes, so the search learns it once per band (autosched_tx_tile_band).
FailureOr<SmallVector<bool>> backwardLoops(ArrayRef<AffineForOp> band, const Report &report) {
  unsigned first = depthOf(band.front());
  auto deps = carriedDependences(band.front(), first + 1, first + band.size(), report);
  if (failed(deps))
    return failure();
  SmallVector<bool> backward(band.size(), false);
  for (unsigned i = 0; i < band.size(); ++i)
    for (auto &dep : *deps)
      if (mayHave(dep, {{first + i, std::nullopt, -1}})) {
        backward[i] = true;
        break;
      }
  return backward;
}

/// How many outer loops of the band the sizes tile in effect: the innermost loops whose tile
/// covers their whole constant trip count (a trailing suffix) do not count.
unsigned tiledLoops(ArrayRef<AffineForOp> band, ArrayRef<int64_t> sizes) {
  unsigned tiled = band.size();
  while (tiled > 0) {
    std::optional<uint64_t> trips = tripCount(band[tiled - 1]);
    if (!trips || (uint64_t)sizes[tiled - 1] < *trips)
      break;
    --tiled;
  }
  return tiled;
}

/// The refusal for tiling `loop`, which a dependence may run backwards along.
int32_t refuseBackward(AffineForOp loop, const Report &report) {
  return report.refuseDependence(
      "tiling would reverse a dependence: the band is not fully permutable (a "
      "dependence component along " + nameOf(loop) + " may be negative)");
}

int32_t checkTiling(ArrayRef<AffineForOp> band, ArrayRef<int64_t> sizes,
                    const Report &report) {
  auto backward = backwardLoops(band, report);
  if (failed(backward))
    return AUTOSCHED_TX_REFUSED;
  unsigned tiled = tiledLoops(band, sizes);
  for (unsigned i = 0; i < tiled; ++i)
    if ((*backward)[i])
      return refuseBackward(band[i], report);
  return AUTOSCHED_TX_OK;
}

/// The size-independent checks of a tiling: the loops form bands in the listed order,
/// rectangular, without iter_args.
FailureOr<SmallVector<SmallVector<AffineForOp>>>
tileableBands(func::FuncOp f, ArrayRef<std::string> order, const Report &report) {
  auto bands = findBands(f, order, report);
  if (failed(bands))
    return failure();
  for (auto &band : *bands) {
    for (unsigned i = 0; i < order.size(); ++i)
      if (nameOf(band[i]) != order[i])
        return report.refuse("list the loops of a tiled band outermost first: " +
                             nameOf(band[0]) + " is outermost"),
               failure();
    if (failed(checkRectangular(band, report)) ||
        failed(checkNoIterArgs(band, "tiling", report)))
      return failure();
  }
  return bands;
}

} // namespace

extern "C" {

int32_t autosched_tx_tile(MlirOperation func, const char *const *names,
                          const int64_t *sizes, size_t n, AutoschedTxReportFn fn,
                          void *ctx) {
  Report report{fn, ctx};
  auto f = funcOf(func);
  SmallVector<std::string> order(names, names + n);
  auto bands = tileableBands(f, order, report);
  if (failed(bands))
    return AUTOSCHED_TX_REFUSED;
  for (auto &band : *bands)
    if (int32_t status = checkTiling(band, ArrayRef<int64_t>(sizes, n), report);
        status != AUTOSCHED_TX_OK)
      return status;
  SmallVector<unsigned> tileSizes(sizes, sizes + n);
  for (auto &band : *bands) {
    SmallVector<AffineForOp> tiled;
    if (failed(tilePerfectlyNested(band, tileSizes, &tiled)))
      return report.fail("MLIR's tilePerfectlyNested failed on " + order[0]);
    for (unsigned i = 0; i < n; ++i) {
      setName(tiled[i], order[i] + ".t");
      setName(tiled[n + i], order[i]);
    }
  }
  return AUTOSCHED_TX_OK;
}

int32_t autosched_tx_tile_band(MlirOperation func, const char *const *names, size_t n,
                               int64_t *trips, uint8_t *backward, size_t *bands,
                               AutoschedTxReportFn fn, void *ctx) {
  Report report{fn, ctx};
  auto f = funcOf(func);
  SmallVector<std::string> order(names, names + n);
  auto found = tileableBands(f, order, report);
  if (failed(found))
    return AUTOSCHED_TX_REFUSED;
  *bands = found->size();
  if (found->size() != 1)
    return AUTOSCHED_TX_OK;
  auto &band = found->front();
  auto back = backwardLoops(band, report);
  if (failed(back))
    return AUTOSCHED_TX_REFUSED;
  for (unsigned i = 0; i < n; ++i) {
    std::optional<uint64_t> t = tripCount(band[i]);
    trips[i] = t ? (int64_t)*t : -1;
    backward[i] = (*back)[i];
  }
  return AUTOSCHED_TX_OK;
}

} // extern "C"
