//===- AutoschedTransformOps.h - Transform ops of affine-autosched -*- C++ -*-===//
#ifndef AFFINE_AUTOSCHED_TRANSFORM_OPS_H
#define AFFINE_AUTOSCHED_TRANSFORM_OPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/IR/DialectRegistry.h"

#define GET_OP_CLASSES
#include "AutoschedTransformOps.h.inc"

namespace affine_autosched {
/// Adds the transform.autosched.* ops to the Transform dialect of `registry`.
void registerTransformExtension(mlir::DialectRegistry &registry);
} // namespace affine_autosched

#endif // AFFINE_AUTOSCHED_TRANSFORM_OPS_H
