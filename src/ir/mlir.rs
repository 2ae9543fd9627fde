//! Small, copyable read-only views over MLIR C-API handles.
//!
//! The pass hands us a raw `MlirOperation` that C++ owns, from one of mlir-opt's worker
//! threads. melior's safe types carry lifetimes tied to a `Context` we do not own here, and it
//! has no accessors for affine-map attributes, so the walker reads the IR through these views.
//! Every function but the attribute setters and the detached clone that `canonical` hashes only
//! reads, and none uniques new attributes while
//! reading, which keeps the analysis safe to run on several functions at once.

use mlir_sys::*;
use std::ffi::c_void;

/// Collects what an MLIR C-API printing callback writes.
unsafe extern "C" fn append_to_string(part: MlirStringRef, user_data: *mut c_void) {
    let out = &mut *(user_data as *mut String);
    let bytes = std::slice::from_raw_parts(part.data as *const u8, part.length);
    out.push_str(&String::from_utf8_lossy(bytes));
}

fn string_ref_to_string(s: MlirStringRef) -> String {
    if s.data.is_null() {
        return String::new();
    }
    // SAFETY: MLIR string refs point to `length` valid bytes that outlive this call.
    let bytes = unsafe { std::slice::from_raw_parts(s.data as *const u8, s.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

fn str_ref(s: &str) -> MlirStringRef {
    MlirStringRef { data: s.as_ptr() as *const _, length: s.len() }
}

/// A view of one operation.
#[derive(Clone, Copy, Debug)]
pub struct Op(pub MlirOperation);

impl Op {
    /// # Safety
    /// `raw` must be a live operation for as long as the view is used.
    pub unsafe fn from_raw(raw: MlirOperation) -> Option<Op> {
        (!raw.ptr.is_null()).then_some(Op(raw))
    }

    pub fn name(self) -> String {
        unsafe { string_ref_to_string(mlirIdentifierStr(mlirOperationGetName(self.0))) }
    }

    pub fn same(self, other: Op) -> bool {
        unsafe { mlirOperationEqual(self.0, other.0) }
    }

    pub fn num_operands(self) -> usize {
        unsafe { mlirOperationGetNumOperands(self.0) as usize }
    }

    pub fn operand(self, i: usize) -> Val {
        Val(unsafe { mlirOperationGetOperand(self.0, i as isize) })
    }

    pub fn operands(self) -> impl Iterator<Item = Val> {
        (0..self.num_operands()).map(move |i| self.operand(i))
    }

    pub fn num_results(self) -> usize {
        unsafe { mlirOperationGetNumResults(self.0) as usize }
    }

    pub fn result(self, i: usize) -> Val {
        Val(unsafe { mlirOperationGetResult(self.0, i as isize) })
    }

    pub fn num_regions(self) -> usize {
        unsafe { mlirOperationGetNumRegions(self.0) as usize }
    }

    /// Blocks of all regions, in order.
    pub fn blocks(self) -> Vec<Blk> {
        let mut out = Vec::new();
        for r in 0..self.num_regions() {
            let region = unsafe { mlirOperationGetRegion(self.0, r as isize) };
            let mut block = unsafe { mlirRegionGetFirstBlock(region) };
            while !block.ptr.is_null() {
                out.push(Blk(block));
                block = unsafe { mlirBlockGetNextInRegion(block) };
            }
        }
        out
    }

    /// The single block of the first region (the body of an `affine.for`).
    pub fn body(self) -> Option<Blk> {
        self.blocks().into_iter().next()
    }

    pub fn parent(self) -> Option<Op> {
        unsafe { Op::from_raw(mlirOperationGetParentOperation(self.0)) }
    }

    pub fn attr(self, name: &str) -> Option<MlirAttribute> {
        let a = unsafe { mlirOperationGetAttributeByName(self.0, str_ref(name)) };
        (!a.ptr.is_null()).then_some(a)
    }

    pub fn affine_map_attr(self, name: &str) -> Option<Map> {
        let a = self.attr(name)?;
        unsafe { mlirAttributeIsAAffineMap(a).then(|| Map(mlirAffineMapAttrGetValue(a))) }
    }

    pub fn int_attr(self, name: &str) -> Option<i64> {
        let a = self.attr(name)?;
        unsafe { mlirAttributeIsAInteger(a).then(|| mlirIntegerAttrGetValueInt(a)) }
    }

    pub fn string_attr(self, name: &str) -> Option<String> {
        let a = self.attr(name)?;
        unsafe { mlirAttributeIsAString(a).then(|| string_ref_to_string(mlirStringAttrGetValue(a))) }
    }

    /// An attribute as MLIR prints it (e.g. a callee `@g`).
    pub fn attr_text(self, name: &str) -> Option<String> {
        let a = self.attr(name)?;
        let mut out = String::new();
        unsafe { mlirAttributePrint(a, Some(append_to_string), &mut out as *mut String as *mut c_void) };
        Some(out)
    }

    /// Sets a discardable string attribute. `transform` uses it to name the loops of the clone it transforms.
    pub fn set_string_attr(self, name: &str, value: &str) {
        unsafe {
            let ctx = mlirOperationGetContext(self.0);
            let attr = mlirStringAttrGet(ctx, str_ref(value));
            mlirOperationSetDiscardableAttributeByName(self.0, str_ref(name), attr);
        }
    }

    /// Renames a symbol (`sym_name` is an inherent attribute): `transform` names the copies
    /// of a function it puts side by side in one module for measuring.
    pub fn set_symbol_name(self, value: &str) {
        unsafe {
            let ctx = mlirOperationGetContext(self.0);
            let attr = mlirStringAttrGet(ctx, str_ref(value));
            mlirOperationSetAttributeByName(self.0, str_ref("sym_name"), attr);
        }
    }

    /// Sets a discardable unit attribute (e.g. `llvm.emit_c_interface` before measuring).
    pub fn set_unit_attr(self, name: &str) {
        unsafe {
            let attr = mlirUnitAttrGet(mlirOperationGetContext(self.0));
            mlirOperationSetDiscardableAttributeByName(self.0, str_ref(name), attr);
        }
    }

    /// The operation as MLIR prints it.
    pub fn to_text(self) -> String {
        let mut out = String::new();
        unsafe { mlirOperationPrint(self.0, Some(append_to_string), &mut out as *mut String as *mut c_void) };
        out
    }

    /// The operation in MLIR's generic form without locations: the canonical text that
    /// `ir::canonical` hashes (values numbered by the printer, attributes sorted).
    pub fn to_generic_text(self) -> String {
        let mut out = String::new();
        unsafe {
            let flags = mlirOpPrintingFlagsCreate();
            mlirOpPrintingFlagsPrintGenericOpForm(flags);
            mlirOpPrintingFlagsEnableDebugInfo(flags, false, false);
            mlirOperationPrintWithFlags(self.0, flags, Some(append_to_string), &mut out as *mut String as *mut c_void);
            mlirOpPrintingFlagsDestroy(flags);
        }
        out
    }

    /// Removes the discardable attribute `name` from the operation and everything in it.
    pub fn remove_attr_everywhere(self, name: &str) {
        unsafe {
            mlirOperationRemoveDiscardableAttributeByName(self.0, str_ref(name));
        }
        for b in self.blocks() {
            for op in b.ops() {
                op.remove_attr_everywhere(name);
            }
        }
    }

    /// A copy of the operation with no parent (the caller destroys it).
    pub fn detached_clone(self) -> Op {
        Op(unsafe { mlirOperationClone(self.0) })
    }

    /// Destroys an operation that has no parent.
    ///
    /// # Safety
    /// `self` must be detached and no view of it may be used afterwards.
    pub unsafe fn destroy(self) {
        mlirOperationDestroy(self.0);
    }

    /// `file:line:col` when the location has one, else MLIR's printed form.
    pub fn location(self) -> String {
        let loc = unsafe { mlirOperationGetLocation(self.0) };
        location_string(loc)
    }
}

fn location_string(loc: MlirLocation) -> String {
    unsafe {
        if mlirLocationIsAFileLineColRange(loc) {
            let file = string_ref_to_string(mlirIdentifierStr(
                mlirLocationFileLineColRangeGetFilename(loc),
            ));
            return format!(
                "{}:{}:{}",
                file,
                mlirLocationFileLineColRangeGetStartLine(loc),
                mlirLocationFileLineColRangeGetStartColumn(loc)
            );
        }
        if mlirLocationIsAName(loc) {
            return location_string(mlirLocationNameGetChildLoc(loc));
        }
        if mlirLocationIsAFused(loc) && mlirLocationFusedGetNumLocations(loc) > 0 {
            let n = mlirLocationFusedGetNumLocations(loc) as usize;
            let mut locs = vec![loc; n];
            mlirLocationFusedGetLocations(loc, locs.as_mut_ptr());
            return location_string(locs[0]);
        }
        let mut out = String::new();
        mlirLocationPrint(loc, Some(append_to_string), &mut out as *mut String as *mut c_void);
        out
    }
}

/// A view of one block.
#[derive(Clone, Copy, Debug)]
pub struct Blk(pub MlirBlock);

impl Blk {
    pub fn ops(self) -> Vec<Op> {
        let mut out = Vec::new();
        let mut op = unsafe { mlirBlockGetFirstOperation(self.0) };
        while !op.ptr.is_null() {
            out.push(Op(op));
            op = unsafe { mlirOperationGetNextInBlock(op) };
        }
        out
    }

    pub fn num_arguments(self) -> usize {
        unsafe { mlirBlockGetNumArguments(self.0) as usize }
    }

    pub fn argument(self, i: usize) -> Val {
        Val(unsafe { mlirBlockGetArgument(self.0, i as isize) })
    }

    pub fn parent_op(self) -> Option<Op> {
        unsafe { Op::from_raw(mlirBlockGetParentOperation(self.0)) }
    }
}

/// Where a value comes from.
#[derive(Clone, Copy, Debug)]
pub enum Def {
    /// Argument `index` of a block owned by operation `owner`; `entry` when the block is
    /// the first of its region (for a function: the signature's arguments).
    BlockArg { owner: Option<Op>, index: usize, entry: bool },
    /// Result `index` of operation `op`.
    Result { op: Op, index: usize },
}

/// A view of one SSA value.
#[derive(Clone, Copy, Debug)]
pub struct Val(pub MlirValue);

impl Val {
    pub fn same(self, other: Val) -> bool {
        unsafe { mlirValueEqual(self.0, other.0) }
    }

    /// Every use of the value: the using operation and the operand's position in it.
    pub fn uses(self) -> Vec<(Op, usize)> {
        let mut out = Vec::new();
        unsafe {
            let mut u = mlirValueGetFirstUse(self.0);
            while !mlirOpOperandIsNull(u) {
                out.push((Op(mlirOpOperandGetOwner(u)), mlirOpOperandGetOperandNumber(u) as usize));
                u = mlirOpOperandGetNextUse(u);
            }
        }
        out
    }

    pub fn def(self) -> Def {
        unsafe {
            if mlirValueIsABlockArgument(self.0) {
                let block = mlirBlockArgumentGetOwner(self.0);
                let region = mlirBlockGetParentRegion(block);
                Def::BlockArg {
                    owner: Op::from_raw(mlirBlockGetParentOperation(block)),
                    index: mlirBlockArgumentGetArgNumber(self.0) as usize,
                    entry: !region.ptr.is_null() && mlirBlockEqual(mlirRegionGetFirstBlock(region), block),
                }
            } else {
                Def::Result {
                    op: Op(mlirOpResultGetOwner(self.0)),
                    index: mlirOpResultGetResultNumber(self.0) as usize,
                }
            }
        }
    }

    pub fn ty(self) -> Ty {
        Ty(unsafe { mlirValueGetType(self.0) })
    }
}

/// A view of one type.
#[derive(Clone, Copy, Debug)]
pub struct Ty(pub MlirType);

impl Ty {
    pub fn is_memref(self) -> bool {
        unsafe { mlirTypeIsAMemRef(self.0) }
    }

    pub fn is_index(self) -> bool {
        unsafe { mlirTypeIsAIndex(self.0) }
    }

    /// Static shape of a ranked shaped type; `None` entries are dynamic dimensions.
    pub fn shape(self) -> Vec<Option<i64>> {
        unsafe {
            let rank = mlirShapedTypeGetRank(self.0);
            (0..rank)
                .map(|d| {
                    if mlirShapedTypeIsDynamicDim(self.0, d as isize) {
                        None
                    } else {
                        Some(mlirShapedTypeGetDimSize(self.0, d as isize))
                    }
                })
                .collect()
        }
    }

    pub fn element_type(self) -> Ty {
        Ty(unsafe { mlirShapedTypeGetElementType(self.0) })
    }

    /// True for a memref whose layout is the identity (row-major, no offset).
    pub fn has_identity_layout(self) -> bool {
        unsafe { mlirAffineMapIsIdentity(mlirMemRefTypeGetAffineMap(self.0)) }
    }

    pub fn has_default_memory_space(self) -> bool {
        unsafe { mlirMemRefTypeGetMemorySpace(self.0).ptr.is_null() }
    }

    pub fn to_text(self) -> String {
        let mut out = String::new();
        unsafe {
            mlirTypePrint(self.0, Some(append_to_string), &mut out as *mut String as *mut c_void)
        };
        out
    }
}

/// A view of one affine map.
#[derive(Clone, Copy, Debug)]
pub struct Map(pub MlirAffineMap);

impl Map {
    pub fn num_dims(self) -> usize {
        unsafe { mlirAffineMapGetNumDims(self.0) as usize }
    }
    pub fn num_symbols(self) -> usize {
        unsafe { mlirAffineMapGetNumSymbols(self.0) as usize }
    }
    pub fn num_inputs(self) -> usize {
        self.num_dims() + self.num_symbols()
    }
    pub fn results(self) -> Vec<Expr> {
        unsafe {
            (0..mlirAffineMapGetNumResults(self.0))
                .map(|i| Expr(mlirAffineMapGetResult(self.0, i)))
                .collect()
        }
    }
    pub fn to_text(self) -> String {
        let mut out = String::new();
        unsafe {
            mlirAffineMapPrint(self.0, Some(append_to_string), &mut out as *mut String as *mut c_void)
        };
        out
    }
}

/// The shape of one affine expression node.
#[derive(Clone, Copy, Debug)]
pub enum ExprKind {
    Constant(i64),
    Dim(usize),
    Symbol(usize),
    Add(Expr, Expr),
    Mul(Expr, Expr),
    Mod(Expr, Expr),
    FloorDiv(Expr, Expr),
    CeilDiv(Expr, Expr),
}

/// A view of one affine expression.
#[derive(Clone, Copy, Debug)]
pub struct Expr(pub MlirAffineExpr);

impl Expr {
    pub fn kind(self) -> ExprKind {
        unsafe {
            let e = self.0;
            let bin = || (Expr(mlirAffineBinaryOpExprGetLHS(e)), Expr(mlirAffineBinaryOpExprGetRHS(e)));
            if mlirAffineExprIsAConstant(e) {
                ExprKind::Constant(mlirAffineConstantExprGetValue(e))
            } else if mlirAffineExprIsADim(e) {
                ExprKind::Dim(mlirAffineDimExprGetPosition(e) as usize)
            } else if mlirAffineExprIsASymbol(e) {
                ExprKind::Symbol(mlirAffineSymbolExprGetPosition(e) as usize)
            } else if mlirAffineExprIsAAdd(e) {
                let (l, r) = bin();
                ExprKind::Add(l, r)
            } else if mlirAffineExprIsAMul(e) {
                let (l, r) = bin();
                ExprKind::Mul(l, r)
            } else if mlirAffineExprIsAMod(e) {
                let (l, r) = bin();
                ExprKind::Mod(l, r)
            } else if mlirAffineExprIsAFloorDiv(e) {
                let (l, r) = bin();
                ExprKind::FloorDiv(l, r)
            } else {
                let (l, r) = bin();
                ExprKind::CeilDiv(l, r)
            }
        }
    }
}
