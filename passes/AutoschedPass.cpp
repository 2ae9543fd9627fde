//===- AutoschedPass.cpp - The affine-autosched pass ----------------------===//
//
// A thin shell: it declares the options to MLIR's parser, hands each function to the
// Rust core (src/pass.rs through src/ffi.rs) and emits the diagnostics it returns.
//
//===----------------------------------------------------------------------===//

#include "AutoschedPass.h"
#include "AutoschedFFI.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {

int64_t defaultOption(int which) {
  int64_t beam = 0, depth = 0, topK = 0, confidence = 0;
  autosched_default_options(&beam, &depth, &topK, &confidence);
  return which == 0 ? beam : which == 1 ? depth : which == 2 ? topK : confidence;
}

struct AffineAutoschedPass
    : public PassWrapper<AffineAutoschedPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AffineAutoschedPass)

  AffineAutoschedPass() = default;
  // Options are re-created with their defaults; Pass::clone copies their values.
  AffineAutoschedPass(const AffineAutoschedPass &other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "affine-autosched"; }
  StringRef getDescription() const final {
    return "Learned loop-nest optimizer for affine loop nests (fusion, interchange, "
           "tiling, unrolling, parallelization, vectorization)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    // What the transformations create: vector ops and ub.poison (vectorizer),
    // affine.parallel (parallelization).
    registry.insert<affine::AffineDialect, arith::ArithDialect,
                    memref::MemRefDialect, ub::UBDialect, vector::VectorDialect>();
  }

  Option<bool> dumpRepresentation{
      *this, "dump-representation",
      llvm::cl::desc("Emit the program representation of each modeled nest as a "
                     "JSON remark"),
      llvm::cl::init(false)};
  Option<std::string> dumpFile{
      *this, "dump-file",
      llvm::cl::desc("Also write each function's representation as one JSON line "
                     "to this file (truncated at the start of the run)"),
      llvm::cl::init("")};
  Option<std::string> schedule{
      *this, "schedule",
      llvm::cl::desc("Apply this explicit schedule instead of searching"),
      llvm::cl::init("")};
  Option<int64_t> beamWidth{*this, "beam-width",
                            llvm::cl::desc("Beam width of the schedule search"),
                            llvm::cl::init(defaultOption(0))};
  Option<int64_t> maxDepth{
      *this, "max-depth",
      llvm::cl::desc("Maximum number of transformations on any one loop nest "
                     "of a schedule (32 in all at most)"),
      llvm::cl::init(defaultOption(1))};
  Option<std::string> model{
      *this, "model",
      llvm::cl::desc("Path of the ONNX cost model (default: the shipped model)"),
      llvm::cl::init("")};
  Option<std::string> evaluator{
      *this, "evaluator",
      llvm::cl::desc("How candidates are scored: model, execution or hybrid"),
      llvm::cl::init("model")};
  Option<int64_t> measureTopK{
      *this, "measure-top-k",
      llvm::cl::desc("With evaluator=hybrid: how many finalists are executed"),
      llvm::cl::init(defaultOption(2))};
  Option<int64_t> confidence{
      *this, "confidence",
      llvm::cl::desc("With evaluator=model: apply a schedule only if the model gives it "
                     "at least this probability, in percent, of beating the original "
                     "(the low end of its error interval; 50 = the point estimate)"),
      llvm::cl::init(defaultOption(3))};

  Option<std::string> records{
      *this, "records",
      llvm::cl::desc("Tuning records database (SQLite): a function measured before on "
                     "this machine gets its best measured schedule without a search; "
                     "measuring runs (hybrid, execution) add what they measured"),
      llvm::cl::init("")};
  Option<std::string> report{
      *this, "report",
      llvm::cl::desc("Write each function's decision as one JSON line to this file "
                     "(truncated at the start of the run; schema: "
                     "src/report.schema.json)"),
      llvm::cl::init("")};

  Option<std::string> emitTransform{
      *this, "emit-transform",
      llvm::cl::desc("Write the chosen schedules as a Transform-dialect script to this "
                     "file (transform.named_sequence per function; replay with "
                     "--load-dialect-plugin and --transform-interpreter)"),
      llvm::cl::init("")};

  Option<bool> fpContract{
      *this, "fp-contract",
      llvm::cl::desc("Allow LLVM to fuse each floating-point multiply into the add or "
                     "subtract that uses it (marks the function's addf, subf and mulf "
                     "fastmath<contract>, as clang's -ffp-contract=fast): one rounding "
                     "instead of two, so results may differ in the last bits. Off by "
                     "default: without it no result changes"),
      llvm::cl::init(false)};

  Option<int64_t> preferVectorWidth{
      *this, "prefer-vector-width",
      llvm::cl::desc("Ask LLVM to vectorize the function for vectors of this many bits "
                     "(128, 256 or 512; 0: as LLVM chooses, which is 256 on x86 with "
                     "AVX-512): the LLVM function attribute prefer-vector-width, set "
                     "through func.func's passthrough attribute"),
      llvm::cl::init(0)};

  AutoschedOptions ffiOptions() const {
    AutoschedOptions o;
    o.dump_representation = dumpRepresentation;
    o.dump_file = dumpFile.getValue().c_str();
    o.schedule = schedule.getValue().c_str();
    o.beam_width = beamWidth;
    o.max_depth = maxDepth;
    o.model = model.getValue().c_str();
    o.evaluator = evaluator.getValue().c_str();
    o.measure_top_k = measureTopK;
    o.confidence = confidence;
    o.records = records.getValue().c_str();
    o.report = report.getValue().c_str();
    o.emit_transform = emitTransform.getValue().c_str();
    o.fp_contract = fpContract;
    o.prefer_vector_width = preferVectorWidth;
    return o;
  }

  struct EmitContext {
    Operation *fallback;
    MLIRContext *context;
  };

  static void emit(void *ctx, MlirOperation op, int32_t severity,
                   const char *msg, size_t len) {
    auto *ec = static_cast<EmitContext *>(ctx);
    StringRef text(msg, len);
    Operation *target = op.ptr ? unwrap(op) : ec->fallback;
    Location loc = target ? target->getLoc() : UnknownLoc::get(ec->context);
    switch (severity) {
    case AUTOSCHED_REMARK:
      mlir::emitRemark(loc) << text;
      break;
    case AUTOSCHED_WARNING:
      mlir::emitWarning(loc) << text;
      break;
    default:
      mlir::emitError(loc) << text;
      break;
    }
  }

  LogicalResult initialize(MLIRContext *context) override {
    AutoschedOptions o = ffiOptions();
    EmitContext ec{nullptr, context};
    return autosched_begin_run(&o, &AffineAutoschedPass::emit, &ec) == 0
               ? success()
               : failure();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    AutoschedOptions o = ffiOptions();
    EmitContext ec{func.getOperation(), &getContext()};
    switch (autosched_run_on_function(wrap(func.getOperation()), &o,
                                      &AffineAutoschedPass::emit, &ec)) {
    case AUTOSCHED_UNCHANGED:
      markAllAnalysesPreserved();
      break;
    case AUTOSCHED_TRANSFORMED:
      break;
    default:
      signalPassFailure();
      break;
    }
  }
};

} // namespace

void affine_autosched::registerAffineAutoschedPass() {
  PassRegistration<AffineAutoschedPass>();
}
