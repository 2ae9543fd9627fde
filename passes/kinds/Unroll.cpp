//===- Unroll.cpp - Unrolling and unroll-and-jam --------------------------===//
//
// The entry point of this kind (declared in passes/kinds/Unroll.h) and the helpers only
// it uses; what the kinds share is in passes/Transforms.h.
//
//===----------------------------------------------------------------------===//

#include "kinds/Unroll.h"
#include "Transforms.h"

#include "mlir/Dialect/Affine/Analysis/AffineAnalysis.h"
#include "mlir/Dialect/Affine/Analysis/LoopAnalysis.h"
#include "mlir/Dialect/Affine/Analysis/Utils.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/IR/AffineValueMap.h"
#include "mlir/Dialect/Affine/LoopUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <string>

using namespace mlir;
using namespace mlir::affine;
using namespace autosched;

namespace {

/// Unroll-and-jam of `loop` by `factor` interleaves each group of `factor` consecutive
/// iterations of `loop` inside its inner loops. A dependence carried by `loop` between two
/// iterations of one group is reversed when an inner component may be negative; one whose
/// distance along `loop` is at least factor * step (DependenceComponent bounds are in
/// units of the induction variable's value, not of iterations) always has its sink in a
/// later group, which runs after the source's whole group, so jamming cannot reverse it.
/// The verdict for each of `factors` (its status; reasons go to `report`, so a caller that
/// wants one reason asks about one factor): the structure and the dependences are the same
/// for every factor, only the span of a group differs.
SmallVector<int32_t> checkUnrollJamFactors(AffineForOp loop, ArrayRef<int64_t> factors,
                                           const Report &report) {
  auto all = [&](int32_t status) { return SmallVector<int32_t>(factors.size(), status); };
  // MLIR's jam treats an affine.parallel as a plain operation of the body while jamming
  // inside its region: the checks below, written for affine.for nests, do not describe
  // that (the fuzzer found wrong results after parallelize(inner); unroll(outer)).
  bool parallelInside = false;
  loop.getBody()->walk([&](AffineParallelOp) { parallelInside = true; });
  if (parallelInside)
    return all(report.refuse("unroll-and-jam of " + nameOf(loop) +
                             " through a parallel loop is not supported (unroll before "
                             "parallelizing)"));
  // Jamming places all copies of each inner loop together: with sibling loops next to a
  // loop, a copy of a later sibling would overtake an earlier one, so each body below may
  // hold one loop at most. Operations beside that loop (an accumulator's load before it and
  // its store after it, see passes/kinds/Accumulate.cpp) are copied in place, all copies
  // together: copy b's run before copy a's loop (a < b), so a dependence of theirs carried
  // within a group is refused below.
  SmallVector<Operation *> beside;
  for (AffineForOp cur = loop;;) {
    Block *body = cur.getBody();
    AffineForOp inner;
    unsigned loops = 0;
    SmallVector<Operation *> here;
    for (Operation &op : body->without_terminator()) {
      if (auto f = dyn_cast<AffineForOp>(op)) {
        ++loops;
        inner = f;
      } else if (op.getNumRegions() > 0) {
        return all(report.refuse("unroll-and-jam of " + nameOf(loop) + " needs loops and "
                                 "plain operations below it (" + nameOf(cur) + " holds an "
                                 "operation with a region beside its loop)"));
      } else if (isa<AffineReadOpInterface, AffineWriteOpInterface>(op)) {
        here.push_back(&op);
      }
    }
    if (loops == 0)
      break;
    if (loops > 1)
      return all(report.refuse("unroll-and-jam of " + nameOf(loop) + " needs one loop at "
                               "most in each body below it (" + nameOf(cur) + " holds more "
                               "than one loop)"));
    beside.append(here);
    cur = inner;
  }
  unsigned d = depthOf(loop);
  unsigned deepest = d;
  loop.walk([&](AffineForOp inner) { deepest = std::max(deepest, depthOf(inner)); });
  // The dependences do not depend on the factor: analysed once for all of them.
  auto deps = carriedDependences(loop, d + 1, deepest + 1, report);
  if (failed(deps))
    return all(AUTOSCHED_TX_REFUSED);
  // Distances along `loop` between two iterations of one group: [1, span - 1]. Jamming
  // runs such a pair in the order of the inner loops: illegal when the first non-zero
  // inner distance can be negative.
  SmallVector<int64_t> spans;
  for (int64_t factor : factors)
    spans.push_back(factor * loop.getStepAsInt());
  SmallVector<Carried> besideCarried(factors.size(), Carried::No);
  if (!beside.empty())
    besideCarried = carriedWithinSpans(
        loop, spans,
        [&](Operation *src, Operation *dst) {
          return llvm::is_contained(beside, src) || llvm::is_contained(beside, dst);
        },
        report);
  SmallVector<int32_t> out;
  for (auto [k, span] : llvm::enumerate(spans)) {
    if (besideCarried[k] == Carried::Unanalysable) {
      out.push_back(AUTOSCHED_TX_REFUSED);
      continue;
    }
    if (besideCarried[k] == Carried::Yes) {
      out.push_back(report.refuseDependence("unroll-and-jam of " + nameOf(loop) +
                                            " would reorder an access beside its inner "
                                            "loop with another iteration of its group"));
      continue;
    }
    int32_t status = AUTOSCHED_TX_OK;
    for (auto &dep : *deps) {
      SmallVector<DistanceRange> ranges{{d, 1, span - 1}};
      for (unsigned i = d + 1; i < dep.common && status == AUTOSCHED_TX_OK; ++i) {
        ranges.push_back({i, std::nullopt, -1});
        if (mayHave(dep, ranges))
          status = report.refuseDependence("unroll-and-jam of " + nameOf(loop) +
                                           " would reverse a dependence it carries");
        ranges.back() = {i, 0, 0};
      }
      if (status != AUTOSCHED_TX_OK)
        break;
    }
    out.push_back(status);
  }
  return out;
}

/// Whether unrolling `loop` by `factor` peels its partial tiles first: a bound with several
/// expressions, and a trip count not known to be a multiple of the factor.
bool needsPeeling(AffineForOp loop, int64_t factor) {
  return (loop.getLowerBoundMap().getNumResults() != 1 ||
          loop.getUpperBoundMap().getNumResults() != 1) &&
         getLargestDivisorOfTripCount(loop) % factor != 0;
}

/// The cases where MLIR's loopUnrollByFactor / loopUnrollJamByFactor give up (before
/// changing anything): refused here with the reason, so that a failure of the utility
/// remains a real failure.
LogicalResult checkUnrollPreconditions(AffineForOp loop, int64_t factor,
                                       const Report &report) {
  std::string n = nameOf(loop);
  std::optional<uint64_t> trips = tripCount(loop);
  if (trips && *trips < (uint64_t)factor)
    return report.refuse(n + " runs " + std::to_string(*trips) +
                         " iterations, fewer than the unroll factor " +
                         std::to_string(factor)),
           failure();
  // A clean-up loop is needed and a bound is a max or a min (a tiled loop's, or an
  // earlier unroll's clean-up loop): MLIR cannot express the clean-up loop's bounds. A
  // tiled loop's min goes when its partial tile is peeled (needsPeeling): the full tiles'
  // copies run a known count, at least the factor; the last tile's is left rolled when it
  // runs fewer.
  uint64_t divisor = getLargestDivisorOfTripCount(loop);
  if (needsPeeling(loop, factor)) {
    std::string why;
    if (!partialTilesPeelable({loop}, why))
      return report.refuse(n + " has a max or min bound and a trip count that is not a "
                           "known multiple of " + std::to_string(factor) +
                           " (MLIR's unroller cannot bound the clean-up loop; " + why + ")"),
             failure();
    PeeledTrips peeled = peeledTrips(loop);
    if (!peeled.full)
      return report.refuse(n + "'s full tiles do not all run the same number of "
                           "iterations: their clean-up loop cannot be bounded"),
             failure();
    if (*peeled.full < (uint64_t)factor)
      return report.refuse(n + " runs " + std::to_string(*peeled.full) +
                           " iterations per tile, fewer than the unroll factor " +
                           std::to_string(factor)),
             failure();
    divisor = *peeled.full;
  }
  // A loop carrying values whose clean-up loop may be promoted to its body (a
  // non-constant trip count): guardPromotedCleanup cannot put a body that yields values
  // under a condition.
  if (loop.getNumIterOperands() > 0 && !loop.hasConstantBounds() && divisor % factor != 0)
    return report.refuse(n + " carries a reduction through iter_args and has non-constant "
                         "bounds: its clean-up loop is not supported"),
           failure();
  if (!isInnermost(loop)) {
    // Loops inside may carry values (each copy gets its own, which MLIR's jam makes); the
    // jammed loop itself may not.
    if (loop.getNumIterOperands() > 0)
      return report.refuse("unroll-and-jam of " + n + ", which carries values through "
                           "iter_args itself, is not supported"),
             failure();
    bool invariant = true;
    loop.walk([&](AffineForOp inner) {
      for (Value v : inner.getControlOperands())
        if (!loop.isDefinedOutsideOfLoop(v))
          invariant = false;
    });
    if (!invariant)
      return report.refuse("unroll-and-jam of " + n + " needs the bounds of the loops "
                           "inside it to be invariant in " + n),
             failure();
  }
  return success();
}

/// MLIR's unrollers start the clean-up loop at lb + floor(tripCount / f) * f * step. When
/// the loop is empty for some iterations of an enclosing loop (ub < lb, e.g.
/// `affine.for %j = %i to 4` with %i > 4), the trip count is negative and that bound
/// falls below lb: the clean-up loop would run iterations the original never ran. The
/// clean-up loop's lower bound becomes max(lb, that bound). (The unrolled loop itself
/// ends at the same bound, below its lower bound, so it stays empty.)
///
/// The clean-up loop is the copy of the unrolled loop that the utility inserted after it
/// in its block (between `before` and `after`, the loop's neighbours before the call); it
/// keeps the original step where the unrolled loop's is multiplied by the factor. There
/// is none when the trip count divides by the factor, or when it was promoted (a single
/// iteration: a constant trip count, never negative).
/// MLIR promotes a clean-up loop whose trip count it finds to be 1 (`for 4 to 5` after
/// unrolling `for 3*i + 1 to 5` by 3): its body then runs unconditionally, also for the
/// outer iterations where the original loop was empty (the fuzzer found wrong results).
/// The clean-up bound is right whenever the original loop runs, so the promoted body is
/// put under `affine.if (ub - lb - 1 >= 0)` on the original bounds. Between `before` and
/// `after` (the unrolled loop's old neighbours), everything that is not a loop named
/// `name` is such a body.
void guardPromotedCleanup(Block *block, Operation *before, Operation *after, StringRef name,
                          AffineMap lbMap, ArrayRef<Value> lbOperands, AffineMap ubMap,
                          ArrayRef<Value> ubOperands) {
  auto it = before ? std::next(Block::iterator(before)) : block->begin();
  auto end = after ? Block::iterator(after) : block->end();
  SmallVector<Operation *> promoted;
  for (; it != end; ++it) {
    auto l = dyn_cast<AffineForOp>(*it);
    if (!l || nameOf(l) != name)
      promoted.push_back(&*it);
  }
  if (promoted.empty() || lbMap.getNumResults() != 1 || ubMap.getNumResults() != 1)
    return;
  // One set over (dims of ub, dims of lb, symbols of ub, symbols of lb).
  unsigned d1 = ubMap.getNumDims(), s1 = ubMap.getNumSymbols();
  unsigned d2 = lbMap.getNumDims(), s2 = lbMap.getNumSymbols();
  AffineExpr lb = lbMap.getResult(0).shiftDims(d2, d1).shiftSymbols(s2, s1);
  AffineExpr cond = ubMap.getResult(0) - lb - 1;
  SmallVector<Value> operands(ubOperands.take_front(d1));
  operands.append(lbOperands.begin(), lbOperands.begin() + d2);
  operands.append(ubOperands.begin() + d1, ubOperands.end());
  operands.append(lbOperands.begin() + d2, lbOperands.end());
  IntegerSet set = IntegerSet::get(d1 + d2, s1 + s2, {cond}, {false});
  OpBuilder b(promoted.front());
  auto guard = AffineIfOp::create(b, promoted.front()->getLoc(), set, operands,
                                  /*withElseRegion=*/false);
  Operation *terminator = guard.getThenBlock()->getTerminator();
  for (Operation *op : promoted)
    op->moveBefore(terminator);
}

void clampCleanupLowerBound(Block *block, Operation *before, Operation *after,
                            StringRef name, int64_t step, AffineMap lbMap,
                            ArrayRef<Value> lbOperands) {
  auto it = before ? std::next(Block::iterator(before)) : block->begin();
  auto end = after ? Block::iterator(after) : block->end();
  AffineForOp cleanup;
  for (; it != end; ++it)
    if (auto l = dyn_cast<AffineForOp>(*it))
      if (nameOf(l) == name && l.getStepAsInt() == step)
        cleanup = l;
  if (!cleanup)
    return;
  AffineMap cleanupMap = cleanup.getLowerBoundMap();
  SmallVector<Value> cleanupOperands(cleanup.getLowerBoundOperands());
  // One map over (dims of lb, dims of the clean-up bound, symbols of lb, symbols of the
  // clean-up bound), with one result per map: the lower bound is their max.
  unsigned d1 = lbMap.getNumDims(), s1 = lbMap.getNumSymbols();
  unsigned d2 = cleanupMap.getNumDims(), s2 = cleanupMap.getNumSymbols();
  SmallVector<AffineExpr> results(lbMap.getResults());
  for (AffineExpr e : cleanupMap.getResults())
    results.push_back(e.shiftDims(d2, d1).shiftSymbols(s2, s1));
  SmallVector<Value> operands(lbOperands.take_front(d1));
  operands.append(cleanupOperands.begin(), cleanupOperands.begin() + d2);
  operands.append(lbOperands.begin() + d1, lbOperands.end());
  operands.append(cleanupOperands.begin() + d2, cleanupOperands.end());
  AffineMap map = AffineMap::get(d1 + d2, s1 + s2, results, lbMap.getContext());
  canonicalizeMapAndOperands(&map, &operands);
  cleanup.setLowerBound(operands, map);
}

/// checkUnroll's status of a factor it did not decide.
constexpr int32_t kUnknown = -1;

/// The verdict of unrolling every loop of `loops` (all loops of one name) by each of
/// `factors`: what autosched_tx_unroll checks before it changes anything, loop by loop (the
/// first refusal decides a factor). Nothing is changed.
///
/// The jam's dependence analysis is the costly part: it runs only while the first factor is
/// still open, so asking about a factor the preconditions refuse costs no analysis; the
/// factors left undecided then are kUnknown.
SmallVector<int32_t> checkUnroll(ArrayRef<AffineForOp> loops, ArrayRef<int64_t> factors,
                                 const Report &report) {
  SmallVector<int32_t> out(factors.size(), AUTOSCHED_TX_OK);
  for (auto l : loops) {
    SmallVector<int64_t> open;
    SmallVector<size_t> where;
    for (auto [k, factor] : llvm::enumerate(factors)) {
      if (out[k] != AUTOSCHED_TX_OK)
        continue;
      if (failed(checkUnrollPreconditions(l, factor, report))) {
        out[k] = AUTOSCHED_TX_REFUSED;
        continue;
      }
      open.push_back(factor);
      where.push_back(k);
    }
    if (open.empty() || isInnermost(l))
      continue;
    if (out.front() != AUTOSCHED_TX_OK) {
      for (int32_t &status : out)
        if (status == AUTOSCHED_TX_OK)
          status = kUnknown;
      return out;
    }
    SmallVector<int32_t> jam = checkUnrollJamFactors(l, open, report);
    for (auto [i, k] : llvm::enumerate(where))
      out[k] = jam[i];
  }
  return out;
}

/// Whether `op` reads memory at most, without regions: operations of which any order that
/// respects their uses computes the same.
bool readsAtMost(Operation *op) {
  return op->getNumRegions() == 0 &&
         (isMemoryEffectFree(op) || isa<AffineReadOpInterface, memref::LoadOp>(op));
}

/// Moves `ops` (consecutive in one block, `ops.back()` before `at`) to just before `at`,
/// ordered by the first accumulator each one feeds (`key` of a use outside `ops`, none
/// for uses it does not rank; `own`: the operations that are an accumulator's, its store),
/// and otherwise as they were. Every operation stays after the
/// values it uses: it feeds no accumulator earlier than they do.
void orderByAccumulator(SmallVector<Operation *> ops, Operation *at,
                        function_ref<std::optional<unsigned>(OpOperand &)> key,
                        const DenseMap<Operation *, unsigned> *own = nullptr) {
  constexpr unsigned none = ~0u;
  DenseMap<Operation *, unsigned> first;
  for (Operation *op : llvm::reverse(ops)) {
    unsigned k = own ? own->lookup_or(op, none) : none;
    for (OpOperand &use : op->getUses()) {
      if (auto it = first.find(use.getOwner()); it != first.end())
        k = std::min(k, it->second);
      else if (std::optional<unsigned> r = key(use))
        k = std::min(k, *r);
    }
    first[op] = k;
  }
  llvm::stable_sort(ops, [&](Operation *a, Operation *b) { return first[a] < first[b]; });
  for (Operation *op : ops)
    op->moveBefore(at);
}

/// The constant subscript offsets of `store` from the store to `memref` whose access map is
/// `ref` (subscripts that differ by constants: C[i + 1][j + 3] from C[i][j]), or nothing.
std::optional<SmallVector<int64_t>> offsetsFrom(Value memref, const AffineValueMap &ref,
                                                AffineStoreOp store) {
  MemRefAccess a(store);
  if (a.memref != memref)
    return std::nullopt;
  AffineValueMap ma, diff;
  a.getAccessMap(&ma);
  if (ma.getNumResults() != ref.getNumResults())
    return std::nullopt;
  AffineValueMap::difference(ma, ref, &diff);
  SmallVector<int64_t> out;
  for (AffineExpr e : diff.getAffineMap().getResults()) {
    auto c = dyn_cast<AffineConstantExpr>(e);
    if (!c)
      return std::nullopt;
    out.push_back(c.getValue());
  }
  return out;
}

/// Puts a jammed register tile's accumulators in memory order: the iter_args `loop`
/// carries, sorted by the elements they are stored to after it, and the operations that
/// compute them (the loads before the loop, the body, the stores after it) grouped per
/// accumulator in that order. A jam appends each copy's accumulators and operations after
/// the original's, so jamming the rows and then the columns leaves C[i][j], C[i + 1][j],
/// ... side by side, and LLVM's SLP vectorizer, which bundles them in that order, built
/// its vectors across rows (4-element gathers) instead of along a row's columns:
/// batched-matmul's 8x16 tile ran at 10x the naive code jammed rows first, at 98-101x
/// columns first or rows first in this order (one run each, medians of 7, 2-core EPYC
/// Zen 4). Rows first is the order the search jams in (a cheaper legality check). Only where each
/// result is stored once, to distinct elements of one buffer at constant offsets, and the
/// operations moved read memory at most (or are those stores): any order of them computes
/// the same. Otherwise the loop is left as it is.
void orderAccumulators(AffineForOp loop) {
  unsigned n = loop.getNumIterOperands();
  if (n < 2)
    return;
  SmallVector<AffineStoreOp> stores;
  for (Value r : loop.getResults()) {
    if (!r.hasOneUse())
      return;
    auto st = dyn_cast<AffineStoreOp>(*r.getUsers().begin());
    if (!st || st.getValueToStore() != r || st->getBlock() != loop->getBlock())
      return;
    stores.push_back(st);
  }
  MemRefAccess first(stores.front());
  AffineValueMap ref;
  first.getAccessMap(&ref);
  SmallVector<SmallVector<int64_t>> keys;
  for (AffineStoreOp st : stores) {
    std::optional<SmallVector<int64_t>> k = offsetsFrom(first.memref, ref, st);
    if (!k || llvm::is_contained(keys, *k))
      return;
    keys.push_back(*k);
  }
  // What moves: the body, the operations before the loop in its block, those after it.
  Block *block = loop->getBlock();
  SmallVector<Operation *> before, after;
  for (Operation *op = &block->front(); op != loop.getOperation(); op = op->getNextNode())
    before.push_back(op);
  for (Operation *op = loop->getNextNode(); op && op != block->getTerminator();
       op = op->getNextNode())
    after.push_back(op);
  auto movable = [&](Operation *op) {
    return readsAtMost(op) || llvm::is_contained(stores, dyn_cast<AffineStoreOp>(op));
  };
  if (!llvm::all_of(before, readsAtMost) || !llvm::all_of(after, movable) ||
      !llvm::all_of(loop.getBody()->without_terminator(),
                    [](Operation &op) { return readsAtMost(&op); }))
    return;

  SmallVector<unsigned> perm;
  for (unsigned i = 0; i < n; ++i)
    perm.push_back(i);
  llvm::stable_sort(perm, [&](unsigned x, unsigned y) { return keys[x] < keys[y]; });
  if (!llvm::is_sorted(perm)) {
    OpBuilder b(loop);
    SmallVector<Value> inits;
    for (unsigned p : perm)
      inits.push_back(loop.getInits()[p]);
    auto fresh = AffineForOp::create(b, loop.getLoc(), loop.getLowerBoundOperands(),
                                     loop.getLowerBoundMap(), loop.getUpperBoundOperands(),
                                     loop.getUpperBoundMap(), loop.getStepAsInt(), inits);
    fresh->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
    Block *from = loop.getBody(), *to = fresh.getBody();
    if (!to->empty())
      to->getTerminator()->erase();
    from->getArgument(0).replaceAllUsesWith(to->getArgument(0));
    for (auto [i, p] : llvm::enumerate(perm))
      from->getArgument(1 + p).replaceAllUsesWith(to->getArgument(1 + i));
    to->getOperations().splice(to->end(), from->getOperations());
    Operation *yield = to->getTerminator();
    SmallVector<Value> yielded;
    for (unsigned p : perm)
      yielded.push_back(yield->getOperand(p));
    yield->setOperands(yielded);
    for (auto [i, p] : llvm::enumerate(perm))
      loop.getResult(p).replaceAllUsesWith(fresh.getResult(i));
    loop.erase();
    loop = fresh;
  }
  // The body by the yielded value each operation feeds; the operations before the loop by
  // the initial value; those after it by the result they store.
  Operation *yield = loop.getBody()->getTerminator();
  SmallVector<Operation *> body;
  for (Operation &op : loop.getBody()->without_terminator())
    body.push_back(&op);
  orderByAccumulator(body, yield, [&](OpOperand &use) -> std::optional<unsigned> {
    if (use.getOwner() == yield)
      return use.getOperandNumber();
    return std::nullopt;
  });
  unsigned control = loop.getNumControlOperands();
  orderByAccumulator(before, loop, [&](OpOperand &use) -> std::optional<unsigned> {
    if (use.getOwner() == loop.getOperation() && use.getOperandNumber() >= control)
      return use.getOperandNumber() - control;
    return std::nullopt;
  });
  DenseMap<Operation *, unsigned> storing;
  for (Operation *st : after)
    if (auto s = dyn_cast<AffineStoreOp>(st))
      storing[st] = cast<OpResult>(s.getValueToStore()).getResultNumber();
  orderByAccumulator(
      after, block->getTerminator(), [](OpOperand &) -> std::optional<unsigned> { return std::nullopt; },
      &storing);
}

/// Unrolls `loops` (checked) by `factor`: first peels the partial tiles they need peeled
/// (which makes copies of them); a last tile's copy that runs fewer iterations than the
/// factor stays as it is.
int32_t unrollChecked(ArrayRef<AffineForOp> checked, const char *name, int64_t factor,
                      const Report &report) {
  SmallVector<AffineForOp> loops(checked);
  if (llvm::any_of(loops, [&](AffineForOp l) { return needsPeeling(l, factor); })) {
    loops = peelAndCollect(loops.front()->getParentOfType<func::FuncOp>(), name, factor);
  }
  for (auto l : loops) {
    bool innermost = isInnermost(l);
    // What clampCleanupLowerBound needs, saved before the utility changes (or erases) l.
    Block *block = l->getBlock();
    Operation *before = l->getPrevNode(), *after = l->getNextNode();
    int64_t step = l.getStepAsInt();
    // A known trip count (constant bounds, or bounds that move together with an outer loop,
    // as a full tile's point loop `%t to %t + 8`): the loop runs that many times in every
    // outer iteration, never zero, so neither clean-up repair below applies. (Given such a
    // loop, guardPromotedCleanup took the promoted body of a full unroll for a clean-up
    // loop's and put an accumulator's yielded values under a condition: tile; accumulate;
    // unroll of the point loop did not verify.)
    bool knownTrips = tripCount(l).has_value();
    AffineMap lbMap = l.getLowerBoundMap(), ubMap = l.getUpperBoundMap();
    SmallVector<Value> lbOperands(l.getLowerBoundOperands());
    SmallVector<Value> ubOperands(l.getUpperBoundOperands());
    LogicalResult r = innermost ? loopUnrollByFactor(l, factor)
                                : loopUnrollJamByFactor(l, factor);
    if (failed(r))
      return report.fail(std::string("MLIR's ") +
                         (innermost ? "loopUnrollByFactor" : "loopUnrollJamByFactor") +
                         " could not unroll " + name + " by " + std::to_string(factor));
    if (!knownTrips) {
      clampCleanupLowerBound(block, before, after, name, step, lbMap, lbOperands);
      guardPromotedCleanup(block, before, after, name, lbMap, lbOperands, ubMap,
                           ubOperands);
    }
    // The jam's copies (and its clean-up loop's): their accumulators in memory order.
    if (!innermost) {
      SmallVector<AffineForOp> carrying;
      for (Operation *op = before ? before->getNextNode() : &block->front(); op && op != after;
           op = op->getNextNode())
        op->walk([&](AffineForOp f) {
          if (f.getNumIterOperands() >= 2)
            carrying.push_back(f);
        });
      for (AffineForOp f : carrying)
        orderAccumulators(f);
    }
  }
  return AUTOSCHED_TX_OK;
}

} // namespace

extern "C" {

int32_t autosched_tx_unroll(MlirOperation func, const char *name, int64_t factor,
                            AutoschedTxReportFn fn, void *ctx) {
  Report report{fn, ctx};
  auto f = funcOf(func);
  auto found = requireLoops(f, name, report);
  if (failed(found))
    return AUTOSCHED_TX_REFUSED;
  SmallVector<AffineForOp> loops = *found;
  if (int32_t status = checkUnroll(loops, {factor}, report).front(); status != AUTOSCHED_TX_OK)
    return status;
  return unrollChecked(loops, name, factor, report);
}

int32_t autosched_tx_unroll_check(MlirOperation func, const char *name, int64_t factor,
                                  AutoschedTxReportFn fn, void *ctx) {
  Report report{fn, ctx};
  auto found = requireLoops(funcOf(func), name, report);
  if (failed(found))
    return AUTOSCHED_TX_REFUSED;
  return checkUnroll(*found, {factor}, report).front();
}

int32_t autosched_tx_unroll_verdicts(MlirOperation func, const char *name,
                                     const int64_t *factors, size_t nFactors,
                                     int32_t *statuses) {
  Report silent{nullptr, nullptr};
  ArrayRef<int64_t> fs(factors, nFactors);
  auto found = requireLoops(funcOf(func), name, silent);
  SmallVector<int32_t> out =
      failed(found) ? SmallVector<int32_t>(nFactors, AUTOSCHED_TX_REFUSED)
                    : checkUnroll(*found, fs, silent);
  llvm::copy(out, statuses);
  return AUTOSCHED_TX_OK;
}

int32_t autosched_tx_unroll_checked(MlirOperation func, const char *name, int64_t factor,
                                    AutoschedTxReportFn fn, void *ctx) {
  Report report{fn, ctx};
  auto found = requireLoops(funcOf(func), name, report);
  if (failed(found))
    return AUTOSCHED_TX_REFUSED;
  // The preconditions are cheap and guard the utilities; the jam's dependence analysis
  // decided the verdict already.
  for (auto l : *found)
    if (failed(checkUnrollPreconditions(l, factor, report)))
      return AUTOSCHED_TX_REFUSED;
  return unrollChecked(*found, name, factor, report);
}

bool autosched_tx_unroll_is_plain(MlirOperation func, const char *name, int64_t factor) {
  auto f = funcOf(func);
  bool any = false, plain = true;
  f.walk([&](AffineForOp l) {
    if (nameOf(l) != name)
      return;
    any = true;
    std::optional<uint64_t> trips = tripCount(l);
    plain &= isInnermost(l) && l.hasConstantBounds() && trips && *trips >= (uint64_t)factor;
  });
  return any && plain;
}

} // extern "C"
