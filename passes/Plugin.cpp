//===- Plugin.cpp - mlir-opt pass plugin entry point ----------------------===//
//
// Loaded with `mlir-opt --load-pass-plugin=build/lib/libAffineAutosched.so`.
//
//===----------------------------------------------------------------------===//

#include "AutoschedPass.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "AffineAutosched", LLVM_VERSION_STRING,
          []() { affine_autosched::registerAffineAutoschedPass(); }};
}
