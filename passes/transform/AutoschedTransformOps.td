//===- AutoschedTransformOps.td - Transform ops of affine-autosched -*- tablegen -*-===//
//
// The project's Transform-dialect extension: scripts that replay (or ask for) the pass's
// schedules. Loaded with `mlir-opt-22 --load-dialect-plugin=libAffineAutosched.so`.
// Loops are named as the pass names them (L0, L0.0, L0.t, L0.d1, ...): `name_loops`
// attaches the names, `step` applies steps of the schedule language to them (legality
// checked like the pass, one transaction: refused, the IR is unchanged), `clear_names`
// removes them. Every step op consumes the function's handle and returns it again, so
// handles to loops inside the function do not outlive a change of its body.
//
//===----------------------------------------------------------------------===//

#ifndef AUTOSCHED_TRANSFORM_OPS
#define AUTOSCHED_TRANSFORM_OPS

include "mlir/Dialect/Transform/IR/TransformDialect.td"
include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

class Autosched_FuncOp<string mnemonic, list<Trait> traits = []>
    : Op<Transform_Dialect, "autosched." # mnemonic,
         !listconcat([FunctionalStyleTransformOpTrait, MemoryEffectsOpInterface,
                      TransformEachOpTrait, TransformOpInterface], traits)> {
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::func::FuncOp target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def AutoschedMatchFunctionOp : Op<Transform_Dialect, "autosched.match_function",
    [NavigationTransformOpTrait, MemoryEffectsOpInterface,
     DeclareOpInterfaceMethods<TransformOpInterface>]> {
  let summary = "The func.func named `name` in the payload (an error when there is none)";
  let arguments = (ins TransformHandleTypeInterface:$root, StrAttr:$name);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat = "$name `in` $root attr-dict `:` functional-type($root, $result)";
}

def AutoschedMatchLoopOp : Op<Transform_Dialect, "autosched.match_loop",
    [NavigationTransformOpTrait, MemoryEffectsOpInterface,
     DeclareOpInterfaceMethods<TransformOpInterface>]> {
  let summary = "Every loop named `name` (all its copies) in a function named by name_loops";
  let description = [{
    A handle for upstream loop ops (`transform.loop.unroll`). The names stay on the loops
    those ops keep or copy, so later steps find them.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target, StrAttr:$name);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat = "$name `in` $target attr-dict `:` functional-type($target, $result)";
}

def AutoschedNameLoopsOp : Autosched_FuncOp<"name_loops"> {
  let summary = "Names the function's loops as the pass does (L0, L0.0, ...)";
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat = "$target attr-dict `:` functional-type($target, $result)";
}

def AutoschedStepOp : Autosched_FuncOp<"step"> {
  let summary = "Applies steps of the schedule language to the named loops";
  let description = [{
    `schedule` holds one or more steps (`tile(L0:32, L0.0:32); parallelize(L0.t)`) of any
    kind the pass knows: distribute, fuse, interchange, tile, pack, accumulate, unroll,
    parallelize, vectorize. They are checked for legality like the pass's and applied as one
    transaction: a step that is refused fails the op with the reason and leaves the IR as
    it was.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target, StrAttr:$schedule);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat = "$target $schedule attr-dict `:` functional-type($target, $result)";
}

def AutoschedClearNamesOp : Autosched_FuncOp<"clear_names"> {
  let summary = "Removes the loop names";
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat = "$target attr-dict `:` functional-type($target, $result)";
}

def AutoschedCodegenOp : Autosched_FuncOp<"codegen"> {
  let summary = "Applies the pass's code generation options to the function";
  let description = [{
    `fp_contract`: the function's floating-point arithmetic is marked
    `fastmath<contract>` (the pass's `fp-contract=true`); `prefer_vector_width` (128, 256
    or 512): LLVM is asked to vectorize for vectors of that many bits (the pass's
    `prefer-vector-width=`, through the function's `passthrough`). Scripts the pass writes
    carry them where the pass gave them, so that the replayed function is the pass's.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target, UnitAttr:$fp_contract,
                       OptionalAttr<I64Attr>:$prefer_vector_width);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat = "$target attr-dict `:` functional-type($target, $result)";
}

def AutoschedOptimizeOp : Autosched_FuncOp<"optimize"> {
  let summary = "Runs the pass's search on the function and applies its choice";
  let description = [{
    `options` are the pass's, as written between its braces
    (`evaluator=hybrid records=tuned.db`). The remark says what was chosen; a failed
    search leaves the function unchanged.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target, DefaultValuedStrAttr<StrAttr, "">:$options);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat = "$target (`options` `=` $options^)? attr-dict `:` functional-type($target, $result)";
}

#endif // AUTOSCHED_TRANSFORM_OPS
