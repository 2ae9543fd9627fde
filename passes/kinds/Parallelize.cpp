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

namespace {

/// The loops named `name`, checked as autosched_tx_parallelize checks them; the whole
/// dependence analysis only with `dependences`.
FailureOr<SmallVector<AffineForOp>> parallelizable(func::FuncOp f, const char *name,
                                                   bool dependences, const Report &report,
                                                   int32_t &status) {
  auto found = requireLoops(f, name, report);
  if (failed(found)) {
    status = AUTOSCHED_TX_REFUSED;
    return failure();
  }
  for (auto l : *found) {
    // checkParallel refuses iter_args before any dependence question.
    if (dependences || l.getNumIterOperands() > 0)
      if (status = checkParallel(l, name, report); status != AUTOSCHED_TX_OK)
        return failure();
  }
  status = AUTOSCHED_TX_OK;
  return *found;
}

int32_t parallelize(MlirOperation func, const char *name, bool dependences,
                    AutoschedTxReportFn fn, void *ctx) {
  Report report{fn, ctx};
  int32_t status = AUTOSCHED_TX_OK;
  auto loops = parallelizable(funcOf(func), name, dependences, report, status);
  if (failed(loops))
    return status;
  for (auto l : *loops)
    if (failed(affineParallelize(l)))
      return report.fail(std::string("MLIR's affineParallelize failed on ") + name);
  return AUTOSCHED_TX_OK;
}

} // namespace

extern "C" {

int32_t autosched_tx_parallelize(MlirOperation func, const char *name,
                                 AutoschedTxReportFn fn, void *ctx) {
  return parallelize(func, name, /*dependences=*/true, fn, ctx);
}

int32_t autosched_tx_parallelize_checked(MlirOperation func, const char *name,
                                         AutoschedTxReportFn fn, void *ctx) {
  return parallelize(func, name, /*dependences=*/false, fn, ctx);
}

int32_t autosched_tx_parallelize_check(MlirOperation func, const char *name,
                                       int32_t dependences,
                                       AutoschedTxReportFn fn, void *ctx) {
  Report report{fn, ctx};
  int32_t status = AUTOSCHED_TX_OK;
  (void)parallelizable(funcOf(func), name, dependences != 0, report, status);
  return status;
}

} // extern "C"
