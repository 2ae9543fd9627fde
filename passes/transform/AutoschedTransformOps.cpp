//===- AutoschedTransformOps.cpp - Transform ops of affine-autosched ------===//
//
// A thin shell like the pass: each op hands its payload function to the Rust core
// (src/ffi.rs: autosched_transform_*) and turns its errors into the op's failure.
//
//===----------------------------------------------------------------------===//

#include "AutoschedTransformOps.h"
#include "../AutoschedFFI.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"

using namespace mlir;

namespace {

/// Collects what the Rust core says: errors become the op's failure message, remarks and
/// warnings are emitted at the operation they name.
struct Collected {
  std::string errors;
  Operation *fallback;
};

void collect(void *ctx, MlirOperation op, int32_t severity, const char *msg, size_t len) {
  auto *c = static_cast<Collected *>(ctx);
  StringRef text(msg, len);
  Operation *at = op.ptr ? unwrap(op) : c->fallback;
  switch (severity) {
  case AUTOSCHED_REMARK:
    emitRemark(at->getLoc()) << text;
    break;
  case AUTOSCHED_WARNING:
    emitWarning(at->getLoc()) << text;
    break;
  default:
    if (!c->errors.empty())
      c->errors += "; ";
    c->errors += text.str();
    break;
  }
}

class AutoschedTransformExtension
    : public transform::TransformDialectExtension<AutoschedTransformExtension> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AutoschedTransformExtension)
  using Base::Base;

  void init() {
    // What the steps create (as the pass's getDependentDialects).
    declareGeneratedDialect<affine::AffineDialect>();
    declareGeneratedDialect<arith::ArithDialect>();
    declareGeneratedDialect<memref::MemRefDialect>();
    declareGeneratedDialect<ub::UBDialect>();
    declareGeneratedDialect<vector::VectorDialect>();
    declareDependentDialect<func::FuncDialect>();
    registerTransformOps<
#define GET_OP_LIST
#include "AutoschedTransformOps.cpp.inc"
        >();
  }
};

} // namespace

#define GET_OP_CLASSES
#include "AutoschedTransformOps.cpp.inc"

DiagnosedSilenceableFailure
transform::AutoschedMatchFunctionOp::apply(transform::TransformRewriter &,
                                           transform::TransformResults &results,
                                           transform::TransformState &state) {
  SmallVector<Operation *> found;
  for (Operation *root : state.getPayloadOps(getRoot()))
    root->walk([&](func::FuncOp f) {
      if (f.getSymName() == getName())
        found.push_back(f);
    });
  if (found.empty())
    return emitSilenceableError() << "no func.func @" << getName() << " in the payload";
  results.set(cast<OpResult>(getResult()), found);
  return DiagnosedSilenceableFailure::success();
}

DiagnosedSilenceableFailure
transform::AutoschedMatchLoopOp::apply(transform::TransformRewriter &,
                                       transform::TransformResults &results,
                                       transform::TransformState &state) {
  // The attribute transform::name_loops puts on loops (kTag in passes/Transforms.cpp).
  constexpr const char *tag = "autosched.loop";
  SmallVector<Operation *> found;
  for (Operation *root : state.getPayloadOps(getTarget()))
    root->walk([&](affine::AffineForOp l) {
      if (auto a = l->getAttrOfType<StringAttr>(tag); a && a.getValue() == getName())
        found.push_back(l);
    });
  if (found.empty())
    return emitSilenceableError() << "no loop named " << getName()
                                  << " (are the loops named? transform.autosched.name_loops)";
  results.set(cast<OpResult>(getResult()), found);
  return DiagnosedSilenceableFailure::success();
}

DiagnosedSilenceableFailure transform::AutoschedNameLoopsOp::applyToOne(
    transform::TransformRewriter &, func::FuncOp target,
    transform::ApplyToEachResultList &results, transform::TransformState &) {
  Collected c{"", target};
  if (autosched_transform_name_loops(wrap(target.getOperation()), collect, &c) != 0)
    return emitSilenceableError() << "affine-autosched: " << c.errors;
  results.push_back(target);
  return DiagnosedSilenceableFailure::success();
}

DiagnosedSilenceableFailure transform::AutoschedStepOp::applyToOne(
    transform::TransformRewriter &, func::FuncOp target,
    transform::ApplyToEachResultList &results, transform::TransformState &) {
  Collected c{"", target};
  std::string schedule = getSchedule().str();
  if (autosched_transform_step(wrap(target.getOperation()), schedule.c_str(), collect,
                               &c) != 0) {
    // The script stops here: the names go, so that the function is left as the earlier
    // steps made it.
    autosched_transform_clear_names(wrap(target.getOperation()));
    return emitSilenceableError()
           << "affine-autosched: @" << target.getSymName() << ": " << c.errors
           << "; this op's steps were not applied (earlier ops' stay)";
  }
  results.push_back(target);
  return DiagnosedSilenceableFailure::success();
}

DiagnosedSilenceableFailure transform::AutoschedClearNamesOp::applyToOne(
    transform::TransformRewriter &, func::FuncOp target,
    transform::ApplyToEachResultList &results, transform::TransformState &) {
  autosched_transform_clear_names(wrap(target.getOperation()));
  results.push_back(target);
  return DiagnosedSilenceableFailure::success();
}

DiagnosedSilenceableFailure transform::AutoschedCodegenOp::applyToOne(
    transform::TransformRewriter &, func::FuncOp target,
    transform::ApplyToEachResultList &results, transform::TransformState &) {
  Collected c{"", target};
  int64_t width = getPreferVectorWidth().value_or(0);
  if (autosched_transform_codegen(wrap(target.getOperation()), getFpContract() ? 1 : 0, width,
                                  collect, &c) != 0)
    return emitSilenceableError() << c.errors;
  results.push_back(target);
  return DiagnosedSilenceableFailure::success();
}

DiagnosedSilenceableFailure transform::AutoschedOptimizeOp::applyToOne(
    transform::TransformRewriter &, func::FuncOp target,
    transform::ApplyToEachResultList &results, transform::TransformState &) {
  Collected c{"", target};
  std::string options = getOptions().str();
  if (autosched_transform_optimize(wrap(target.getOperation()), options.c_str(), collect,
                                   &c) == AUTOSCHED_FAILED)
    return emitSilenceableError() << c.errors;
  results.push_back(target);
  return DiagnosedSilenceableFailure::success();
}

void affine_autosched::registerTransformExtension(DialectRegistry &registry) {
  registry.addExtensions<AutoschedTransformExtension>();
}
