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

/// Whether reordering a band whose outermost loop is at depth `first` (its carried
/// dependences `deps`) so that band[order[j]] becomes the j-th loop could make a
/// dependence, read in the new order, have a first non-zero distance that is negative.
template <typename Deps>
bool reverses(const Deps &deps, unsigned first, ArrayRef<unsigned> order) {
  for (auto &dep : deps) {
    SmallVector<DistanceRange> ranges;
    for (unsigned pos : order) {
      ranges.push_back({first + pos, std::nullopt, -1});
      if (mayHave(dep, ranges))
        return true;
      ranges.back() = {first + pos, 0, 0};
    }
  }
  return false;
}

/// Legality of reordering `band` so that band[order[j]] becomes the j-th loop.
int32_t checkPermutation(ArrayRef<AffineForOp> band, ArrayRef<unsigned> order,
                               StringRef what, const Report &report) {
  unsigned first = depthOf(band.front());
  auto deps = carriedDependences(band.front(), first + 1, first + band.size(), report);
  if (failed(deps))
    return AUTOSCHED_TX_REFUSED;
  if (reverses(*deps, first, order))
    return report.refuseDependence(
        what.str() + " would reverse a dependence (a dependence vector would become "
                     "lexicographically negative)");
  return AUTOSCHED_TX_OK;
}

/// newOrder[j]: the index in `band` of the loop named order[j].
SmallVector<unsigned> bandOrder(ArrayRef<AffineForOp> band, ArrayRef<std::string> order) {
  SmallVector<unsigned> newOrder(order.size());
  for (unsigned i = 0; i < band.size(); ++i) {
    unsigned pos = std::find(order.begin(), order.end(), nameOf(band[i])) - order.begin();
    newOrder[pos] = i;
  }
  return newOrder;
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
    SmallVector<unsigned> newOrder = bandOrder(band, order), permMap(n);
    for (unsigned j = 0; j < n; ++j)
      permMap[newOrder[j]] = j;
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

int32_t autosched_tx_interchange_orders(MlirOperation func, const char *const *names, size_t n,
                                        const uint32_t *orders, size_t k, int32_t *statuses,
                                        AutoschedTxReportFn fn, void *ctx) {
  Report report{fn, ctx};
  auto f = funcOf(func);
  SmallVector<std::string> set(names, names + n);
  auto bands = findBands(f, set, report);
  if (failed(bands))
    return AUTOSCHED_TX_REFUSED;
  for (auto &band : *bands)
    if (failed(checkRectangular(band, report)) ||
        failed(checkNoIterArgs(band, "interchange", report)))
      return AUTOSCHED_TX_REFUSED;
  std::fill(statuses, statuses + k, (int32_t)AUTOSCHED_TX_OK);
  for (auto &band : *bands) {
    // The band's dependences, analysed once for every order.
    unsigned first = depthOf(band.front());
    auto deps = carriedDependences(band.front(), first + 1, first + band.size(), report);
    if (failed(deps))
      return AUTOSCHED_TX_REFUSED;
    for (size_t o = 0; o < k; ++o) {
      SmallVector<std::string> order;
      for (size_t j = 0; j < n; ++j)
        order.push_back(set[orders[o * n + j]]);
      if (statuses[o] == AUTOSCHED_TX_OK && reverses(*deps, first, bandOrder(band, order)))
        statuses[o] = AUTOSCHED_TX_REFUSED_DEPENDENCE;
    }
  }
  return AUTOSCHED_TX_OK;
}

} // extern "C"
