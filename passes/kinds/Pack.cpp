//===- Pack.cpp - Packing: copy a tile of a buffer into a local one -------===//
//
// The entry point of this kind (declared in passes/kinds/Pack.h). The copy itself is
// MLIR's: the loop's loads make a MemRefRegion (their bounding box, symbolic in the loops
// around the loop), and generateCopyForMemRegion allocates the buffer, emits the copy nest
// before the loop and rewrites the loads inside it. What is here is the legality check
// that MLIR's utility leaves to its caller.
//
//===----------------------------------------------------------------------===//

#include "kinds/Pack.h"
#include "Transforms.h"

#include "mlir/Dialect/Affine/Analysis/Utils.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/LoopUtils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

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

} // namespace

extern "C" {

int32_t autosched_tx_pack(MlirOperation func, const char *name, int64_t argument,
                          AutoschedTxReportFn fn, void *ctx) {
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
  }
  return AUTOSCHED_TX_OK;
}

} // extern "C"
