//===- Parallelize.cpp - Loop parallelization -----------------------------===//
//
// The entry point of this kind (declared in passes/kinds/Parallelize.h) and the helpers
// only it uses; what the kinds share is in passes/Transforms.h.
//
//===----------------------------------------------------------------------===//

#include "kinds/Parallelize.h"
#include "Transforms.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Utils.h"

#include <string>

using namespace mlir;
using namespace mlir::affine;
using namespace autosched;

extern "C" {

int32_t autosched_tx_parallelize(MlirOperation func, const char *name,
                                 AutoschedTxReportFn fn, void *ctx) {
  Report report{fn, ctx};
  auto f = funcOf(func);
  auto found = requireLoops(f, name, report);
  if (failed(found))
    return AUTOSCHED_TX_REFUSED;
  SmallVector<AffineForOp> loops = *found;
  for (auto l : loops)
    if (int32_t status = checkParallel(l, name, report); status != AUTOSCHED_TX_OK)
      return status;
  for (auto l : loops)
    if (failed(affineParallelize(l)))
      return report.fail(std::string("MLIR's affineParallelize failed on ") + name);
  return AUTOSCHED_TX_OK;
}

} // extern "C"
