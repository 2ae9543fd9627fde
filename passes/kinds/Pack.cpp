//===- Pack.cpp - Packing: copy a tile of a buffer into a local one -------===//
//
// The entry point of this kind (declared in passes/kinds/Pack.h). The copy itself is
// MLIR's: the loop's loads make a MemRefRegion (their bounding box, symbolic in the loops
// around the loop), and generateCopyForMemRegion allocates the buffer, emits the copy nest
// before the loop and rewrites the loads inside it. What is here is the legality check
// that MLIR's utility leaves to its caller, and the reordering of the copy's dimensions
// (MLIR's copy keeps the buffer's order; a register tile wants the dimension its columns
// move along last, as BLIS packs a transposed operand).
//
//===----------------------------------------------------------------------===//

#include "kinds/Pack.h"
#include "Transforms.h"

#include "mlir/Dialect/Affine/Analysis/Utils.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/LoopUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/Dominance.h"

#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::affine;
using namespace autosched;

namespace {

/// A copy this large gains no locality on any cache and costs its allocation: refused
/// rather than allocating gigabytes for a mistaken step.
constexpr int64_t kMaxPackBytes = int64_t(64) << 20;

/// The region of `memref` that `loop` reads, symbolic in the loops around it, into `out`;
/// a refusal status when the loop touches the memref other than by affine.load, writes it,
/// or its box has no constant size.
int32_t regionRead(AffineForOp loop, Value memref, StringRef name, StringRef arg,
                   const Report &report, std::optional<MemRefRegion> &out) {
  SmallVector<AffineLoadOp> loads;
  std::string other, written;
  loop.walk([&](Operation *op) {
    if (!llvm::is_contained(op->getOperands(), memref))
      return;
    if (auto load = dyn_cast<AffineLoadOp>(op))
      loads.push_back(load);
    else if (isa<AffineWriteOpInterface>(op))
      written = op->getName().getStringRef().str();
    else if (other.empty())
      other = op->getName().getStringRef().str();
  });
  if (!written.empty())
    return report.refuseDependence(name.str() + " writes " + arg.str() + " (" + written +
                                   "): its copy would go stale");
  if (!other.empty())
    return report.refuse(name.str() + " uses " + arg.str() + " in " + other +
                         ", which the copy cannot rewrite (pack before vectorizing)");
  if (loads.empty())
    return report.refuse(name.str() + " does not read " + arg.str());
  // An operation that may write memory the analysis cannot see may write the argument.
  if (failed(accessesIn(loop, report)))
    return AUTOSCHED_TX_REFUSED;
  unsigned depth = getNestingDepth(loop);
  for (auto [i, load] : llvm::enumerate(loads)) {
    MemRefRegion one(load.getLoc());
    if (failed(one.compute(load, depth, /*sliceState=*/nullptr, /*addMemRefDimBounds=*/true)))
      return report.refuse("MLIR cannot bound the part of " + arg.str() + " that " +
                           name.str() + " reads");
    if (i == 0) {
      out.emplace(std::move(one));
    } else if (failed(out->unionBoundingBox(one))) {
      return report.refuse("MLIR cannot bound the part of " + arg.str() + " that " +
                           name.str() + " reads");
    }
  }
  SmallVector<int64_t> shape;
  SmallVector<AffineMap> lbs;
  std::optional<int64_t> elements = out->getConstantBoundingSizeAndShape(&shape, &lbs);
  if (!elements)
    return report.refuse("the part of " + arg.str() + " that " + name.str() +
                         " reads has no constant size (it depends on a loop around it or a "
                         "symbol)");
  if (llvm::any_of(lbs, [](AffineMap m) { return m.getNumResults() != 1; }))
    return report.refuse("the part of " + arg.str() + " that " + name.str() +
                         " reads starts at a maximum of several expressions, which MLIR's "
                         "copy generation does not support");
  auto type = cast<MemRefType>(memref.getType());
  int64_t bytes = *elements * int64_t(type.getElementTypeBitWidth() / 8);
  if (bytes > kMaxPackBytes)
    return report.refuse("the copy of " + arg.str() + " before " + name.str() + " would take " +
                         std::to_string(bytes >> 20) + " MiB (at most " +
                         std::to_string(kMaxPackBytes >> 20) + ")");
  return AUTOSCHED_TX_OK;
}

/// Folds a loop-invariant scale into the copy: when every value `loop` loads from the
/// copy `buffer` is used only by `arith.mulf` with one and the same other operand `s`,
/// defined before the copy nest (gemm's `alpha * A[i][k]`), the copy stores `s * x`
/// and the loop uses the loaded value in place of each product. The product is the one
/// the program computes, with its operands and fast-math flags, so every value is
/// bit for bit what it was; it is computed once per copied element instead of once per
/// use (a register tile broadcasts it from memory rather than multiplying each row at
/// every k step). Anything else leaves the copy as it is.
void foldInvariantScale(AffineForOp loop, Operation *copyNest, Value buffer) {
  SmallVector<AffineLoadOp> loads;
  loop.walk([&](AffineLoadOp load) {
    if (load.getMemRef() == buffer)
      loads.push_back(load);
  });
  Value scale;
  std::optional<arith::FastMathFlags> flags;
  SmallVector<arith::MulFOp> products;
  for (AffineLoadOp load : loads) {
    if (load->use_empty())
      return;
    for (Operation *user : load->getUsers()) {
      auto mul = dyn_cast<arith::MulFOp>(user);
      if (!mul || mul.getLhs() == mul.getRhs())
        return;
      Value other = mul.getLhs() == load.getResult() ? mul.getRhs() : mul.getLhs();
      if ((scale && other != scale) || (flags && *flags != mul.getFastmath()))
        return;
      scale = other;
      flags = mul.getFastmath();
      products.push_back(mul);
    }
  }
  if (!scale || !DominanceInfo(loop->getParentOfType<func::FuncOp>()).properlyDominates(scale, copyNest))
    return;
  // The copy nest's one store into the buffer (loads from the original, stores here).
  SmallVector<AffineStoreOp> stores;
  copyNest->walk([&](AffineStoreOp st) {
    if (st.getMemRef() == buffer)
      stores.push_back(st);
  });
  if (stores.size() != 1)
    return;
  AffineStoreOp store = stores.front();
  OpBuilder b(store);
  // The operand order of the first product (a float multiply commutes exactly).
  bool scaleFirst = products.front().getLhs() == scale;
  Value x = store.getValueToStore();
  Value scaled = scaleFirst ? arith::MulFOp::create(b, store.getLoc(), scale, x, *flags).getResult()
                            : arith::MulFOp::create(b, store.getLoc(), x, scale, *flags).getResult();
  store->setOperand(0, scaled); // affine.store's operand 0 is the value it stores
  for (arith::MulFOp mul : products) {
    Value load = mul.getLhs() == scale ? mul.getRhs() : mul.getLhs();
    mul.getResult().replaceAllUsesWith(load);
    mul->erase();
  }
}

/// Gives the copy `buffer` (MLIR's allocation) the dimension order `order`: dimension d of
/// the new buffer is dimension order[d] of the copy. Every access to the buffer is an
/// affine load or store (the copy nest's stores, the loop's rewritten loads) or its
/// dealloc; each access's map keeps its operands and lists its results in the new order,
/// so every element lands where its accesses find it. Checked before anything changes:
/// any other use leaves the IR as it was and fails.
LogicalResult reorderCopy(memref::AllocOp alloc, ArrayRef<int64_t> order) {
  Value buffer = alloc.getResult();
  for (Operation *user : buffer.getUsers()) {
    if (auto load = dyn_cast<AffineLoadOp>(user)) {
      if (load.getMemRef() != buffer)
        return failure();
    } else if (auto store = dyn_cast<AffineStoreOp>(user)) {
      if (store.getMemRef() != buffer || store.getValueToStore() == buffer)
        return failure();
    } else if (!isa<memref::DeallocOp>(user)) {
      return failure();
    }
  }
  auto type = cast<MemRefType>(buffer.getType());
  if (!type.hasStaticShape() || !alloc.getDynamicSizes().empty())
    return failure();
  auto reordered = MemRefType::get(applyPermutation(type.getShape(), order), type.getElementType(),
                                   AffineMap(), type.getMemorySpace());
  OpBuilder b(alloc);
  auto fresh = memref::AllocOp::create(b, alloc.getLoc(), reordered, alloc.getAlignmentAttr());
  // Each access map's results in the new order (the permutation applied after the map).
  AffineMap permutation = AffineMap::getPermutationMap(order, alloc.getContext());
  auto permuted = [&](AffineMap map) { return permutation.compose(map); };
  for (Operation *user : llvm::make_early_inc_range(buffer.getUsers())) {
    OpBuilder at(user);
    if (auto load = dyn_cast<AffineLoadOp>(user)) {
      auto again = AffineLoadOp::create(at, load.getLoc(), fresh, permuted(load.getAffineMap()),
                                        load.getMapOperands());
      load.getResult().replaceAllUsesWith(again.getResult());
      load->erase();
    } else if (auto store = dyn_cast<AffineStoreOp>(user)) {
      AffineStoreOp::create(at, store.getLoc(), store.getValueToStore(), fresh,
                            permuted(store.getAffineMap()), store.getMapOperands());
      store->erase();
    } else {
      user->replaceUsesOfWith(buffer, fresh);
    }
  }
  alloc->erase();
  return success();
}

} // namespace

extern "C" {

int32_t autosched_tx_pack(MlirOperation func, const char *name, int64_t argument,
                          const int64_t *order, int64_t orderLength, AutoschedTxReportFn fn,
                          void *ctx) {
  Report report{fn, ctx};
  auto f = funcOf(func);
  std::string n(name), arg = "%arg" + std::to_string(argument);
  if (argument < 0 || argument >= int64_t(f.getNumArguments()))
    return report.refuse("@" + f.getSymName().str() + " has no argument " + arg);
  Value memref = f.getArgument(argument);
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || type.getRank() == 0)
    return report.refuse(arg + " is not a memref of rank 1 or more");
  if (!type.getLayout().isIdentity())
    return report.refuse(arg + " has a non-identity layout, which MLIR's copy generation "
                               "does not support");
  if (!type.getElementType().isIntOrFloat())
    return report.refuse(arg + " holds elements of no fixed size");
  ArrayRef<int64_t> dims(order, orderLength > 0 ? size_t(orderLength) : 0);
  if (!dims.empty() && (int64_t(dims.size()) != type.getRank() || !isPermutationVector(dims))) {
    std::string given;
    for (int64_t d : dims)
      given += (given.empty() ? "" : ", ") + std::to_string(d);
    return report.refuse("the copy's order [" + given + "] is not a permutation of " + arg +
                         "'s " + std::to_string(type.getRank()) + " dimensions");
  }
  auto found = requireLoops(f, name, report);
  if (failed(found))
    return AUTOSCHED_TX_REFUSED;
  SmallVector<AffineForOp> loops = *found;
  // Every copy of the loop is checked before any is changed: the step is all or nothing.
  std::vector<MemRefRegion> regions;
  for (AffineForOp l : loops) {
    std::optional<MemRefRegion> region;
    if (int32_t status = regionRead(l, memref, n, arg, report, region))
      return status;
    regions.push_back(std::move(*region));
  }
  AffineCopyOptions options{/*generateDma=*/false, /*slowMemorySpace=*/0,
                            /*fastMemorySpace=*/0, /*tagMemorySpace=*/0,
                            /*fastMemCapacityBytes=*/uint64_t(kMaxPackBytes)};
  for (auto [l, region] : llvm::zip(loops, regions)) {
    CopyGenerateResult result;
    if (failed(generateCopyForMemRegion(region, l, options, result)))
      return report.fail("MLIR's generateCopyForMemRegion failed on " + arg + " before " + n);
    if (result.alloc && result.copyNest)
      foldInvariantScale(l, result.copyNest, result.alloc->getResult(0));
    if (!dims.empty()) {
      auto alloc = dyn_cast_or_null<memref::AllocOp>(result.alloc);
      if (!alloc || failed(reorderCopy(alloc, dims)))
        return report.fail("the copy of " + arg + " before " + n +
                           " is used other than by affine loads and stores: its order cannot "
                           "be changed");
    }
  }
  return AUTOSCHED_TX_OK;
}

} // extern "C"
