//===- Transforms.cpp - Thin wrappers over MLIR's affine utilities --------===//
//
// The transformation layer: Rust (src/schedule/kinds/) decides what to apply, these
// functions check legality with MLIR's dependence analysis and apply MLIR's own loop
// utilities. Loops are found by the `autosched.loop` name tag that Rust puts on the loops
// of the function being transformed (a detached clone of the user's function).
//
// This file holds what the kinds share (declared, with its documentation, in
// passes/Transforms.h) and the transaction entries; each kind's entry point is in
// passes/kinds/<Kind>.cpp.
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

#include "Transforms.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Affine/Analysis/AffineAnalysis.h"
#include "mlir/Dialect/Affine/Analysis/LoopAnalysis.h"
#include "mlir/Dialect/Affine/Analysis/Utils.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/IR/AffineValueMap.h"
#include "mlir/Dialect/Affine/LoopUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Threading.h"

#include <limits>
#include <string>

using namespace mlir;
using namespace mlir::affine;

namespace autosched {

namespace {

constexpr const char *kTag = "autosched.loop";

} // namespace

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

SmallVector<AffineForOp> loopsNamed(func::FuncOp f, StringRef name) {
  SmallVector<AffineForOp> out;
  f.walk<WalkOrder::PreOrder>([&](AffineForOp l) {
    if (nameOf(l) == name)
      out.push_back(l);
  });
  return out;
}

FailureOr<SmallVector<AffineForOp>> requireLoops(func::FuncOp f, StringRef name,
                                                 const Report &report) {
  auto loops = loopsNamed(f, name);
  if (loops.empty())
    return report.refuse("no loop named " + name.str() + " in the function"), failure();
  return loops;
}

bool isInnermost(AffineForOp l) {
  bool innermost = true;
  l.getBody()->walk([&](Operation *op) {
    if (isa<AffineForOp, AffineParallelOp, AffineIfOp>(op))
      innermost = false;
  });
  return innermost;
}

std::optional<uint64_t> tripCount(AffineForOp l) {
  std::optional<uint64_t> trips = getConstantTripCount(l);
  if (trips && *trips > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return 0;
  return trips;
}

std::string joined(ArrayRef<std::string> names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    s += (i ? ", " : "") + names[i];
  return s;
}

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

LogicalResult checkNoIterArgs(ArrayRef<AffineForOp> band, StringRef what,
                              const Report &report) {
  for (auto l : band)
    if (l.getNumIterOperands() > 0)
      return report.refuse(what.str() + " of " + nameOf(l) +
                           ", a reduction through iter_args, is not supported"),
             failure();
  return success();
}

/// Whether `p` has no integer point. isEmpty (variable elimination with GCD tests) is sound
/// and usually cheap; only what it cannot refute goes to the exact integer test (generalized
/// basis reduction), which took seconds on the stride-heavy nests of a tiled, unrolled stencil.
static bool integerEmpty(const presburger::IntegerPolyhedron &p) {
  return p.isEmpty() || p.isIntegerEmpty();
}

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
    if (!integerEmpty(c))
      return true;
  }
  return false;
}

namespace {

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

} // namespace

namespace {

/// The loop whose induction variable `iv` is (an affine.for or affine.parallel).
Operation *loopOf(Value iv) { return cast<BlockArgument>(iv).getOwner()->getParentOp(); }

/// Whether `src` and `dst` (accesses of one memref) provably never touch the same element
/// at `depth`, where the first depth - 1 loops around both are at the same iteration: some
/// subscript differs by a nonzero constant between them, written in values that are the
/// same on both sides (those loops' induction variables, values defined outside every loop
/// around either access) with the same coefficients. Only a shortcut before the
/// polyhedron: false whenever it cannot tell (mod, floordiv, other loops' variables). The
/// copies of a register tile's accumulator (C[i + 1][j] beside C[i][j]) are most of the
/// pairs a jam's check weighs.
bool provablyIndependent(Operation *src, Operation *dst, unsigned depth) {
  MemRefAccess a(src), b(dst);
  if (a.memref != b.memref)
    return false;
  AffineValueMap ma, mb;
  a.getAccessMap(&ma);
  b.getAccessMap(&mb);
  if (ma.getNumResults() != mb.getNumResults())
    return false;
  SmallVector<Value, 8> srcIvs, dstIvs;
  getAffineIVs(*src, srcIvs);
  getAffineIVs(*dst, dstIvs);
  unsigned common = getNumCommonSurroundingLoops(*src, *dst);
  unsigned equal = std::min(depth - 1, common);
  auto sameOnBoth = [&](Value v) {
    for (unsigned i = 0; i < equal; ++i)
      if (srcIvs[i] == v)
        return dstIvs[i] == v;
    if (llvm::is_contained(srcIvs, v) || llvm::is_contained(dstIvs, v))
      return false;
    Operation *def = isa<BlockArgument>(v) ? cast<BlockArgument>(v).getOwner()->getParentOp()
                                           : v.getDefiningOp();
    if (!def)
      return false;
    for (ArrayRef<Value> ivs : {ArrayRef<Value>(srcIvs), ArrayRef<Value>(dstIvs)})
      for (Value iv : ivs)
        if (loopOf(iv)->isAncestor(def))
          return false;
    return true;
  };
  // Each result as coefficients per value, and its constant; false for mod/floordiv.
  auto linear = [](AffineValueMap &m, unsigned r, llvm::SmallDenseMap<Value, int64_t> &coeffs,
                   int64_t &constant) {
    SmallVector<int64_t> flat;
    unsigned inputs = m.getNumDims() + m.getNumSymbols();
    if (failed(getFlattenedAffineExpr(m.getResult(r), m.getNumDims(), m.getNumSymbols(), &flat)) ||
        flat.size() != inputs + 1)
      return false;
    for (unsigned k = 0; k < inputs; ++k)
      if (flat[k] != 0)
        coeffs[m.getOperand(k)] += flat[k];
    constant = flat.back();
    return true;
  };
  // The depth-th loop, where it surrounds both (one of the common loops, the ivs' shared
  // prefix): a dependence carried there runs from one of its iterations to a later one.
  Value carrier = depth >= 1 && depth <= common ? srcIvs[depth - 1] : Value();
  for (unsigned r = 0; r < ma.getNumResults(); ++r) {
    llvm::SmallDenseMap<Value, int64_t> ca, cb;
    int64_t ka = 0, kb = 0;
    if (!linear(ma, r, ca, ka) || !linear(mb, r, cb, kb))
      continue;
    bool cancels = true, withCarrier = false;
    for (auto *side : {&ca, &cb})
      for (auto [v, c] : *side) {
        if (c == 0)
          continue;
        if (carrier && v == carrier && ca.lookup(v) == cb.lookup(v))
          withCarrier = true;
        else if (!sameOnBoth(v) || ca.lookup(v) != cb.lookup(v))
          cancels = false;
      }
    if (!cancels)
      continue;
    // Everything else equal, the subscripts differ by a nonzero constant: never the same
    // element.
    if (!withCarrier && ka != kb)
      return true;
    // Everything else equal and the carrier's coefficient too, the same constant: the same
    // element only at the carrier's same iteration, so nothing is carried at this depth
    // (C[i][j]'s load and store in the j loop; the polyhedron is empty even rationally).
    if (withCarrier && ka == kb)
      return true;
  }
  return false;
}

} // namespace

FailureOr<std::optional<Dependence>> exactDependence(Operation *src, Operation *dst,
                                                     unsigned depth, bool decide) {
  if (provablyIndependent(src, dst, depth))
    return std::optional<Dependence>();
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
  if (decide && llvm::all_of(pieces, integerEmpty))
    return std::optional<Dependence>();
  return std::optional<Dependence>(
      Dependence{std::move(pieces), source, getNumCommonSurroundingLoops(*src, *dst)});
}

/// Whether `op` only makes or frees a buffer that lives inside `root` (a pack's copy): it
/// touches no memory the accesses around it can see.
static bool isLocalBuffer(Operation *op, Operation *root) {
  if (isa<memref::AllocOp, memref::AllocaOp>(op))
    return true;
  if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
    return definedInside(dealloc.getMemref(), root);
  return false;
}

bool definedInside(Value v, Operation *root) {
  Operation *def = v.getDefiningOp();
  return def && root->isProperAncestor(def);
}

FailureOr<SmallVector<Operation *>> accessesIn(Operation *root, const Report &report) {
  SmallVector<Operation *> accesses;
  bool opaque = false;
  root->walk([&](Operation *op) {
    if (isa<AffineReadOpInterface, AffineWriteOpInterface>(op))
      accesses.push_back(op);
    else if (!isa<AffineForOp, AffineParallelOp, AffineIfOp, AffineYieldOp, AffineApplyOp>(op) &&
             !isMemoryEffectFree(op) && !isLocalBuffer(op, root))
      opaque = true;
  });
  if (opaque)
    return report.refuse("an operation with unknown memory effects prevents the "
                         "dependence check"),
           failure();
  return accesses;
}

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
      // A buffer allocated inside the loop is a new one in every iteration: nothing flows
      // through it from one iteration to another.
      if (MemRefAccess(src).memref != MemRefAccess(dst).memref ||
          definedInside(MemRefAccess(src).memref, loop) ||
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

FailureOr<bool> carriesWithin(AffineForOp loop, int64_t span,
                              function_ref<bool(Operation *, Operation *)> pick,
                              const Report &report) {
  Carried c = carriedWithinSpans(loop, {span}, pick, report).front();
  if (c == Carried::Unanalysable)
    return failure();
  return c == Carried::Yes;
}

SmallVector<Carried> carriedWithinSpans(AffineForOp loop, ArrayRef<int64_t> spans,
                                        function_ref<bool(Operation *, Operation *)> pick,
                                        const Report &report) {
  // Each span's verdict is decided by the first pair (in carriesWithin's order) that
  // cannot be analysed or carries a dependence within it; undecided at the end: No.
  SmallVector<Carried> out(spans.size(), Carried::No);
  SmallVector<bool> decided(spans.size(), false);
  unsigned pos = depthOf(loop);
  auto accesses = accessesIn(loop, report);
  if (failed(accesses))
    return SmallVector<Carried>(spans.size(), Carried::Unanalysable);
  // The spans from the largest: the ranges [1, span - 1] nest, so a pair with no distance
  // in the largest undecided range has none in the smaller ones.
  SmallVector<unsigned> bySpan(spans.size());
  for (unsigned k = 0; k < spans.size(); ++k)
    bySpan[k] = k;
  llvm::sort(bySpan, [&](unsigned a, unsigned b) { return spans[a] > spans[b]; });
  unsigned left = spans.size();
  for (auto *src : *accesses)
    for (auto *dst : *accesses) {
      if (left == 0)
        return out;
      if (MemRefAccess(src).memref != MemRefAccess(dst).memref ||
          (!isa<AffineWriteOpInterface>(src) && !isa<AffineWriteOpInterface>(dst)) ||
          !pick(src, dst))
        continue;
      auto dep = exactDependence(src, dst, pos + 1, /*decide=*/false);
      if (failed(dep)) {
        report.refuse("MLIR's dependence analysis could not analyse the accesses in " +
                      nameOf(loop));
        for (unsigned k = 0; k < spans.size(); ++k)
          if (!decided[k])
            out[k] = Carried::Unanalysable, decided[k] = true;
        return out;
      }
      if (!*dep)
        continue;
      for (unsigned k : bySpan) {
        if (decided[k])
          continue;
        if (!mayHave(**dep, {{pos, 1, spans[k] - 1}}))
          break;
        out[k] = Carried::Yes, decided[k] = true, --left;
      }
    }
  return out;
}


namespace {

/// How a loop's upper bound (a min of several expressions) becomes one expression: the
/// enclosing loop whose induction variable the expressions use (`tile`; none where they
/// are constants), the expression that is the min on the iterations kept, and whether the
/// last iteration of `tile` must be peeled first for it to be.
struct BoundPlan {
  AffineForOp tile;
  unsigned result = 0;
  bool peel = false;
};

bool linearExpr(AffineExpr e) {
  // Pure affine: products only by constants.
  bool linear = e.isPureAffine();
  e.walk([&](AffineExpr x) {
    if (x.getKind() == AffineExprKind::Mod || x.getKind() == AffineExprKind::FloorDiv ||
        x.getKind() == AffineExprKind::CeilDiv)
      linear = false;
  });
  return linear;
}

/// The values of `map`'s results with `iv` at `at` and the other operands constants; none
/// where an operand is neither.
std::optional<SmallVector<int64_t>> evalAt(AffineMap map, ValueRange operands, Value iv,
                                           int64_t at) {
  MLIRContext *ctx = map.getContext();
  SmallVector<AffineExpr> dims, syms;
  for (auto [i, v] : llvm::enumerate(operands)) {
    std::optional<int64_t> c = v == iv ? std::optional<int64_t>(at) : getConstantIntValue(v);
    if (!c)
      return std::nullopt;
    (i < map.getNumDims() ? dims : syms).push_back(getAffineConstantExpr(*c, ctx));
  }
  SmallVector<int64_t> out;
  for (AffineExpr e : map.getResults()) {
    auto c = dyn_cast<AffineConstantExpr>(e.replaceDimsAndSymbols(dims, syms));
    if (!c)
      return std::nullopt;
    out.push_back(c.getValue());
  }
  return out;
}

/// The result of `map` that is the least at both `lo` and `hi` of `iv`: with results linear
/// in `iv`, the least on the whole range between them.
std::optional<unsigned> leastResult(AffineMap map, ValueRange operands, Value iv, int64_t lo,
                                    int64_t hi) {
  auto a = evalAt(map, operands, iv, lo), b = evalAt(map, operands, iv, hi);
  if (!a || !b)
    return std::nullopt;
  for (unsigned r = 0; r < a->size(); ++r) {
    bool least = true;
    for (unsigned k = 0; k < a->size(); ++k)
      least &= (*a)[k] >= (*a)[r] && (*b)[k] >= (*b)[r];
    if (least)
      return r;
  }
  return std::nullopt;
}

/// The iterations of `tile` (constant bounds, known): first and last value of its
/// induction variable.
std::optional<std::pair<int64_t, int64_t>> ivRange(AffineForOp tile) {
  std::optional<uint64_t> trips = tripCount(tile);
  if (!tile.hasConstantBounds() || !trips || *trips == 0)
    return std::nullopt;
  int64_t lb = tile.getConstantLowerBound();
  return std::make_pair(lb, lb + static_cast<int64_t>(*trips - 1) * tile.getStepAsInt());
}

/// planBound's plan for `l`'s upper bound, or why there is none.
FailureOr<BoundPlan> planUpperBound(AffineForOp l, std::string &why) {
  AffineMap map = l.getUpperBoundMap();
  ValueRange operands = l.getUpperBoundOperands();
  std::string n = nameOf(l);
  if (l.getLowerBoundMap().getNumResults() != 1)
    return why = n + "'s lower bound is a max of several expressions", failure();
  if (map.getNumResults() == 1)
    return BoundPlan{};
  AffineForOp tile;
  for (Value v : operands) {
    if (getConstantIntValue(v))
      continue;
    AffineForOp owner = getForInductionVarOwner(v);
    if (!owner || (tile && owner != tile))
      return why = n + "'s upper bound depends on more than one enclosing loop", failure();
    tile = owner;
  }
  if (!tile) {
    auto r = leastResult(map, operands, Value(), 0, 0);
    if (!r)
      return why = n + "'s upper bound cannot be evaluated", failure();
    return BoundPlan{tile, *r, false};
  }
  for (AffineExpr e : map.getResults())
    if (!linearExpr(e))
      return why = n + "'s upper bound uses mod or floordiv", failure();
  auto range = ivRange(tile);
  if (!range || tile.getNumIterOperands() > 0)
    return why = nameOf(tile) + ", whose last tile " + n + " would peel, has no constant "
                 "bounds or carries values",
           failure();
  Value iv = tile.getInductionVar();
  auto [first, last] = *range;
  if (auto r = leastResult(map, operands, iv, first, last))
    return BoundPlan{tile, *r, false};
  // Only a tile loop's partial tile is peeled (the loop `tile` made for this one, named
  // after it): the fuzzer's oracle gives the step that meaning (src/fuzz/oracle.rs).
  if (nameOf(tile) != n + ".t")
    return why = n + "'s upper bound is a min over " + nameOf(tile) + ", which is not its "
                 "tile loop (only the partial tiles of the schedule's own tiling are peeled)",
           failure();
  if (last > first)
    if (auto r = leastResult(map, operands, iv, first, last - tile.getStepAsInt()))
      return BoundPlan{tile, *r, true};
  return why = n + "'s upper bound is not one expression on all but the last iteration of " +
               nameOf(tile),
         failure();
}

void setUpperResult(AffineForOp l, unsigned r) {
  AffineMap map = l.getUpperBoundMap();
  AffineMap one = AffineMap::get(map.getNumDims(), map.getNumSymbols(), map.getResult(r));
  SmallVector<Value> operands(l.getUpperBoundOperands());
  canonicalizeMapAndOperands(&one, &operands);
  l.setUpperBound(operands, one);
}

/// Every loop under `root` whose upper bound is one expression on all the iterations of
/// the loop it depends on gets that expression alone.
void simplifyUpperBounds(Operation *root) {
  root->walk([&](AffineForOp l) {
    // A promoted copy's bounds use the constant its induction variable became.
    auto constant = [](Value v) { return getConstantIntValue(v).has_value(); };
    if (llvm::any_of(l.getLowerBoundOperands(), constant)) {
      AffineMap map = l.getLowerBoundMap();
      SmallVector<Value> operands(l.getLowerBoundOperands());
      canonicalizeMapAndOperands(&map, &operands);
      l.setLowerBound(operands, map);
    }
    if (llvm::any_of(l.getUpperBoundOperands(), constant)) {
      AffineMap map = l.getUpperBoundMap();
      SmallVector<Value> operands(l.getUpperBoundOperands());
      canonicalizeMapAndOperands(&map, &operands);
      l.setUpperBound(operands, map);
    }
    if (l.getUpperBoundMap().getNumResults() < 2)
      return;
    std::string why;
    auto plan = planUpperBound(l, why);
    if (succeeded(plan) && !plan->peel)
      setUpperResult(l, plan->result);
  });
}

/// Peels the last iteration of `tile` (constant bounds, at least two iterations) into a
/// copy after it, whose single iteration is promoted to plain code; its loops are marked
/// kRemainderAttr.
void peelLastIteration(AffineForOp tile) {
  auto [first, last] = *ivRange(tile);
  (void)first;
  Operation *parent = tile->getParentOp();
  OpBuilder b(tile->getContext());
  b.setInsertionPointAfter(tile);
  auto rest = cast<AffineForOp>(b.clone(*tile.getOperation()));
  tile.setConstantUpperBound(last);
  rest.setConstantLowerBound(last);
  rest.getBody()->walk([&](AffineForOp l) { l->setAttr(kRemainderAttr, b.getUnitAttr()); });
  (void)promoteIfSingleIteration(rest);
  simplifyUpperBounds(parent);
}

} // namespace

bool partialTilesPeelable(ArrayRef<AffineForOp> loops, std::string &why) {
  for (AffineForOp l : loops)
    if (failed(planUpperBound(l, why)))
      return false;
  return true;
}

PeeledTrips peeledTrips(AffineForOp l) {
  if (std::optional<uint64_t> trips = tripCount(l))
    return {trips, std::nullopt};
  std::string why;
  auto plan = planUpperBound(l, why);
  if (failed(plan) || !plan->tile)
    return {};
  // Two trip counts equal at the ends of the full tiles hold in between only for bounds
  // linear in the tile loop's induction variable.
  if (!linearExpr(l.getLowerBoundMap().getResult(0)))
    return {};
  AffineForOp tile = plan->tile;
  Value iv = tile.getInductionVar();
  auto [first, last] = *ivRange(tile);
  int64_t step = l.getStepAsInt();
  // One lower bound expression, the kept upper bound expression: the trip count at iv.
  auto tripsAt = [&](int64_t at, bool all) -> std::optional<uint64_t> {
    auto lo = evalAt(l.getLowerBoundMap(), l.getLowerBoundOperands(), iv, at);
    auto hi = evalAt(l.getUpperBoundMap(), l.getUpperBoundOperands(), iv, at);
    if (!lo || !hi)
      return std::nullopt;
    int64_t ub = all ? *llvm::min_element(*hi) : (*hi)[plan->result];
    return static_cast<uint64_t>(std::max<int64_t>(0, llvm::divideCeilSigned(ub - (*lo)[0], step)));
  };
  int64_t keptLast = plan->peel ? last - tile.getStepAsInt() : last;
  auto a = tripsAt(first, false), b = tripsAt(keptLast, false);
  PeeledTrips out;
  if (a && b && *a == *b)
    out.full = a;
  if (plan->peel)
    out.last = tripsAt(last, true);
  return out;
}

SmallVector<AffineForOp> peelAndCollect(func::FuncOp f, StringRef name, int64_t n) {
  peelPartialTiles(f, name);
  SmallVector<AffineForOp> loops;
  for (AffineForOp l : loopsNamed(f, name)) {
    std::optional<uint64_t> trips = tripCount(l);
    if (!(l->hasAttr(kRemainderAttr) && trips && *trips < static_cast<uint64_t>(n)))
      loops.push_back(l);
  }
  f.walk([](AffineForOp l) { l->removeAttr(kRemainderAttr); });
  return loops;
}

void peelPartialTiles(func::FuncOp f, StringRef name) {
  for (bool changed = true; changed;) {
    changed = false;
    for (AffineForOp l : loopsNamed(f, name)) {
      std::string why;
      auto plan = planUpperBound(l, why);
      if (failed(plan) || l.getUpperBoundMap().getNumResults() < 2)
        continue;
      if (plan->peel) {
        peelLastIteration(plan->tile);
        changed = true;
        break;
      }
      setUpperResult(l, plan->result);
    }
  }
}

} // namespace autosched

using namespace autosched;

namespace {
/// Whether `op`, a top-level operation of a function's body, stays in the copy of the nests
/// holding loops named `wanted` (autosched_tx_clone_for): everything but a loop without
/// results that holds none of them (nothing outside such a loop sees inside it).
bool keptFor(Operation &op, const llvm::StringSet<> &wanted) {
  if (!isa<AffineForOp, AffineParallelOp>(op) || op.getNumResults() != 0)
    return true;
  bool found = false;
  op.walk([&](AffineForOp l) {
    if (wanted.contains(nameOf(l)))
      found = true;
  });
  return found;
}

llvm::StringSet<> nameSet(const char *const *names, size_t n) {
  llvm::StringSet<> wanted;
  for (size_t i = 0; i < n; ++i)
    wanted.insert(names[i]);
  return wanted;
}
} // namespace

extern "C" {

MlirOperation autosched_tx_clone(MlirOperation func) {
  return wrap(unwrap(func)->clone());
}

MlirOperation autosched_tx_clone_for(MlirOperation func, const char *const *names, size_t n) {
  Operation *f = unwrap(func);
  Region &body = f->getRegion(0);
  if (!body.hasOneBlock())
    return wrap(f->clone());
  llvm::StringSet<> wanted = nameSet(names, n);
  Operation *copy = f->cloneWithoutRegions();
  Block &from = body.front();
  Block *to = new Block();
  copy->getRegion(0).push_back(to);
  IRMapping map;
  for (BlockArgument arg : from.getArguments())
    map.map(arg, to->addArgument(arg.getType(), arg.getLoc()));
  OpBuilder b = OpBuilder::atBlockEnd(to);
  for (Operation &op : from)
    if (keptFor(op, wanted))
      b.clone(op, map);
  return wrap(copy);
}

size_t autosched_tx_kept_for(MlirOperation func, const char *const *names, size_t n,
                             size_t *positions, size_t cap, size_t *loops) {
  Region &body = unwrap(func)->getRegion(0);
  *loops = 0;
  if (!body.hasOneBlock())
    return SIZE_MAX;
  llvm::StringSet<> wanted = nameSet(names, n);
  size_t count = 0, at = 0;
  for (Operation &op : body.front()) {
    // Only the loops tell one copy from another: every other operation is always kept.
    if (isa<AffineForOp, AffineParallelOp>(op)) {
      ++*loops;
      if (keptFor(op, wanted)) {
        if (count < cap)
          positions[count] = at;
        ++count;
      }
    }
    ++at;
  }
  return count;
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
    // The Rust side says what failed (TransformError::Verify); this is the why.
    return report.fail(first);
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

void autosched_tx_commit_tagged(MlirOperation original, MlirOperation clone) {
  auto f = cast<func::FuncOp>(unwrap(original));
  auto c = cast<func::FuncOp>(unwrap(clone));
  f.getBody().takeBody(c.getBody());
  c->destroy();
}

int64_t autosched_tx_allow_contraction(MlirOperation func) {
  int64_t marked = 0;
  unwrap(func)->walk([&](Operation *op) {
    if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp>(op))
      return;
    auto fm = cast<arith::ArithFastMathInterface>(op);
    arith::FastMathFlags flags = fm.getFastMathFlagsAttr().getValue();
    if (arith::bitEnumContainsAll(flags, arith::FastMathFlags::contract))
      return;
    op->setAttr(fm.getFastMathAttrName(),
                arith::FastMathFlagsAttr::get(op->getContext(), flags | arith::FastMathFlags::contract));
    ++marked;
  });
  return marked;
}

bool autosched_tx_rounding_may_change(MlirOperation func) {
  // nnan and ninf change results only where they were NaN or infinite anyway.
  constexpr auto rounding = arith::FastMathFlags::reassoc | arith::FastMathFlags::nsz |
                            arith::FastMathFlags::arcp | arith::FastMathFlags::contract |
                            arith::FastMathFlags::afn;
  return unwrap(func)
      ->walk([&](arith::ArithFastMathInterface op) {
        // Optional on some ops (arith.extf, arith.truncf): absent means none.
        arith::FastMathFlagsAttr flags = op.getFastMathFlagsAttr();
        return flags && arith::bitEnumContainsAny(flags.getValue(), rounding) ? WalkResult::interrupt()
                                                                               : WalkResult::advance();
      })
      .wasInterrupted();
}

void autosched_tx_prefer_vector_width(MlirOperation func, int64_t bits) {
  Operation *op = unwrap(func);
  MLIRContext *ctx = op->getContext();
  constexpr llvm::StringLiteral key = "prefer-vector-width";
  SmallVector<Attribute> entries;
  if (auto old = op->getAttrOfType<ArrayAttr>("passthrough"))
    for (Attribute a : old) {
      auto pair = dyn_cast<ArrayAttr>(a);
      auto name = pair && pair.size() == 2 ? dyn_cast<StringAttr>(pair[0]) : StringAttr();
      if (!(name && name.getValue() == key))
        entries.push_back(a);
    }
  entries.push_back(ArrayAttr::get(
      ctx, {StringAttr::get(ctx, key), StringAttr::get(ctx, std::to_string(bits))}));
  op->setAttr("passthrough", ArrayAttr::get(ctx, entries));
}

int64_t autosched_tx_preferred_vector_width(MlirOperation func) {
  auto entries = unwrap(func)->getAttrOfType<ArrayAttr>("passthrough");
  if (!entries)
    return 0;
  for (Attribute a : entries) {
    auto pair = dyn_cast<ArrayAttr>(a);
    if (!pair || pair.size() != 2)
      continue;
    auto name = dyn_cast<StringAttr>(pair[0]);
    auto value = dyn_cast<StringAttr>(pair[1]);
    if (!name || name.getValue() != "prefer-vector-width")
      continue;
    int64_t bits = 0;
    // getAsInteger returns true on failure.
    return value && !value.getValue().getAsInteger(10, bits) && bits > 0 ? bits : 0;
  }
  return 0;
}

} // extern "C"
