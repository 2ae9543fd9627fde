//===- Transforms.h - What the transformation kinds share -------*- C++ -*-===//
//
// The shared part of the transformation layer, defined in passes/Transforms.cpp: finding
// loops by the `autosched.loop` name tag, reporting a refusal, and the exact dependence
// analysis that the kinds' legality checks are written over. Each kind's entry point and
// the helpers only that kind uses are in passes/kinds/<Kind>.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef AFFINE_AUTOSCHED_TRANSFORMS_H
#define AFFINE_AUTOSCHED_TRANSFORMS_H

#include "TransformsFFI.h"

#include "mlir/Analysis/Presburger/IntegerRelation.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>
#include <string>
#include <vector>

namespace autosched {

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

std::string nameOf(mlir::Operation *op);

void setName(mlir::Operation *op, mlir::StringRef name);

mlir::func::FuncOp funcOf(MlirOperation op);

/// All affine.for loops carrying `name`, in pre-order.
mlir::SmallVector<mlir::affine::AffineForOp> loopsNamed(mlir::func::FuncOp f,
                                                        mlir::StringRef name);

/// The loops named `name`, or a refusal when there are none.
mlir::FailureOr<mlir::SmallVector<mlir::affine::AffineForOp>>
requireLoops(mlir::func::FuncOp f, mlir::StringRef name, const Report &report);

/// True when no loop (affine.for, affine.parallel) or conditional is nested in `l`.
bool isInnermost(mlir::affine::AffineForOp l);

/// The loop's trip count where it is the same in every iteration of the loops around it
/// (MLIR's getConstantTripCount), with a loop that never runs counted 0: MLIR casts the
/// negative count of bounds a constant apart the wrong way round (`3 * %i + 2 to 3 * %i +
/// 1`: -1) to a huge unsigned one, which made an unroll of such a loop run its clean-up loop
/// (fuzz program f7-1203). Use this, never getConstantTripCount.
std::optional<uint64_t> tripCount(mlir::affine::AffineForOp l);

std::string joined(mlir::ArrayRef<std::string> names);

/// Every perfectly nested band whose loops carry exactly `names` (as a set), one per copy.
/// The band is returned outermost first.
mlir::FailureOr<mlir::SmallVector<mlir::SmallVector<mlir::affine::AffineForOp>>>
findBands(mlir::func::FuncOp f, mlir::ArrayRef<std::string> names, const Report &report);

/// Refuses bands whose bounds depend on one another (non-rectangular).
mlir::LogicalResult checkRectangular(mlir::ArrayRef<mlir::affine::AffineForOp> band,
                                     const Report &report);

/// Refuses bands holding a loop that carries values (a reduction through iter_args):
/// MLIR's permuteLoops and tilePerfectlyNested move loop bodies, not the values a loop
/// yields, and reordering the iterations of a reduction reassociates it.
mlir::LogicalResult checkNoIterArgs(mlir::ArrayRef<mlir::affine::AffineForOp> band,
                                    mlir::StringRef what, const Report &report);

/// One dependence between two accesses: the polyhedron of the (source, sink) iteration
/// pairs that touch the same element with the source first (as MLIR's
/// checkMemrefAccessDependence builds it, with its ordering constraints for the carrying
/// depth). Columns: source ivs, sink ivs, symbols, locals, constant. The distance along the
/// loop at absolute position k (k < common) is column `source + k` minus column k.
struct Dependence {
  /// The polyhedron is a union of pieces: one per choice of the expression that attains a
  /// `max` lower bound of a loop with a step (see addStrides in Transforms.cpp); usually
  /// one.
  mlir::SmallVector<mlir::presburger::IntegerPolyhedron, 1> pieces;
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
bool mayHave(const Dependence &dep, mlir::ArrayRef<DistanceRange> ranges);

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
mlir::FailureOr<std::optional<Dependence>> exactDependence(mlir::Operation *src,
                                                           mlir::Operation *dst,
                                                           unsigned depth, bool decide);

/// Whether `v` is defined by an operation nested in `root` (a buffer a pack allocated
/// there).
bool definedInside(mlir::Value v, mlir::Operation *root);

/// The accesses inside `root`, or a refusal when an operation with memory effects the
/// analysis cannot see (a call, a vector transfer, a non-affine access) is among them.
/// Allocating a buffer, and freeing one allocated inside `root`, are not such operations.
mlir::FailureOr<mlir::SmallVector<mlir::Operation *>> accessesIn(mlir::Operation *root,
                                                                 const Report &report);

/// The dependences carried inside `root` at absolute loop depths [firstDepth, lastDepth]
/// (1-based, as checkMemrefAccessDependence counts; lastDepth one past the deepest loop
/// means loop-independent), one polyhedron per pair of accesses and depth.
mlir::FailureOr<std::vector<Dependence>>
carriedDependences(mlir::Operation *root, unsigned firstDepth, unsigned lastDepth,
                   const Report &report);

/// Whether `loop` carries a dependence (MLIR's isLoopParallel asks the same question
/// with its inexact emptiness test): a refusal names the loop, with the status that says
/// which kind of refusal it is.
int32_t checkParallel(mlir::affine::AffineForOp loop, mlir::StringRef name,
                      const Report &report);

unsigned depthOf(mlir::affine::AffineForOp l);

/// Whether `loop` carries a dependence, between a pair of its accesses that `pick` selects
/// (one of them a write, the same memref), at a distance in [1, span - 1] values of its
/// induction variable: a dependence that would stay inside one group of `span` (a vector
/// of lanes, the copies of an unroll-and-jam). Failure (refused through `report`) when the
/// accesses cannot be analysed.
mlir::FailureOr<bool>
carriesWithin(mlir::affine::AffineForOp loop, int64_t span,
              llvm::function_ref<bool(mlir::Operation *src, mlir::Operation *dst)> pick,
              const Report &report);

/// carriesWithin's verdict for each of several spans.
enum class Carried : uint8_t { No = 0, Yes = 1, Unanalysable = 2 };

/// carriesWithin's verdict for each of `spans`, every pair of accesses analysed once (a
/// vectorization checked at several widths): the same verdict, span by span, as
/// carriesWithin gives for it alone, Unanalysable where it fails (the first such reason
/// is reported).
mlir::SmallVector<Carried>
carriedWithinSpans(mlir::affine::AffineForOp loop, mlir::ArrayRef<int64_t> spans,
                   llvm::function_ref<bool(mlir::Operation *src, mlir::Operation *dst)> pick,
                   const Report &report);

/// Partial tiles. A tiled loop's point loop runs `for %i = %t to min(%t + T, N)`: the min
/// (a bound with several expressions) is what MLIR's unrollers cannot bound a clean-up loop
/// for, and what the vectorizer cannot peel a remainder from. Peeling the last iteration
/// of the tile loop (the partial tile) leaves every copy with one expression per bound:
/// `%t to %t + T` in the full tiles, constants in the last one. Peeling one iteration off
/// a loop keeps the order of all iterations, so it is always legal.
///
/// Whether every loop in `loops` can be brought to one lower and one upper bound
/// expression that way (or has them already). Where one cannot, `why` says why.
bool partialTilesPeelable(mlir::ArrayRef<mlir::affine::AffineForOp> loops, std::string &why);

/// The trip counts a loop of `loops` will have once its partial tiles are peeled (the full
/// tiles', the last tile's), or its own constant trip count where nothing is peeled; none
/// where the count is unknown.
struct PeeledTrips {
  std::optional<uint64_t> full, last;
};
PeeledTrips peeledTrips(mlir::affine::AffineForOp loop);

/// Peels the partial tiles of the loops named `name` in `f` (see partialTilesPeelable,
/// which must hold), repeatedly, until every loop of that name has single-expression
/// bounds. The loops of the peeled last tiles carry the attribute `kRemainderAttr`
/// (which the caller removes): a clean-up copy that may run fewer iterations than a factor.
void peelPartialTiles(mlir::func::FuncOp f, mlir::StringRef name);
constexpr const char *kRemainderAttr = "autosched.remainder";

/// peelPartialTiles, then the loops named `name` to unroll or vectorize by `n`: every one but
/// a peeled last tile's copy that runs fewer than `n` iterations (it stays as it is).
mlir::SmallVector<mlir::affine::AffineForOp> peelAndCollect(mlir::func::FuncOp f,
                                                           mlir::StringRef name, int64_t n);

} // namespace autosched

#endif // AFFINE_AUTOSCHED_TRANSFORMS_H
