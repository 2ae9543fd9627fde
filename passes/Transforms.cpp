//===- Transforms.cpp - Thin wrappers over MLIR's affine utilities --------===//
//
// The transformation layer: Rust (src/transform.rs) decides what to apply, these
// functions check legality with MLIR's dependence analysis and apply MLIR's own loop
// utilities. Loops are found by the `autosched.loop` name tag that Rust puts on the loops
// of the function being transformed (a detached clone of the user's function).
//
// Every entry point returns AUTOSCHED_TX_OK, AUTOSCHED_TX_REFUSED (the step is illegal
// or outside what the utility supports; the reason is reported and the clone must be
// discarded) or AUTOSCHED_TX_FAILED (a utility failed after starting to change the clone).
//
// Where an MLIR utility's own check is not sound for our use, the check here is written
// over MLIR's dependence analysis (checkMemrefAccessDependence) instead:
// isValidLoopInterchangePermutation and isTilingValid read dependence components as if
// the band started at the outermost loop, and isTilingValid lets a component of exactly
// [-1, -1] through (it tiled seidel-2d illegally).
//
//===----------------------------------------------------------------------===//

#include "TransformsFFI.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Affine/IR/AffineValueMap.h"
#include "mlir/Dialect/Affine/Analysis/AffineAnalysis.h"
#include "mlir/Dialect/Affine/Analysis/LoopAnalysis.h"
#include "mlir/Dialect/Affine/Analysis/NestedMatcher.h"
#include "mlir/Dialect/Affine/Analysis/Utils.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/LoopFusionUtils.h"
#include "mlir/Dialect/Affine/LoopUtils.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Threading.h"

#include <string>

using namespace mlir;
using namespace mlir::affine;

namespace {

constexpr const char *kTag = "autosched.loop";

struct Report {
  AutoschedTxReportFn fn;
  void *ctx;
  int32_t refuse(const std::string &why) const {
    if (fn)
      fn(ctx, why.data(), why.size());
    return AUTOSCHED_TX_REFUSED;
  }
  /// A refusal that claims the step would break a dependence.
  int32_t refuseDependence(const std::string &why) const {
    if (fn)
      fn(ctx, why.data(), why.size());
    return AUTOSCHED_TX_REFUSED_DEPENDENCE;
  }
  int32_t fail(const std::string &why) const {
    if (fn)
      fn(ctx, why.data(), why.size());
    return AUTOSCHED_TX_FAILED;
  }
};


std::string nameOf(Operation *op) {
  if (auto a = op->getAttrOfType<StringAttr>(kTag))
    return a.str();
  return "";
}

void setName(Operation *op, StringRef name) {
  op->setAttr(kTag, StringAttr::get(op->getContext(), name));
}

func::FuncOp funcOf(MlirOperation op) {
  return dyn_cast_or_null<func::FuncOp>(unwrap(op));
}

/// All affine.for loops carrying `name`, in pre-order.
SmallVector<AffineForOp> loopsNamed(func::FuncOp f, StringRef name) {
  SmallVector<AffineForOp> out;
  f.walk<WalkOrder::PreOrder>([&](AffineForOp l) {
    if (nameOf(l) == name)
      out.push_back(l);
  });
  return out;
}

/// The loops named `name`, or a refusal when there are none.
FailureOr<SmallVector<AffineForOp>> requireLoops(func::FuncOp f, StringRef name,
                                                 const Report &report) {
  auto loops = loopsNamed(f, name);
  if (loops.empty())
    return report.refuse("no loop named " + name.str() + " in the function"), failure();
  return loops;
}

/// True when no loop (affine.for, affine.parallel) or conditional is nested in `l`.
bool isInnermost(AffineForOp l) {
  bool innermost = true;
  l.getBody()->walk([&](Operation *op) {
    if (isa<AffineForOp, AffineParallelOp, AffineIfOp>(op))
      innermost = false;
  });
  return innermost;
}

std::string joined(ArrayRef<std::string> names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    s += (i ? ", " : "") + names[i];
  return s;
}

/// Every perfectly nested band whose loops carry exactly `names` (as a set), one per copy.
/// The band is returned outermost first.
FailureOr<SmallVector<SmallVector<AffineForOp>>>
findBands(func::FuncOp f, ArrayRef<std::string> names, const Report &report) {
  llvm::StringSet<> wanted;
  for (auto &n : names)
    wanted.insert(n);
  SmallVector<SmallVector<AffineForOp>> bands;
  std::string problem;
  f.walk<WalkOrder::PreOrder>([&](AffineForOp l) {
    if (!wanted.contains(nameOf(l)))
      return;
    if (auto parent = l->getParentOfType<AffineForOp>())
      if (wanted.contains(nameOf(parent)))
        return; // not the top of a band
    SmallVector<AffineForOp> band{l};
    while (band.size() < names.size()) {
      Block *body = band.back().getBody();
      auto inner = dyn_cast<AffineForOp>(body->front());
      if (!inner || std::next(body->begin()) == body->end() ||
          !isa<AffineYieldOp>(*std::next(body->begin()))) {
        problem = "the loops " + joined(names) +
                  " do not form a perfectly nested band: " + nameOf(band.back()) +
                  " holds more than one loop";
        return;
      }
      band.push_back(inner);
    }
    llvm::StringSet<> got;
    for (auto b : band)
      got.insert(nameOf(b));
    for (auto &n : names)
      if (!got.contains(n)) {
        problem = "the loops " + joined(names) +
                  " do not form a perfectly nested band below " + nameOf(l);
        return;
      }
    bands.push_back(band);
  });
  if (!problem.empty())
    return report.refuse(problem), failure();
  if (bands.empty())
    return report.refuse("no loop named " + names.front() + " in the function"),
           failure();
  return bands;
}

/// Refuses bands whose bounds depend on one another (non-rectangular).
LogicalResult checkRectangular(ArrayRef<AffineForOp> band, const Report &report) {
  for (auto inner : band)
    for (auto operand : inner->getOperands())
      for (auto outer : band)
        if (outer != inner && operand == outer.getInductionVar())
          return report.refuse("the bounds of " + nameOf(inner) + " depend on " +
                               nameOf(outer) + " (the band is not rectangular)"),
                 failure();
  return success();
}

/// Refuses bands holding a loop that carries values (a reduction through iter_args):
/// MLIR's permuteLoops and tilePerfectlyNested move loop bodies, not the values a loop
/// yields, and reordering the iterations of a reduction reassociates it.
LogicalResult checkNoIterArgs(ArrayRef<AffineForOp> band, StringRef what,
                              const Report &report) {
  for (auto l : band)
    if (l.getNumIterOperands() > 0)
      return report.refuse(what.str() + " of " + nameOf(l) +
                           ", a reduction through iter_args, is not supported"),
             failure();
  return success();
}

/// One dependence between two accesses: the polyhedron of the (source, sink) iteration
/// pairs that touch the same element with the source first (as MLIR's
/// checkMemrefAccessDependence builds it, with its ordering constraints for the carrying
/// depth). Columns: source ivs, sink ivs, symbols, locals, constant. The distance along the
/// loop at absolute position k (k < common) is column `source + k` minus column k.
struct Dependence {
  /// The polyhedron is a union of pieces: one per choice of the expression that attains a
  /// `max` lower bound of a loop with a step (see addStrides); usually one.
  SmallVector<presburger::IntegerPolyhedron, 1> pieces;
  unsigned source;
  unsigned common;
};

/// A range for the distance along the loop at absolute position `loop` (in values of its
/// induction variable; an unset end is unbounded).
struct DistanceRange {
  unsigned loop;
  std::optional<int64_t> lo, hi;
};

/// Whether some instance of `dep` has every distance in the given ranges. Asked as an
/// integer emptiness question rather than read from direction vectors: MLIR's direction
/// vectors come from Fourier-Motzkin projections, which blow up on deep tiled nests with
/// strides (minutes on an 8-deep nest) and lose precision (ranges of each component
/// separately); emptiness is exact and fast on these systems.
bool mayHave(const Dependence &dep, ArrayRef<DistanceRange> ranges) {
  for (const presburger::IntegerPolyhedron &piece : dep.pieces) {
    presburger::IntegerPolyhedron c(piece);
    unsigned cols = c.getNumCols();
    bool beyond = false;
    for (const DistanceRange &r : ranges) {
      if (r.loop >= dep.common) {
        beyond = true; // beyond the common loops there is no distance to constrain
        break;
      }
      SmallVector<int64_t> row(cols, 0);
      if (r.lo) { // sink - source - lo >= 0
        row[dep.source + r.loop] = 1;
        row[r.loop] = -1;
        row[cols - 1] = -*r.lo;
        c.addInequality(row);
      }
      if (r.hi) { // hi - sink + source >= 0
        std::fill(row.begin(), row.end(), 0);
        row[dep.source + r.loop] = -1;
        row[r.loop] = 1;
        row[cols - 1] = *r.hi;
        c.addInequality(row);
      }
    }
    if (beyond)
      return false;
    if (!c.isIntegerEmpty())
      return true;
  }
  return false;
}

/// Adds to a dependence polyhedron the strides MLIR leaves out. MLIR's iteration domains
/// say `iv = lb + step * q` only for a constant single-expression lower bound; for a loop
/// whose lower bound moves with an outer loop (a tile's point loop, a triangular loop with
/// a step) or is a `max` (a clean-up loop after unrolling such a loop), the domain holds
/// iterations that never run, and a dependence through them is spurious (an interchange
/// across such a loop was refused although the same loop at unit step was accepted).
/// `ivs` are the loops around one access, whose ivs are the columns from `offset` on.
///
/// A `max` lower bound is attained by one of its expressions: the polyhedron becomes a
/// union, one piece per expression `e` (`e >= every other expression`, `iv = e + step * q`).
/// A bound with floordiv/mod, or operands that are not enclosing ivs, is left as it is
/// (over-approximated, so still sound), as are loops beyond `kMaxPieces` pieces.
constexpr unsigned kMaxPieces = 16;

void addStrides(SmallVectorImpl<presburger::IntegerPolyhedron> &pieces, ArrayRef<Value> ivs,
                unsigned offset) {
  for (unsigned j = 0; j < ivs.size(); ++j) {
    // The loop's step and lower bound: an affine.for, or one dimension of an
    // affine.parallel (whose domains MLIR builds without strides at all).
    int64_t step;
    AffineMap lb;
    SmallVector<Value> lbOperands;
    if (AffineForOp l = getForInductionVarOwner(ivs[j])) {
      if (l.hasConstantLowerBound())
        continue; // MLIR's domain has the stride already
      step = l.getStepAsInt();
      lb = l.getLowerBoundMap();
      lbOperands.assign(l.getLowerBoundOperands().begin(), l.getLowerBoundOperands().end());
    } else if (AffineParallelOp p = getAffineParallelInductionVarOwner(ivs[j])) {
      unsigned dim = llvm::find(p.getIVs(), ivs[j]) - p.getIVs().begin();
      step = p.getSteps()[dim];
      lb = p.getLowerBoundMap(dim);
      lbOperands.assign(p.getLowerBoundsOperands().begin(), p.getLowerBoundsOperands().end());
    } else {
      continue;
    }
    unsigned n = lb.getNumResults();
    if (step == 1 || n == 0 || pieces.size() * n > kMaxPieces)
      continue;
    // The column of each operand: it must be the iv of an enclosing loop.
    SmallVector<unsigned> cols;
    for (Value operand : lbOperands) {
      auto it = llvm::find(ivs.take_front(j), operand);
      if (it == ivs.begin() + j)
        break;
      cols.push_back(offset + (it - ivs.begin()));
    }
    if (cols.size() != lb.getNumInputs())
      continue;
    SmallVector<SmallVector<int64_t>> flat(n);
    bool linear = true;
    for (unsigned r = 0; r < n && linear; ++r)
      linear = succeeded(getFlattenedAffineExpr(lb.getResult(r), lb.getNumDims(),
                                                lb.getNumSymbols(), &flat[r])) &&
               flat[r].size() == lb.getNumInputs() + 1;
    if (!linear)
      continue; // floordiv/mod in the bound
    SmallVector<presburger::IntegerPolyhedron, 1> next;
    for (const presburger::IntegerPolyhedron &piece : pieces)
      for (unsigned k = 0; k < n; ++k) {
        presburger::IntegerPolyhedron rel(piece);
        unsigned q = rel.appendVar(presburger::VarKind::Local);
        unsigned width = rel.getNumCols();
        // Expression k attains the max: e_k - e_i >= 0 for every other i.
        for (unsigned i = 0; i < n; ++i) {
          if (i == k)
            continue;
          SmallVector<int64_t> row(width, 0);
          for (unsigned c = 0; c < cols.size(); ++c)
            row[cols[c]] += flat[k][c] - flat[i][c];
          row.back() = flat[k].back() - flat[i].back();
          rel.addInequality(row);
        }
        // iv - e_k(outer ivs) - step * q = 0, q a new local variable.
        SmallVector<int64_t> row(width, 0);
        row[offset + j] = 1;
        for (unsigned c = 0; c < cols.size(); ++c)
          row[cols[c]] -= flat[k][c];
        row[q] = -step;
        row.back() = -flat[k].back();
        rel.addEquality(row);
        next.push_back(std::move(rel));
      }
    pieces = std::move(next);
  }
}

/// MLIR's dependence test, made exact: the polyhedron checkMemrefAccessDependence builds
/// for `src` before `dst` carried at `depth` (1-based), with the strides it leaves out
/// (`addStrides`), tested for integer emptiness (MLIR's own test is a Fourier-Motzkin
/// projection, which reports dependences that have no integer solution: a loop was
/// refused as not parallel for a dependence that never happens). Empty when there is
/// none; failure when MLIR cannot build the polyhedron.
///
/// Deciding emptiness costs a Simplex run per pair; callers that go on to ask `mayHave`
/// questions (which decide exactly anyway) pass `decide = false` and get the polyhedron
/// whenever MLIR reports a dependence.
FailureOr<std::optional<Dependence>> exactDependence(Operation *src, Operation *dst,
                                                     unsigned depth, bool decide) {
  MemRefAccess a(src), b(dst);
  FlatAffineValueConstraints poly;
  DependenceResult r = checkMemrefAccessDependence(a, b, depth, &poly, nullptr);
  if (r.value == DependenceResult::Failure)
    return failure();
  if (r.value == DependenceResult::NoDependence)
    return std::optional<Dependence>();
  // The source's ivs are the first columns: as many as its iteration domain has.
  SmallVector<Value> srcIvs, dstIvs;
  getAffineIVs(*src, srcIvs);
  getAffineIVs(*dst, dstIvs);
  presburger::IntegerRelation rel(presburger::PresburgerSpace::getRelationSpace());
  if (failed(a.getAccessRelation(rel)) || rel.getNumDomainVars() != srcIvs.size())
    return failure(); // an iteration domain that is not just the loops
  unsigned source = srcIvs.size();
  SmallVector<presburger::IntegerPolyhedron, 1> pieces{presburger::IntegerPolyhedron(poly)};
  addStrides(pieces, srcIvs, 0);
  addStrides(pieces, dstIvs, source);
  if (decide && llvm::all_of(pieces, [](const presburger::IntegerPolyhedron &p) {
        return p.isIntegerEmpty();
      }))
    return std::optional<Dependence>();
  return std::optional<Dependence>(
      Dependence{std::move(pieces), source, getNumCommonSurroundingLoops(*src, *dst)});
}

/// The accesses inside `root`, or a refusal when an operation with memory effects the
/// analysis cannot see (a call, a vector transfer, a non-affine access) is among them.
FailureOr<SmallVector<Operation *>> accessesIn(Operation *root, const Report &report) {
  SmallVector<Operation *> accesses;
  bool opaque = false;
  root->walk([&](Operation *op) {
    if (isa<AffineReadOpInterface, AffineWriteOpInterface>(op))
      accesses.push_back(op);
    else if (!isa<AffineForOp, AffineParallelOp, AffineIfOp, AffineYieldOp, AffineApplyOp>(op) &&
             !isMemoryEffectFree(op))
      opaque = true;
  });
  if (opaque)
    return report.refuse("an operation with unknown memory effects prevents the "
                         "dependence check"),
           failure();
  return accesses;
}

/// The dependences carried inside `root` at absolute loop depths [firstDepth, lastDepth]
/// (1-based, as checkMemrefAccessDependence counts; lastDepth one past the deepest loop
/// means loop-independent), one polyhedron per pair of accesses and depth.
FailureOr<std::vector<Dependence>>
carriedDependences(Operation *root, unsigned firstDepth, unsigned lastDepth,
                   const Report &report) {
  auto accesses = accessesIn(root, report);
  if (failed(accesses))
    return failure();
  std::vector<Dependence> deps;
  for (auto *src : *accesses)
    for (auto *dst : *accesses) {
      if (MemRefAccess(src).memref != MemRefAccess(dst).memref ||
          (!isa<AffineWriteOpInterface>(src) && !isa<AffineWriteOpInterface>(dst)))
        continue;
      for (unsigned d = firstDepth; d <= lastDepth; ++d) {
        auto dep = exactDependence(src, dst, d, /*decide=*/false);
        if (failed(dep))
          return report.refuse("MLIR's dependence analysis could not analyse the "
                               "accesses in " + nameOf(root)),
                 failure();
        if (*dep)
          deps.push_back(std::move(**dep));
      }
    }
  return deps;
}

/// Whether `loop` carries a dependence (MLIR's isLoopParallel asks the same question
/// with its inexact emptiness test): a refusal names the loop, with the status that says
/// which kind of refusal it is.
int32_t checkParallel(AffineForOp loop, StringRef name, const Report &report) {
  if (loop.getNumIterOperands() > 0)
    return report.refuseDependence(
        name.str() + " carries a reduction through iter_args (running its iterations at "
                     "once would reassociate it)");
  unsigned d = getNestingDepth(loop) + 1;
  auto accesses = accessesIn(loop, report);
  if (failed(accesses))
    return AUTOSCHED_TX_REFUSED;
  for (auto *src : *accesses)
    for (auto *dst : *accesses) {
      if (MemRefAccess(src).memref != MemRefAccess(dst).memref ||
          (!isa<AffineWriteOpInterface>(src) && !isa<AffineWriteOpInterface>(dst)))
        continue;
      auto dep = exactDependence(src, dst, d, /*decide=*/true);
      if (failed(dep))
        return report.refuse("MLIR's dependence analysis could not analyse the accesses in " +
                             name.str());
      if (*dep)
        return report.refuseDependence(name.str() + " carries a dependence");
    }
  return AUTOSCHED_TX_OK;
}

unsigned depthOf(AffineForOp l) { return getNestingDepth(l); }

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

/// Vectorizing `loop` by `width` runs each group of `width` consecutive iterations as one:
/// every operation of the body at once over its lanes, in the body's order. A dependence
/// carried by the loop keeps its order when its sink is in a later group (a distance of
/// at least width * step) or when its source operation comes before its sink operation in
/// the body (the source's vector operation runs first, over all lanes: A[i] = ..; .. =
/// A[i - 1] stays right). A source at or after its sink in the body, at a distance below
/// the group's span, would be reordered or run in the same vector operation.
int32_t checkVectorize(AffineForOp loop, int64_t width, StringRef name, const Report &report) {
  if (loop.getNumIterOperands() > 0)
    return checkParallel(loop, name, report); // the reduction's refusal
  unsigned pos = depthOf(loop);
  auto accesses = accessesIn(loop, report);
  if (failed(accesses))
    return AUTOSCHED_TX_REFUSED;
  const int64_t span = width * loop.getStepAsInt();
  for (auto *src : *accesses)
    for (auto *dst : *accesses) {
      if (MemRefAccess(src).memref != MemRefAccess(dst).memref ||
          (!isa<AffineWriteOpInterface>(src) && !isa<AffineWriteOpInterface>(dst)))
        continue;
      // An innermost loop: every access is an operation of its body.
      if (src != dst && src->getBlock() == dst->getBlock() && src->isBeforeInBlock(dst))
        continue;
      auto dep = exactDependence(src, dst, pos + 1, /*decide=*/false);
      if (failed(dep))
        return report.refuse("MLIR's dependence analysis could not analyse the accesses in " +
                             name.str());
      if (*dep && mayHave(**dep, {{pos, 1, span - 1}}))
        return report.refuseDependence(
            name.str() + " carries a dependence shorter than " + std::to_string(width) +
            " iterations from an operation to one before it in the body (or to itself)");
    }
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

/// Unroll-and-jam of `loop` by `factor` interleaves each group of `factor` consecutive
/// iterations of `loop` inside its inner loops. A dependence carried by `loop` between two
/// iterations of one group is reversed when an inner component may be negative; one whose
/// distance along `loop` is at least factor * step (DependenceComponent bounds are in
/// units of the induction variable's value, not of iterations) always has its sink in a
/// later group, which runs after the source's whole group, so jamming cannot reverse it.
int32_t checkUnrollJam(AffineForOp loop, int64_t factor, const Report &report) {
  // MLIR's jam treats an affine.parallel as a plain operation of the body while jamming
  // inside its region: the checks below, written for affine.for nests, do not describe
  // that (the fuzzer found wrong results after parallelize(inner); unroll(outer)).
  bool parallelInside = false;
  loop.getBody()->walk([&](AffineParallelOp) { parallelInside = true; });
  if (parallelInside)
    return report.refuse("unroll-and-jam of " + nameOf(loop) +
                         " through a parallel loop is not supported (unroll before "
                         "parallelizing)");
  // Jamming places all copies of each inner loop together: with sibling loops or
  // statements next to a loop, a copy of a later sibling would overtake an earlier one.
  // Only perfect nests, where every statement is in the innermost body, are accepted.
  for (AffineForOp cur = loop;;) {
    Block *body = cur.getBody();
    bool hasLoop = false;
    unsigned ops = 0;
    for (Operation &op : body->without_terminator()) {
      ++ops;
      hasLoop |= isa<AffineForOp>(op);
    }
    if (!hasLoop)
      break;
    if (ops != 1)
      return report.refuse("unroll-and-jam of " + nameOf(loop) + " needs a perfect nest "
                           "below it (" + nameOf(cur) + " holds more than one loop or "
                           "statements beside a loop)");
    cur = cast<AffineForOp>(body->front());
  }
  unsigned d = depthOf(loop);
  unsigned deepest = d;
  loop.walk([&](AffineForOp inner) { deepest = std::max(deepest, depthOf(inner)); });
  auto deps = carriedDependences(loop, d + 1, deepest + 1, report);
  if (failed(deps))
    return AUTOSCHED_TX_REFUSED;
  // Distances along `loop` between two iterations of one group: [1, span - 1]. Jamming
  // runs such a pair in the order of the inner loops: illegal when the first non-zero
  // inner distance can be negative.
  const int64_t span = factor * loop.getStepAsInt();
  for (auto &dep : *deps) {
    SmallVector<DistanceRange> ranges{{d, 1, span - 1}};
    for (unsigned i = d + 1; i < dep.common; ++i) {
      ranges.push_back({i, std::nullopt, -1});
      if (mayHave(dep, ranges)) {
        return report.refuseDependence("unroll-and-jam of " + nameOf(loop) +
                                              " would reverse a dependence it carries");
      }
      ranges.back() = {i, 0, 0};
    }
  }
  return AUTOSCHED_TX_OK;
}

/// The cases where MLIR's loopUnrollByFactor / loopUnrollJamByFactor give up (before
/// changing anything): refused here with the reason, so that a failure of the utility
/// remains a real failure.
LogicalResult checkUnrollPreconditions(AffineForOp loop, int64_t factor,
                                       const Report &report) {
  std::string n = nameOf(loop);
  std::optional<uint64_t> trips = getConstantTripCount(loop);
  if (trips && *trips < (uint64_t)factor)
    return report.refuse(n + " runs " + std::to_string(*trips) +
                         " iterations, fewer than the unroll factor " +
                         std::to_string(factor)),
           failure();
  // A clean-up loop is needed and a bound is a max or a min (a tiled loop's, or an
  // earlier unroll's clean-up loop): MLIR cannot express the clean-up loop's bounds.
  if ((loop.getLowerBoundMap().getNumResults() != 1 ||
       loop.getUpperBoundMap().getNumResults() != 1) &&
      getLargestDivisorOfTripCount(loop) % factor != 0)
    return report.refuse(n + " has a max or min bound and a trip count that is not a "
                         "known multiple of " + std::to_string(factor) +
                         " (MLIR's unroller cannot bound the clean-up loop)"),
           failure();
  // A loop carrying values whose clean-up loop may be promoted to its body (a
  // non-constant trip count): guardPromotedCleanup cannot put a body that yields values
  // under a condition.
  if (loop.getNumIterOperands() > 0 && !loop.hasConstantBounds() &&
      getLargestDivisorOfTripCount(loop) % factor != 0)
    return report.refuse(n + " carries a reduction through iter_args and has non-constant "
                         "bounds: its clean-up loop is not supported"),
           failure();
  if (!isInnermost(loop)) {
    bool carries = false;
    loop.walk([&](AffineForOp inner) { carries |= inner.getNumIterOperands() > 0; });
    if (carries)
      return report.refuse("unroll-and-jam of " + n + " through a reduction carried by "
                           "iter_args is not supported"),
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

} // namespace

extern "C" {

MlirOperation autosched_tx_clone(MlirOperation func) {
  return wrap(unwrap(func)->clone());
}

void autosched_tx_destroy(MlirOperation op) { unwrap(op)->destroy(); }

int32_t autosched_tx_verify(MlirOperation func, AutoschedTxReportFn fn, void *ctx) {
  Report report{fn, ctx};
  // The verifier's diagnostics become the report. Handlers are shared by every thread of
  // the context: diagnostics that other threads emit meanwhile (mlir-opt runs the pass
  // on several functions at once) are passed on untouched, not swallowed.
  const uint64_t self = llvm::get_threadid();
  std::string first;
  ScopedDiagnosticHandler capture(unwrap(func)->getContext(), [&](Diagnostic &d) {
    if (llvm::get_threadid() != self)
      return failure();
    if (first.empty())
      first = d.str();
    return success();
  });
  if (failed(mlir::verify(unwrap(func))))
    return report.fail("the transformed function does not verify: " + first);
  return AUTOSCHED_TX_OK;
}

void autosched_tx_strip_tags(MlirOperation func) {
  unwrap(func)->walk([](Operation *op) { op->removeAttr(kTag); });
}

void autosched_tx_commit(MlirOperation original, MlirOperation clone) {
  auto f = cast<func::FuncOp>(unwrap(original));
  auto c = cast<func::FuncOp>(unwrap(clone));
  c.walk([](Operation *op) { op->removeAttr(kTag); });
  f.getBody().takeBody(c.getBody());
  c->destroy();
}

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

int32_t autosched_tx_unroll(MlirOperation func, const char *name, int64_t factor,
                            AutoschedTxReportFn fn, void *ctx) {
  Report report{fn, ctx};
  auto f = funcOf(func);
  auto found = requireLoops(f, name, report);
  if (failed(found))
    return AUTOSCHED_TX_REFUSED;
  SmallVector<AffineForOp> loops = *found;
  for (auto l : loops) {
    if (failed(checkUnrollPreconditions(l, factor, report)))
      return AUTOSCHED_TX_REFUSED;
    if (!isInnermost(l))
      if (int32_t status = checkUnrollJam(l, factor, report); status != AUTOSCHED_TX_OK)
        return status;
  }
  for (auto l : loops) {
    bool innermost = isInnermost(l);
    // What clampCleanupLowerBound needs, saved before the utility changes (or erases) l.
    Block *block = l->getBlock();
    Operation *before = l->getPrevNode(), *after = l->getNextNode();
    int64_t step = l.getStepAsInt();
    bool constantBounds = l.hasConstantBounds();
    AffineMap lbMap = l.getLowerBoundMap(), ubMap = l.getUpperBoundMap();
    SmallVector<Value> lbOperands(l.getLowerBoundOperands());
    SmallVector<Value> ubOperands(l.getUpperBoundOperands());
    LogicalResult r = innermost ? loopUnrollByFactor(l, factor)
                                : loopUnrollJamByFactor(l, factor);
    if (failed(r))
      return report.fail(std::string("MLIR's ") +
                         (innermost ? "loopUnrollByFactor" : "loopUnrollJamByFactor") +
                         " could not unroll " + name + " by " + std::to_string(factor));
    if (!constantBounds) {
      clampCleanupLowerBound(block, before, after, name, step, lbMap, lbOperands);
      guardPromotedCleanup(block, before, after, name, lbMap, lbOperands, ubMap,
                           ubOperands);
    }
  }
  return AUTOSCHED_TX_OK;
}

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

int32_t autosched_tx_vectorize(MlirOperation func, const char *name, int64_t width,
                               AutoschedTxReportFn fn, void *ctx) {
  Report report{fn, ctx};
  auto f = funcOf(func);
  auto found = requireLoops(f, name, report);
  if (failed(found))
    return AUTOSCHED_TX_REFUSED;
  SmallVector<AffineForOp> loops = *found;
  std::string n(name);
  // NestedPattern allocates in a (thread-local) arena that must be set up first.
  NestedPatternContext patternArena;
  for (auto l : loops) {
    if (!isInnermost(l))
      return report.refuse(n + " is not an innermost loop");
    if (l.getStepAsInt() != 1)
      return report.refuse(n + " has a step other than 1");
    // The super-vectorizer emits no remainder loop: a trip count that is not a known
    // multiple of the width would silently skip or overrun iterations.
    std::optional<uint64_t> trips = getConstantTripCount(l);
    if (!trips)
      return report.refuse(n + " has no constant trip count (the vectorizer makes no "
                               "remainder loop)");
    if (*trips % width != 0)
      return report.refuse(n + " runs " + std::to_string(*trips) +
                           " iterations, not a multiple of " + std::to_string(width) +
                           " (the vectorizer makes no remainder loop)");
    if (int32_t status = checkVectorize(l, width, n, report); status != AUTOSCHED_TX_OK)
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
  for (auto l : loops) {
    // The vectorizer replaces the loop in place: the new loop is the one right before the
    // old loop's next operation (a position counted from the block's start is not enough:
    // the vectorizer may hoist new operations, a broadcast of an outer induction variable,
    // to the front of the block, and the name went to the loop's previous sibling; found
    // by the fuzzer).
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
  }
  return AUTOSCHED_TX_OK;
}

int32_t autosched_tx_distribute(MlirOperation func, const char *name,
                                AutoschedTxReportFn fn, void *ctx) {
  Report report{fn, ctx};
  auto f = funcOf(func);
  auto found = requireLoops(f, name, report);
  if (failed(found))
    return AUTOSCHED_TX_REFUSED;
  std::string n(name);
  // Every copy of the loop is planned (and checked) before any is changed, so that a
  // refusal leaves the clone as it was.
  struct Plan {
    AffineForOp loop;
    SmallVector<unsigned> partOf; // per operation of the body, without the terminator
    unsigned parts;
  };
  SmallVector<Plan> plans;
  for (AffineForOp l : *found) {
    if (l.getNumIterOperands() > 0)
      return report.refuse(n + " carries a reduction through iter_args: its iterations "
                               "cannot be split into parts");
    Block *body = l.getBody();
    SmallVector<Operation *> ops;
    for (Operation &op : body->without_terminator())
      ops.push_back(&op);
    // The parts are the children the representation sees: loops and stores. The pure
    // operations before a child (its loads and arithmetic) go with it.
    SmallVector<unsigned> partOf(ops.size(), 0);
    unsigned parts = 0;
    SmallVector<unsigned> pending;
    for (unsigned i = 0; i < ops.size(); ++i) {
      Operation *op = ops[i];
      bool child = isa<AffineForOp, AffineParallelOp, AffineWriteOpInterface>(op);
      if (!child && !isa<AffineReadOpInterface>(op) && !isMemoryEffectFree(op))
        return report.refuse(n + " holds an operation that distribution does not handle ('" +
                             op->getName().getStringRef().str() + "')");
      if (!child) {
        pending.push_back(i);
        continue;
      }
      for (unsigned p : pending)
        partOf[p] = parts;
      pending.clear();
      partOf[i] = parts++;
    }
    if (parts < 2)
      return report.refuse(n + " holds a single loop or statement: nothing to distribute");
    for (unsigned p : pending)
      partOf[p] = parts - 1;
    // A value used by two parts would have to be computed twice (a load, maybe at another
    // time): not done.
    DenseMap<Operation *, unsigned> position;
    for (unsigned i = 0; i < ops.size(); ++i)
      position[ops[i]] = i;
    for (unsigned i = 0; i < ops.size(); ++i)
      for (Value v : ops[i]->getResults())
        for (Operation *user : v.getUsers()) {
          Operation *top = body->findAncestorOpInBlock(*user);
          auto it = top ? position.find(top) : position.end();
          if (it == position.end() || partOf[it->second] != partOf[i])
            return report.refuse(n + " cannot be distributed: a value computed for one of its "
                                     "statements is used by another");
        }
    // Distribution runs every iteration of an earlier part before any of a later one: it
    // is legal when no later part, at one iteration of the loop, touches memory that an
    // earlier part touches at a later iteration (a dependence carried by the loop from a
    // later part to an earlier one), one of the two accesses writing.
    SmallVector<SmallVector<Operation *>> accesses(parts);
    bool opaque = false;
    for (unsigned i = 0; i < ops.size(); ++i)
      ops[i]->walk([&](Operation *op) {
        if (isa<AffineReadOpInterface, AffineWriteOpInterface>(op))
          accesses[partOf[i]].push_back(op);
        else if (!isa<AffineForOp, AffineParallelOp, AffineIfOp, AffineYieldOp, AffineApplyOp>(op) &&
                 !isMemoryEffectFree(op))
          opaque = true;
      });
    if (opaque)
      return report.refuse("an operation with unknown memory effects prevents the "
                           "dependence check of " + n);
    unsigned depth = getNestingDepth(l) + 1;
    for (unsigned later = 1; later < parts; ++later)
      for (unsigned earlier = 0; earlier < later; ++earlier)
        for (Operation *src : accesses[later])
          for (Operation *dst : accesses[earlier]) {
            if (!isa<AffineWriteOpInterface>(src) && !isa<AffineWriteOpInterface>(dst))
              continue;
            if (MemRefAccess(src).memref != MemRefAccess(dst).memref)
              continue;
            auto dep = exactDependence(src, dst, depth, /*decide=*/true);
            if (failed(dep))
              return report.refuse("MLIR's dependence analysis could not analyse the "
                                   "accesses in " + n);
            if (*dep)
              return report.refuseDependence(
                  "distributing " + n + " would reverse a dependence: part " +
                  std::to_string(later) + " accesses at one iteration what part " +
                  std::to_string(earlier) + " accesses at a later one");
          }
    plans.push_back({l, partOf, parts});
  }
  for (Plan &plan : plans) {
    SmallVector<AffineForOp> copies{plan.loop};
    OpBuilder b(plan.loop->getContext());
    for (unsigned k = 1; k < plan.parts; ++k) {
      b.setInsertionPointAfter(copies.back());
      copies.push_back(cast<AffineForOp>(b.clone(*plan.loop)));
    }
    for (unsigned k = 0; k < plan.parts; ++k) {
      SmallVector<Operation *> ops;
      for (Operation &op : copies[k].getBody()->without_terminator())
        ops.push_back(&op);
      // Users come after their values, and parts share no values: erasing backwards
      // erases every user before its definition.
      for (unsigned i = ops.size(); i-- > 0;)
        if (plan.partOf[i] != k)
          ops[i]->erase();
      setName(copies[k], n + ".d" + std::to_string(k));
    }
  }
  return AUTOSCHED_TX_OK;
}

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
