//===- Accumulate.cpp - Register accumulation (scalar replacement) --------===//
//
// The entry point of this kind (declared in passes/kinds/Accumulate.h) and the helpers
// only it uses; what the kinds share is in passes/Transforms.h. MLIR's affine scalar
// replacement (affineScalarReplace) forwards stores to loads and removes redundant loads
// within an iteration; it does not carry an element across the iterations of a loop,
// which is what this does, through the loop-like interface's replaceWithAdditionalYields.
//
//===----------------------------------------------------------------------===//

#include "kinds/Accumulate.h"
#include "Transforms.h"

#include "mlir/Dialect/Affine/Analysis/AffineAnalysis.h"
#include "mlir/Dialect/Affine/Analysis/AffineStructures.h"
#include "mlir/Dialect/Affine/Analysis/LoopAnalysis.h"
#include "mlir/Dialect/Affine/Analysis/Utils.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

using namespace mlir;
using namespace mlir::affine;
using namespace autosched;

namespace {

/// A load and a store of one element, the load first, both directly in a loop's body.
struct Pair {
  AffineLoadOp load;
  AffineStoreOp store;
};

/// Whether `loop` runs at least once whenever the loops around it run: no lower bound
/// expression reaches an upper one anywhere in their iteration domain (a tile's point loop
/// from t to min(t + 64, N) always runs; j from 0 to i does not at i = 0).
bool alwaysRuns(AffineForOp loop) {
  if (std::optional<uint64_t> trips = tripCount(loop))
    return *trips > 0;
  SmallVector<Operation *> outer;
  getEnclosingAffineOps(*loop.getOperation(), &outer);
  FlatAffineValueConstraints domain;
  if (failed(getIndexSet(outer, &domain)))
    return false;
  AffineMap lbs = loop.getLowerBoundMap(), ubs = loop.getUpperBoundMap();
  for (unsigned j = 0; j < lbs.getNumResults(); ++j)
    for (unsigned k = 0; k < ubs.getNumResults(); ++k) {
      // An outer iteration where lb_j >= ub_k: x = lb_j and x >= ub_k.
      FlatAffineValueConstraints cst(domain);
      unsigned x = cst.appendDimVar(1);
      if (failed(cst.addBound(presburger::BoundType::EQ, x, lbs.getSubMap({j}),
                              loop.getLowerBoundOperands())) ||
          failed(cst.addBound(presburger::BoundType::LB, x, ubs.getSubMap({k}),
                              loop.getUpperBoundOperands())))
        return false;
      if (!cst.isEmpty())
        return false;
    }
  return true;
}

/// The pairs of `loop` whose subscripts are defined outside it, or a refusal.
FailureOr<SmallVector<Pair>> pairsIn(AffineForOp loop, StringRef name, const Report &report) {
  if (failed(accessesIn(loop, report)))
    return failure();
  // The accumulator is loaded before the loop and stored after it whether or not the loop
  // runs: the loop must run, or the element (C[i - 1] at i = 0 of a triangular nest) may be
  // one the program never touches.
  if (!alwaysRuns(loop))
    return report.refuse(name.str() + " may not run for some iterations of the loops around "
                                      "it: the accumulator's load before it and store after "
                                      "it would touch an element the loop does not"),
           failure();
  auto invariant = [&](Operation *op) {
    return llvm::all_of(op->getOperands().drop_front(isa<AffineStoreOp>(op) ? 2 : 1),
                        [&](Value v) { return loop.isDefinedOutsideOfLoop(v); });
  };
  SmallVector<Pair> pairs;
  Block *body = loop.getBody();
  for (auto store : body->getOps<AffineStoreOp>()) {
    if (!invariant(store) || !loop.isDefinedOutsideOfLoop(store.getMemRef()))
      continue;
    MemRefAccess stored(store);
    for (auto load : body->getOps<AffineLoadOp>()) {
      if (load->isBeforeInBlock(store) && invariant(load) && MemRefAccess(load) == stored) {
        pairs.push_back({load, store});
        break;
      }
    }
  }
  if (pairs.empty())
    return report.refuse(name.str() + " holds no load and store of one element whose subscripts "
                                      "do not vary in it"),
           failure();
  // Anything else touching a pair's memref would read or write its element behind the
  // accumulator (or, through other subscripts, may alias it): refused.
  for (Pair &p : pairs) {
    Value memref = p.store.getMemRef();
    std::string other;
    loop.walk([&](Operation *op) {
      if (op == p.load.getOperation() || op == p.store.getOperation() || !other.empty())
        return;
      if (llvm::is_contained(op->getOperands(), memref))
        other = op->getName().getStringRef().str();
    });
    for (Pair &q : pairs)
      if (&q != &p && q.store.getMemRef() == memref)
        other = "affine.store";
    if (!other.empty())
      return report.refuse("another access to the memref of " + name.str() + "'s accumulator (" +
                           other + ") would read or write its element behind it"),
             failure();
  }
  return pairs;
}

} // namespace

extern "C" {

int32_t autosched_tx_accumulate(MlirOperation func, const char *name, AutoschedTxReportFn fn,
                                void *ctx) {
  Report report{fn, ctx};
  auto f = funcOf(func);
  auto found = requireLoops(f, name, report);
  if (failed(found))
    return AUTOSCHED_TX_REFUSED;
  SmallVector<AffineForOp> loops = *found;
  std::string n(name);
  SmallVector<SmallVector<Pair>> all;
  for (auto l : loops) {
    auto pairs = pairsIn(l, n, report);
    if (failed(pairs))
      return AUTOSCHED_TX_REFUSED;
    all.push_back(*pairs);
  }
  IRRewriter rewriter(f.getContext());
  for (auto [loop, pairs] : llvm::zip(loops, all)) {
    AffineForOp current = loop;
    for (Pair &p : pairs) {
      rewriter.setInsertionPoint(current);
      Operation *init = rewriter.clone(*p.load.getOperation());
      Value stored = p.store.getValueToStore();
      auto replaced = current.replaceWithAdditionalYields(
          rewriter, init->getResult(0), /*replaceInitOperandUsesInLoop=*/false,
          [&](OpBuilder &, Location, ArrayRef<BlockArgument>) { return SmallVector<Value>{stored}; });
      if (failed(replaced))
        return report.fail("MLIR's replaceWithAdditionalYields failed on " + n);
      auto next = cast<AffineForOp>(replaced->getOperation());
      BlockArgument acc = next.getRegionIterArgs().back();
      rewriter.replaceAllUsesWith(p.load.getResult(), acc);
      rewriter.eraseOp(p.load);
      rewriter.setInsertionPointAfter(next);
      auto after = cast<AffineStoreOp>(rewriter.clone(*p.store.getOperation()));
      after.getValueMutable().assign(next.getResults().back());
      rewriter.eraseOp(p.store);
      setName(next, n);
      current = next;
    }
  }
  return AUTOSCHED_TX_OK;
}

} // extern "C"
