//===- Distribute.cpp - Loop distribution ---------------------------------===//
//
// The entry point of this kind (declared in passes/kinds/Distribute.h) and the helpers
// only it uses; what the kinds share is in passes/Transforms.h.
//
//===----------------------------------------------------------------------===//

#include "kinds/Distribute.h"
#include "Transforms.h"

#include "mlir/Dialect/Affine/Analysis/AffineAnalysis.h"
#include "mlir/Dialect/Affine/Analysis/Utils.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

using namespace mlir;
using namespace mlir::affine;
using namespace autosched;

extern "C" {

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

} // extern "C"
