//===- Plugin.cpp - mlir-opt plugin entry points --------------------------===//
//
// Loaded with `mlir-opt --load-pass-plugin=build/lib/libAffineAutosched.so` (the pass) and
// `--load-dialect-plugin=build/lib/libAffineAutosched.so` (the transform.autosched.* ops).
//
//===----------------------------------------------------------------------===//

#include "AutoschedPass.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "transform/AutoschedTransformOps.h"

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "AffineAutosched", LLVM_VERSION_STRING,
          []() { affine_autosched::registerAffineAutoschedPass(); }};
}

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "AffineAutosched", LLVM_VERSION_STRING,
          [](::mlir::DialectRegistry *registry) {
            affine_autosched::registerTransformExtension(*registry);
          }};
}
