//===- Interchange.cpp - Loop interchange ---------------------------------===//
//
// The entry point of this kind (declared in passes/kinds/Interchange.h) and the helpers
// only it uses; what the kinds share is in passes/Transforms.h.
//
//===----------------------------------------------------------------------===//

#include "kinds/Interchange.h"
#include "Transforms.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/LoopUtils.h"

#include <string>

using namespace mlir;
using namespace mlir::affine;
using namespace autosched;

namespace {

/// Legality of reordering `band` so that band[order[j]] becomes the j-th loop: no
/// dependence carried by the band may have, read in the new order, a first non-zero
/// distance that is negative.
int32_t checkPermutation(ArrayRef<AffineForOp> band, ArrayRef<unsigned> order,
                               StringRef what, const Report &report) {
  unsigned first = depthOf(band.front());
  auto deps = carriedDependences(band.front(), first + 1, first + band.size(), report);
  if (failed(deps))
    return AUTOSCHED_TX_REFUSED;
  for (auto &dep : *deps) {
    SmallVector<DistanceRange> ranges;
    for (unsigned pos : order) {
      ranges.push_back({first + pos, std::nullopt, -1});
      if (mayHave(dep, ranges)) {
        return report.refuseDependence(
            what.str() + " would reverse a dependence (a dependence vector would become "
                         "lexicographically negative)");
      }
      ranges.back() = {first + pos, 0, 0};
    }
  }
  return AUTOSCHED_TX_OK;
}

} // namespace

extern "C" {

int32_t autosched_tx_interchange(MlirOperation func, const char *const *names, size_t n,
                                 AutoschedTxReportFn fn, void *ctx) {
  Report report{fn, ctx};
  auto f = funcOf(func);
  SmallVector<std::string> order(names, names + n);
  auto bands = findBands(f, order, report);
  if (failed(bands))
    return AUTOSCHED_TX_REFUSED;
  SmallVector<SmallVector<unsigned>> permMaps;
  for (auto &band : *bands) {
    if (failed(checkRectangular(band, report)) ||
        failed(checkNoIterArgs(band, "interchange", report)))
      return AUTOSCHED_TX_REFUSED;
    // permMap[i]: new position of band[i]; newOrder[j]: band index placed at j.
    SmallVector<unsigned> permMap(n), newOrder(n);
    for (unsigned i = 0; i < n; ++i) {
      unsigned pos = std::find(order.begin(), order.end(), nameOf(band[i])) - order.begin();
      permMap[i] = pos;
      newOrder[pos] = i;
    }
    if (int32_t status = checkPermutation(band, newOrder, "interchange(" + joined(order) + ")",
                                          report);
        status != AUTOSCHED_TX_OK)
      return status;
    permMaps.push_back(permMap);
  }
  for (auto [band, permMap] : llvm::zip(*bands, permMaps))
    permuteLoops(band, permMap);
  return AUTOSCHED_TX_OK;
}

} // extern "C"
