//===- Vectorize.cpp - Vectorization of an innermost loop -----------------===//
//
// The entry point of this kind (declared in passes/kinds/Vectorize.h) and the helpers
// only it uses; what the kinds share is in passes/Transforms.h.
//
//===----------------------------------------------------------------------===//

#include "kinds/Vectorize.h"
#include "Transforms.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/Dialect/Affine/Analysis/AffineAnalysis.h"
#include "mlir/Dialect/Affine/Analysis/LoopAnalysis.h"
#include "mlir/Dialect/Affine/Analysis/NestedMatcher.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/IR/AffineValueMap.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <string>

using namespace mlir;
using namespace mlir::affine;
using namespace autosched;

namespace {

/// Whether every use of `v` is a subscript of an affine load or store, or an operand of an
/// affine.apply whose result is used so too.
bool usedAsIndexOnly(Value v) {
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (auto apply = dyn_cast<AffineApplyOp>(user)) {
      if (!usedAsIndexOnly(apply.getResult()))
        return false;
    } else if (auto load = dyn_cast<AffineReadOpInterface>(user)) {
      if (use.get() == load.getMemRef())
        return false;
    } else if (auto store = dyn_cast<AffineWriteOpInterface>(user)) {
      if (use.get() == store.getMemRef() || use.get() == store.getValueToStore())
        return false;
    } else {
      return false;
    }
  }
  return true;
}

/// The accesses a group of lanes may reorder: any pair but a source before its sink in the
/// body (an innermost loop: every access is an operation of its body).
bool mayReorder(Operation *src, Operation *dst) {
  return !(src != dst && src->getBlock() == dst->getBlock() && src->isBeforeInBlock(dst));
}

/// Vectorizing `loop` by `width` runs each group of `width` consecutive iterations as one:
/// every operation of the body at once over its lanes, in the body's order. A dependence
/// carried by the loop keeps its order when its sink is in a later group (a distance of
/// at least width * step) or when its source operation comes before its sink operation in
/// the body (the source's vector operation runs first, over all lanes: A[i] = ..; .. =
/// A[i - 1] stays right). A source at or after its sink in the body, at a distance below
/// the group's span, would be reordered or run in the same vector operation.
///
/// `known`: the dependence verdict at this width when a check learned it already
/// (autosched_tx_vectorize_carried), Unanalysable to analyse here.
int32_t checkVectorize(AffineForOp loop, int64_t width, StringRef name, Carried known,
                       const Report &report) {
  if (loop.getNumIterOperands() > 0)
    return checkParallel(loop, name, report); // the reduction's refusal
  bool carries = known == Carried::Yes;
  if (known == Carried::Unanalysable) {
    auto analysed = carriesWithin(loop, width * loop.getStepAsInt(), mayReorder, report);
    if (failed(analysed))
      return AUTOSCHED_TX_REFUSED;
    carries = *analysed;
  }
  if (carries)
    return report.refuseDependence(
        name.str() + " carries a dependence shorter than " + std::to_string(width) +
        " iterations from an operation to one before it in the body (or to itself)");
  return AUTOSCHED_TX_OK;
}

/// The super-vectorizer reads and writes consecutive elements along the memref dimension
/// that varies with the loop; an access moving by another stride (A[2 * i]) would be
/// silently miscompiled. Every access must move by 0 or 1 per iteration, linearly.
LogicalResult checkUnitStride(AffineForOp loop, const Report &report) {
  Value iv = loop.getInductionVar();
  std::string bad;
  loop.walk([&](Operation *op) {
    if (!bad.empty() || !isa<AffineReadOpInterface, AffineWriteOpInterface>(op))
      return;
    MemRefAccess access(op);
    AffineValueMap map;
    access.getAccessMap(&map);
    unsigned dims = map.getNumDims(), syms = map.getNumSymbols();
    for (unsigned r = 0; r < map.getNumResults() && bad.empty(); ++r) {
      SmallVector<int64_t> flat;
      if (failed(getFlattenedAffineExpr(map.getResult(r), dims, syms, &flat))) {
        bad = "an access is not affine";
        break;
      }
      for (unsigned k = dims + syms; k + 1 < flat.size(); ++k)
        if (flat[k] != 0)
          bad = "an access uses mod/floordiv";
      for (unsigned k = 0; k < map.getNumOperands(); ++k)
        if (map.getOperand(k) == iv && flat[k] != 0 && flat[k] != 1)
          bad = "an access moves by " + std::to_string(flat[k]) +
                " elements per iteration (the vectorizer needs unit stride)";
    }
  });
  if (!bad.empty())
    return report.refuse(nameOf(loop) + " is not vectorizable: " + bad), failure();
  return success();
}

/// Splits `l` (step 1, one lower and one upper bound expression, or constant bounds) at
/// split = lb + floor((ub - lb) / w) * w: `l` keeps [lb, split), whose trip count is a
/// multiple of `w` (what the vectorizer needs: it makes no remainder loop), and a copy of
/// it right after it runs the rest, [max(split, lb), ub), in the original order. The max:
/// when ub < lb (a loop empty for some outer iterations) the split falls below lb, and the
/// copy must not run iterations the original never ran. The copy keeps the loop's name (a
/// name denotes every loop derived from a loop, like unrolling's clean-up loop).
void peelRemainder(AffineForOp l, int64_t w) {
  OpBuilder b(l);
  Location loc = l.getLoc();
  if (std::optional<uint64_t> trips = tripCount(l); trips && l.hasConstantBounds()) {
    int64_t split = l.getConstantLowerBound() + static_cast<int64_t>(*trips / w) * w;
    b.setInsertionPointAfter(l);
    auto rest = cast<AffineForOp>(b.clone(*l.getOperation()));
    l.setConstantUpperBound(split);
    rest.setConstantLowerBound(split);
    return;
  }
  MLIRContext *ctx = l.getContext();
  // Composed applies: the split is one map over the bounds' own operands.
  auto lbv = makeComposedAffineApply(b, loc, l.getLowerBoundMap(),
                                     getAsOpFoldResult(l.getLowerBoundOperands()));
  auto ubv = makeComposedAffineApply(b, loc, l.getUpperBoundMap(),
                                     getAsOpFoldResult(l.getUpperBoundOperands()));
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx);
  AffineMap splitMap = AffineMap::get(2, 0, d0 + (d1 - d0).floorDiv(w) * w);
  Value split = makeComposedAffineApply(b, loc, splitMap,
                                        {OpFoldResult(lbv.getResult()), OpFoldResult(ubv.getResult())});
  if (ubv->use_empty())
    ubv->erase();
  b.setInsertionPointAfter(l);
  auto rest = cast<AffineForOp>(b.clone(*l.getOperation()));
  l.setUpperBound(ValueRange{split}, AffineMap::get(1, 0, d0));
  rest.setLowerBound(ValueRange{split, lbv.getResult()}, AffineMap::get(2, 0, {d0, d1}, ctx));
}

/// Marks the transfers of a loop the vectorizer made in bounds. Every element one of them
/// touches is one that a scalar iteration it replaces touched (unit stride, whole groups of
/// the width: the remainder was peeled), and the original's accesses are in bounds (one
/// outside its memref is undefined behaviour already). The vectorizer leaves them unmarked,
/// and LLVM then masks every load and store: jacobi-2d's vectorized sweep ran at 0.24x of
/// the scalar one on a 2-core AMD EPYC, where masked stores are slow.
void markInBounds(AffineForOp loop) {
  Builder b(loop.getContext());
  loop.walk([&](Operation *op) {
    if (auto r = dyn_cast<vector::TransferReadOp>(op))
      r.setInBoundsAttr(b.getBoolArrayAttr(SmallVector<bool>(r.getVectorType().getRank(), true)));
    else if (auto w = dyn_cast<vector::TransferWriteOp>(op))
      w.setInBoundsAttr(b.getBoolArrayAttr(SmallVector<bool>(w.getVectorType().getRank(), true)));
  });
}

/// autosched_tx_vectorize, with the dependence verdicts of the loops named `name` (in
/// pre-order) where a check learned them: `known` empty, or one per loop.
int32_t vectorize(MlirOperation func, const char *name, int64_t width, ArrayRef<Carried> known,
                  const Report &report) {
  auto f = funcOf(func);
  auto found = requireLoops(f, name, report);
  if (failed(found))
    return AUTOSCHED_TX_REFUSED;
  SmallVector<AffineForOp> loops = *found;
  std::string n(name);
  // NestedPattern allocates in a (thread-local) arena that must be set up first.
  NestedPatternContext patternArena;
  if (known.size() != loops.size())
    known = {};
  bool peel = false;
  for (auto [i, l] : llvm::enumerate(loops)) {
    if (!isInnermost(l))
      return report.refuse(n + " is not an innermost loop");
    if (l.getStepAsInt() != 1)
      return report.refuse(n + " has a step other than 1");
    // The super-vectorizer emits no remainder loop: a loop whose trip count is not a known
    // multiple of the width is split first (peelRemainder), which needs one lower and one
    // upper bound expression.
    std::optional<uint64_t> trips = tripCount(l);
    if (trips && *trips < static_cast<uint64_t>(width))
      return report.refuse(n + " runs " + std::to_string(*trips) +
                           " iterations, fewer than the width " + std::to_string(width));
    bool whole = trips && *trips % width == 0;
    // A tile's point loop loses its min when its partial last tile is peeled (see
    // partialTilesPeelable): the full tiles' copies must hold a vector; the last tile's
    // stays scalar where it runs fewer iterations than the width.
    if (!whole && (l.getLowerBoundMap().getNumResults() != 1 ||
                   l.getUpperBoundMap().getNumResults() != 1)) {
      std::string why;
      if (!partialTilesPeelable({l}, why))
        return report.refuse(n + " has a max or min bound and a trip count that is not a "
                                 "known multiple of " + std::to_string(width) +
                                 " (its remainder loop cannot be bounded; " + why + ")");
      PeeledTrips peeled = peeledTrips(l);
      if (!peeled.full || *peeled.full < static_cast<uint64_t>(width))
        return report.refuse(n + " runs fewer iterations per tile than the width " +
                             std::to_string(width) + ", or a count that varies");
      peel = true;
    }
    Carried verdict = known.empty() ? Carried::Unanalysable : known[i];
    if (int32_t status = checkVectorize(l, width, n, verdict, report); status != AUTOSCHED_TX_OK)
      return status;
    NestedPattern vectorTransfers =
        matcher::Op([](Operation &op) { return isa<vector::TransferReadOp,
                                                   vector::TransferWriteOp>(op); });
    int memRefDim = -1;
    if (failed(checkUnitStride(l, report)))
      return AUTOSCHED_TX_REFUSED;
    // The vectorizer turns the induction variable's uses into vector indices; a use as a
    // value (an index_cast, a stored index) it cannot widen, and it fails on the loop.
    if (!usedAsIndexOnly(l.getInductionVar()))
      return report.refuse(n + "'s induction variable is used as a value, not only as an "
                               "index (the vectorizer cannot widen it)");
    if (!isVectorizableLoopBody(l, &memRefDim, vectorTransfers))
      return report.refuse(n + " is not vectorizable (an access varies along more than "
                               "one memref dimension, or the body is not supported)");
    bool scalarTypes = true;
    l.walk([&](Operation *op) {
      for (Type t : op->getResultTypes())
        if (!t.isIntOrIndexOrFloat())
          scalarTypes = false;
    });
    if (!scalarTypes)
      return report.refuse(n + " already holds vector values");
  }
  if (peel)
    loops = peelAndCollect(f, name, width);
  for (auto l : loops) {
    // The vectorizer replaces the loop in place: the new loop is the one right before the
    // old loop's next operation (a position counted from the block's start is not enough:
    // the vectorizer may hoist new operations, a broadcast of an outer induction variable,
    // to the front of the block, and the name went to the loop's previous sibling; found
    // by the fuzzer).
    std::optional<uint64_t> trips = tripCount(l);
    if (!(trips && *trips % width == 0))
      peelRemainder(l, width);
    Operation *next = l->getNextNode();
    std::vector<SmallVector<AffineForOp, 2>> nest{{l}};
    VectorizationStrategy strategy;
    strategy.vectorSizes.push_back(width);
    strategy.loopToVectorDim[l.getOperation()] = 0;
    if (failed(vectorizeAffineLoopNest(nest, strategy)))
      return report.fail("MLIR's vectorizeAffineLoopNest failed on " + n);
    auto newLoop = next ? dyn_cast_or_null<AffineForOp>(next->getPrevNode()) : AffineForOp();
    if (!newLoop)
      return report.fail("cannot find the loop MLIR's vectorizer made of " + n);
    setName(newLoop, n);
    markInBounds(newLoop);
  }
  return AUTOSCHED_TX_OK;
}

} // namespace

extern "C" {

int32_t autosched_tx_vectorize(MlirOperation func, const char *name, int64_t width,
                               AutoschedTxReportFn fn, void *ctx) {
  return vectorize(func, name, width, {}, Report{fn, ctx});
}

int32_t autosched_tx_vectorize_carried(MlirOperation func, const char *name,
                                       const int64_t *widths, size_t nWidths, uint8_t *carried,
                                       size_t capacity, size_t *nLoops, AutoschedTxReportFn fn,
                                       void *ctx) {
  Report report{fn, ctx};
  auto found = requireLoops(funcOf(func), name, report);
  if (failed(found))
    return AUTOSCHED_TX_REFUSED;
  *nLoops = found->size();
  // The question checkVectorize asks, where autosched_tx_vectorize would reach it (an
  // innermost loop of step 1 without iter_args); elsewhere left to it (Unanalysable).
  Report silent{nullptr, nullptr};
  for (auto [i, l] : llvm::enumerate(*found)) {
    if (i >= capacity)
      break;
    SmallVector<Carried> verdicts(nWidths, Carried::Unanalysable);
    if (isInnermost(l) && l.getStepAsInt() == 1 && l.getNumIterOperands() == 0)
      verdicts = carriedWithinSpans(l, ArrayRef<int64_t>(widths, nWidths), mayReorder, silent);
    for (size_t k = 0; k < nWidths; ++k)
      carried[i * nWidths + k] = static_cast<uint8_t>(verdicts[k]);
  }
  return AUTOSCHED_TX_OK;
}

int32_t autosched_tx_vectorize_known(MlirOperation func, const char *name, int64_t width,
                                     const uint8_t *carried, size_t nLoops,
                                     AutoschedTxReportFn fn, void *ctx) {
  SmallVector<Carried> known;
  for (size_t i = 0; i < nLoops; ++i)
    known.push_back(carried[i] <= 2 ? static_cast<Carried>(carried[i]) : Carried::Unanalysable);
  return vectorize(func, name, width, known, Report{fn, ctx});
}

int32_t autosched_tx_vectorize_checked(MlirOperation func, const char *name, int64_t width,
                                       AutoschedTxReportFn fn, void *ctx) {
  // Checked on this function already: no dependence stops the width (a reduction's loop is
  // still refused by its own check, which a checked step passed).
  SmallVector<Carried> known(loopsNamed(funcOf(func), name).size(), Carried::No);
  return vectorize(func, name, width, known, Report{fn, ctx});
}

} // extern "C"
