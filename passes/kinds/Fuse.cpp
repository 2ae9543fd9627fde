//===- Fuse.cpp - Loop fusion ---------------------------------------------===//
//
// The entry point of this kind (declared in passes/kinds/Fuse.h) and the helpers only it
// uses; what the kinds share is in passes/Transforms.h.
//
//===----------------------------------------------------------------------===//

#include "kinds/Fuse.h"
#include "Transforms.h"

#include "mlir/Dialect/Affine/Analysis/Utils.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/LoopFusionUtils.h"
#include "mlir/Dialect/Affine/LoopUtils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <string>

using namespace mlir;
using namespace mlir::affine;
using namespace autosched;

extern "C" {

int32_t autosched_tx_fuse(MlirOperation func, const char *first, const char *second,
                          int64_t depth, AutoschedTxReportFn fn, void *ctx) {
  Report report{fn, ctx};
  auto f = funcOf(func);
  auto firsts = loopsNamed(f, first), seconds = loopsNamed(f, second);
  if (firsts.size() != 1 || seconds.size() != 1)
    return report.refuse(std::string("fuse needs exactly one loop named ") +
                         (firsts.size() != 1 ? first : second));
  AffineForOp src = firsts[0], dst = seconds[0];
  std::string a(first), b(second);
  if (src->getBlock() != dst->getBlock() || !isa<func::FuncOp>(src->getParentOp()))
    return report.refuse(a + " and " + b + " are not sibling nests of the function");
  // Only memory-effect-free operations may stand between the two nests.
  if (!src->isBeforeInBlock(dst))
    return report.refuse(a + " must come before " + b);
  for (Operation *op = src->getNextNode(); op != dst; op = op->getNextNode())
    if (!isMemoryEffectFree(op))
      return report.refuse("an operation with side effects stands between " + a +
                           " and " + b);
  // MLIR's canFuseLoops takes every loop of the nests for an affine.for: on an
  // affine.parallel (an earlier parallelize) it crashed the process (found by the fuzzer);
  // vector transfers are opaque to its slice computation.
  for (AffineForOp nest : {src, dst}) {
    bool unsupported = false;
    bool carries = false;
    nest.walk([&](Operation *op) {
      if (isa<AffineParallelOp, vector::TransferReadOp, vector::TransferWriteOp>(op))
        unsupported = true;
      if (auto l = dyn_cast<AffineForOp>(op))
        carries |= l.getNumIterOperands() > 0;
    });
    if (unsupported)
      return report.refuse("fusion of a nest holding parallel loops or vector operations is "
                           "not supported (fuse before parallelize and vectorize)");
    // MLIR's slices copy loops, not the values they yield to the operations after them.
    if (carries)
      return report.refuse("fusion of a nest holding a reduction through iter_args is not "
                           "supported");
  }
  // The fused loops must match one to one: same constant bounds and steps.
  SmallVector<AffineForOp> srcLoops, dstLoops;
  getPerfectlyNestedLoops(srcLoops, src);
  getPerfectlyNestedLoops(dstLoops, dst);
  if ((int64_t)srcLoops.size() < depth || (int64_t)dstLoops.size() < depth)
    return report.refuse("fusion at depth " + std::to_string(depth) +
                         " needs both nests perfectly nested to that depth");
  for (int64_t i = 0; i < depth; ++i) {
    AffineForOp s = srcLoops[i], d = dstLoops[i];
    if (!s.hasConstantBounds() || !d.hasConstantBounds() ||
        s.getConstantLowerBound() != d.getConstantLowerBound() ||
        s.getConstantUpperBound() != d.getConstantUpperBound() ||
        s.getStepAsInt() != d.getStepAsInt())
      return report.refuse("the loops " + nameOf(s) + " and " + nameOf(d) +
                           " at fusion depth " + std::to_string(i + 1) +
                           " do not have the same constant bounds and step");
  }
  ComputationSliceState slice;
  FusionResult result = canFuseLoops(src, dst, depth, &slice);
  switch (result.value) {
  case FusionResult::Success:
    break;
  case FusionResult::FailFusionDependence:
    return report.refuseDependence("fusing " + a + " into " + b + " would reverse a dependence "
                         "between the two nests (MLIR's canFuseLoops)");
  case FusionResult::FailBlockDependence:
    return report.refuseDependence("fusing " + a + " into " + b + " would break a dependence with "
                         "an operation between them (MLIR's canFuseLoops)");
  case FusionResult::FailPrecondition:
    return report.refuse("MLIR's canFuseLoops rejects the nests " + a + " and " + b +
                         " (precondition failed)");
  case FusionResult::FailComputationSlice:
  case FusionResult::FailIncorrectSlice:
    return report.refuse("MLIR's canFuseLoops could not compute a valid slice of " + a +
                         " for " + b + " at depth " + std::to_string(depth) +
                         " (MLIR fuses nests linked by a buffer that " + a +
                         " writes and " + b + " reads, and needs a slice that respects "
                         "every dependence)");
  }
  // The slice must run exactly the src iteration that matches each dst iteration, so
  // that removing the original src nest neither drops nor repeats work.
  if (slice.lbs.size() < (size_t)depth)
    return report.refuse("the fusion slice does not cover the fused loops");
  for (int64_t i = 0; i < depth; ++i) {
    AffineMap lb = slice.lbs[i], ub = slice.ubs[i];
    Value iv = dstLoops[i].getInductionVar();
    auto isIv = [&](AffineMap m, int64_t offset) {
      if (!m || m.getNumResults() != 1)
        return false;
      auto operands = i < (int64_t)slice.lbOperands.size() ? slice.lbOperands[i]
                                                           : SmallVector<Value, 4>{};
      AffineExpr e = m.getResult(0);
      for (unsigned k = 0; k < operands.size(); ++k)
        if (operands[k] == iv &&
            e == getAffineDimExpr(k, m.getContext()) + offset)
          return true;
      return false;
    };
    if (!isIv(lb, 0) || !isIv(ub, srcLoops[i].getStepAsInt()))
      return report.refuse("the fusion slice of " + a + " is not one iteration per "
                           "iteration of " + b + " at depth " + std::to_string(i + 1) +
                           " (it would recompute or skip work)");
  }
  // The slice must also run every iteration of the source's inner loops: MLIR shrinks
  // them to what the destination reads (its fusion assumes the rest is dead), but the
  // source nest is erased and its other writes are live (the fuzzer found a producer's
  // write to a function argument dropped).
  std::optional<bool> maximal = slice.isMaximal();
  if (!maximal || !*maximal)
    return report.refuse("the fusion slice of " + a + " does not run all of its iterations "
                         "(MLIR keeps only what " + b + " reads; the rest would be lost)");
  fuseLoops(src, dst, slice);
  src->erase();
  return AUTOSCHED_TX_OK;
}

} // extern "C"
