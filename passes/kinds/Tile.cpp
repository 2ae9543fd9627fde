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
int32_t checkTiling(ArrayRef<AffineForOp> band, ArrayRef<int64_t> sizes,
                          const Report &report) {
  unsigned tiled = band.size();
  while (tiled > 0) {
    std::optional<uint64_t> trips = getConstantTripCount(band[tiled - 1]);
    if (!trips || (uint64_t)sizes[tiled - 1] < *trips)
      break;
    --tiled;
  }
  unsigned first = depthOf(band.front());
  auto deps = carriedDependences(band.front(), first + 1, first + band.size(), report);
  if (failed(deps))
    return AUTOSCHED_TX_REFUSED;
  for (auto &dep : *deps)
    for (unsigned i = 0; i < tiled; ++i)
      if (mayHave(dep, {{first + i, std::nullopt, -1}})) {
        return report.refuseDependence(
            "tiling would reverse a dependence: the band is not fully permutable (a "
            "dependence component along " + nameOf(band[i]) + " may be negative)");
      }
  return AUTOSCHED_TX_OK;
}

} // namespace

extern "C" {

int32_t autosched_tx_tile(MlirOperation func, const char *const *names,
                          const int64_t *sizes, size_t n, AutoschedTxReportFn fn,
                          void *ctx) {
  Report report{fn, ctx};
  auto f = funcOf(func);
  SmallVector<std::string> order(names, names + n);
  auto bands = findBands(f, order, report);
  if (failed(bands))
    return AUTOSCHED_TX_REFUSED;
  for (auto &band : *bands) {
    for (unsigned i = 0; i < n; ++i)
      if (nameOf(band[i]) != order[i])
        return report.refuse("list the loops of a tiled band outermost first: " +
                             nameOf(band[0]) + " is outermost");
    if (failed(checkRectangular(band, report)) ||
        failed(checkNoIterArgs(band, "tiling", report)))
      return AUTOSCHED_TX_REFUSED;
    if (int32_t status = checkTiling(band, ArrayRef<int64_t>(sizes, n), report);
        status != AUTOSCHED_TX_OK)
      return status;
  }
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

} // extern "C"
