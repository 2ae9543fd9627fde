//===- AutoschedPass.h - The affine-autosched pass --------------*- C++ -*-===//
#ifndef AFFINE_AUTOSCHED_PASS_H
#define AFFINE_AUTOSCHED_PASS_H

namespace affine_autosched {
/// Registers `affine-autosched` with MLIR's pass registry.
void registerAffineAutoschedPass();
} // namespace affine_autosched

#endif // AFFINE_AUTOSCHED_PASS_H
