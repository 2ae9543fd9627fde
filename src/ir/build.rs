//! Builds a [`Program`] from a `func.func`: one pass over its top-level `affine.for` nests.
//!
//! Each nest is modeled as a transaction: if anything in it falls outside what the
//! representation can describe, everything recorded for it is rolled back and the nest is
//! listed in [`Program::not_modeled`] with the reason. The IR is only read.

use super::linear::{ceil_div, floor_div, modulo, Linear, NonLinear};
use super::mlir::{Blk, Def, ExprKind, Map, Op, Ty, Val};
use super::repr::*;
use std::collections::{BTreeMap, HashSet};
use std::fmt;

/// Why a nest is left alone. The text follows `affine-autosched: nest not modeled: `.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotModeled {
    #[error("'affine.if' at {loc} (conditional execution)")]
    AffineIf { loc: String },
    #[error("call to {callee} at {loc} (calls may have side effects)")]
    Call { callee: String, loc: String },
    #[error("non-affine access '{op}' at {loc}")]
    NonAffineAccess { op: String, loc: String },
    #[error("'{op}' loop at {loc} (only affine.for loops are modeled)")]
    NonAffineLoop { op: String, loc: String },
    #[error("'affine.parallel' at {loc} (the nest is already parallelized)")]
    AlreadyParallel { loc: String },
    #[error("loop-carried values (iter_args) on the loop at {loc}: {why}")]
    IterArgs { why: &'static str, loc: String },
    #[error("dynamic shape {ty} of a buffer accessed at {loc}")]
    DynamicShape { ty: String, loc: String },
    #[error("buffer type {ty} accessed at {loc} has a non-identity layout or memory space")]
    NonIdentityLayout { ty: String, loc: String },
    #[error("buffer accessed at {loc} is defined by '{op}' (views and aliasing are not modeled)")]
    BufferView { op: String, loc: String },
    #[error("unsupported element type {ty} at {loc}")]
    ElementType { ty: String, loc: String },
    #[error("{what} at {loc} is not linear: it contains {why}")]
    NonLinear { what: &'static str, why: NonLinear, loc: String },
    #[error("subscript of the access at {loc} depends on a symbol")]
    SymbolInSubscript { loc: String },
    #[error("index operand at {loc} is defined by '{op}' (neither an induction variable, a constant nor a function argument)")]
    OpaqueIndex { op: String, loc: String },
    #[error("value used at {loc} comes from a block argument of '{op}'")]
    OpaqueValue { op: String, loc: String },
    #[error("vector operation '{op}' at {loc} (the nest is already vectorized)")]
    Vector { op: String, loc: String },
    #[error("memory allocation '{op}' inside the nest at {loc}")]
    Allocation { op: String, loc: String },
    #[error("unsupported operation '{op}' at {loc}")]
    UnsupportedOp { op: String, loc: String },
    #[error("loop nested inside '{op}' at {loc} (only top-level affine.for nests are modeled)")]
    Enclosed { op: String, loc: String },
}

/// The result of analysing one function: the program and the operations it refers to.
#[derive(Debug)]
pub struct Analysis {
    pub program: Program,
    /// Root `affine.for` of each modeled nest, by `Nest::index`.
    pub nest_ops: Vec<Op>,
    /// The operation each `not_modeled` entry is about, in the same order.
    pub not_modeled_ops: Vec<Op>,
    /// The `affine.for` of each loop, by `LoopId`.
    pub loop_ops: Vec<Op>,
}

/// Errors that prevent analysing a function at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnalysisError {
    #[error("expected a 'func.func' operation, got '{0}'")]
    NotAFunction(String),
}

/// Analyses one `func.func`. Never fails on unmodeled nests: they are reported in the result.
pub fn analyze_function(func: Op) -> Result<Analysis, AnalysisError> {
    let name = func.name();
    if name != "func.func" {
        return Err(AnalysisError::NotAFunction(name));
    }
    let mut b = Builder {
        func,
        program: Program {
            schema_version: SCHEMA_VERSION,
            function: func.string_attr("sym_name").unwrap_or_default(),
            buffers: Vec::new(),
            symbols: Vec::new(),
            nests: Vec::new(),
            loops: Vec::new(),
            computations: Vec::new(),
            not_modeled: Vec::new(),
        },
        buffer_vals: Vec::new(),
        symbol_vals: Vec::new(),
        nest_ops: Vec::new(),
        not_modeled_ops: Vec::new(),
        loop_ops: Vec::new(),
        reduction_stores: HashSet::new(),
    };
    let mut position = 0;
    for block in func.blocks() {
        for op in block.ops() {
            match op.name().as_str() {
                "affine.for" => b.model_nest(op, position),
                "affine.parallel" => {
                    b.refuse(op, position, NotModeled::AlreadyParallel { loc: op.location() })
                }
                _ => b.find_enclosed_loops(op, position),
            }
            position += 1;
        }
    }
    Ok(Analysis {
        program: b.program,
        nest_ops: b.nest_ops,
        not_modeled_ops: b.not_modeled_ops,
        loop_ops: b.loop_ops,
    })
}

struct Builder {
    func: Op,
    program: Program,
    buffer_vals: Vec<Val>,
    symbol_vals: Vec<Val>,
    nest_ops: Vec<Op>,
    not_modeled_ops: Vec<Op>,
    loop_ops: Vec<Op>,
    /// Stores of a reduction's result (by address): part of the reduction's computation.
    reduction_stores: HashSet<usize>,
}

/// The loops enclosing the point being visited, outermost first.
#[derive(Clone, Default)]
struct Scope {
    ivs: Vec<(Val, LoopId)>,
}

impl Scope {
    fn loop_of(&self, v: Val) -> Option<LoopId> {
        self.ivs.iter().find(|(iv, _)| iv.same(v)).map(|(_, l)| *l)
    }
    fn iterators(&self) -> Vec<LoopId> {
        self.ivs.iter().map(|(_, l)| *l).collect()
    }
}

impl Builder {
    fn refuse(&mut self, op: Op, position: usize, why: NotModeled) {
        self.program.not_modeled.push(NotModeledNest {
            position,
            location: op.location(),
            reason: why.to_string(),
        });
        self.not_modeled_ops.push(op);
    }

    /// Reports affine loops hidden inside other top-level operations (e.g. an `scf.if`).
    fn find_enclosed_loops(&mut self, top: Op, position: usize) {
        fn walk(op: Op, out: &mut Vec<(Op, Op)>) {
            for block in op.blocks() {
                for inner in block.ops() {
                    if matches!(inner.name().as_str(), "affine.for" | "affine.parallel") {
                        out.push((inner, op));
                    } else {
                        walk(inner, out);
                    }
                }
            }
        }
        let mut found = Vec::new();
        walk(top, &mut found);
        for (inner, encloser) in found {
            let why = NotModeled::Enclosed { op: encloser.name(), loc: encloser.location() };
            self.refuse(inner, position, why);
        }
    }

    fn model_nest(&mut self, root: Op, position: usize) {
        let checkpoint = (
            self.program.loops.len(),
            self.program.computations.len(),
            self.program.buffers.len(),
            self.program.symbols.len(),
        );
        let nest = self.program.nests.len();
        let mut nest_ops = HashSet::new();
        collect_ops(root, &mut nest_ops);
        let mut visitor = NestVisitor { b: self, nest, nest_ops: &nest_ops, accumulator: None };
        match visitor.visit_loop(root, None, format!("L{nest}"), &mut Scope::default()) {
            Ok(root_id) => {
                self.program.nests.push(Nest {
                    index: nest,
                    position,
                    location: root.location(),
                    root: root_id,
                });
                self.nest_ops.push(root);
            }
            Err(why) => {
                let p = &mut self.program;
                p.loops.truncate(checkpoint.0);
                self.loop_ops.truncate(checkpoint.0);
                p.computations.truncate(checkpoint.1);
                p.buffers.truncate(checkpoint.2);
                self.buffer_vals.truncate(checkpoint.2);
                p.symbols.truncate(checkpoint.3);
                self.symbol_vals.truncate(checkpoint.3);
                log::debug!("nest at {} not modeled: {why}", root.location());
                self.refuse(root, position, why);
            }
        }
    }
}

fn collect_ops(op: Op, out: &mut HashSet<usize>) {
    out.insert(op.0.ptr as usize);
    for block in op.blocks() {
        for inner in block.ops() {
            collect_ops(inner, out);
        }
    }
}

struct NestVisitor<'b> {
    b: &'b mut Builder,
    nest: usize,
    /// Every operation of the nest, by address: tells nest-local values from invariant ones.
    nest_ops: &'b HashSet<usize>,
    /// While reading a reduction's yielded expression: its loop and the position of the
    /// accumulator among the loop body's arguments.
    accumulator: Option<(Op, usize)>,
}

type Res<T> = Result<T, NotModeled>;

impl NestVisitor<'_> {
    fn inside(&self, op: Op) -> bool {
        self.nest_ops.contains(&(op.0.ptr as usize))
    }

    fn visit_loop(
        &mut self,
        op: Op,
        parent: Option<LoopId>,
        name: String,
        scope: &mut Scope,
    ) -> Res<LoopId> {
        let loc = op.location();
        let (lb_map, ub_map) = match (op.affine_map_attr("lowerBoundMap"), op.affine_map_attr("upperBoundMap")) {
            (Some(l), Some(u)) => (l, u),
            _ => return Err(NotModeled::UnsupportedOp { op: op.name(), loc }),
        };
        let (nl, nu) = (lb_map.num_inputs(), ub_map.num_inputs());
        if op.num_operands() != nl + nu + op.num_results() {
            return Err(NotModeled::UnsupportedOp { op: op.name(), loc });
        }
        let lb_operands: Vec<Val> = (0..nl).map(|i| op.operand(i)).collect();
        let ub_operands: Vec<Val> = (nl..nl + nu).map(|i| op.operand(i)).collect();
        let mut lower = self.bounds(lb_map, &lb_operands, "lower bound", scope, &loc)?;
        let mut upper = self.bounds(ub_map, &ub_operands, "upper bound", scope, &loc)?;
        let step = op.int_attr("step").unwrap_or(1);
        // Constant bounds: max of the lower, min of the upper.
        let lo = lower.iter().map(Bound::as_constant).collect::<Option<Vec<i64>>>().and_then(|v| v.into_iter().max());
        let hi = upper.iter().map(Bound::as_constant).collect::<Option<Vec<i64>>>().and_then(|v| v.into_iter().min());
        let trip_count = match (lo, hi) {
            (Some(l), Some(u)) if step > 0 => Some(ceil_div(u - l, step).unwrap_or(0).max(0)),
            _ => None,
        };
        let (lower_max, upper_min) = (lower.split_off(1), upper.split_off(1));
        let (lower, upper) = (lower.remove(0), upper.remove(0));
        let id = self.b.program.loops.len();
        self.b.loop_ops.push(op);
        self.b.program.loops.push(Loop {
            id,
            name: name.clone(),
            nest: self.nest,
            parent,
            depth: scope.ivs.len(),
            lower,
            lower_max,
            upper,
            upper_min,
            step,
            trip_count,
            is_reduction: false,
            children: Vec::new(),
            location: loc.clone(),
        });
        let body = op.body().ok_or_else(|| NotModeled::UnsupportedOp { op: op.name(), loc: loc.clone() })?;
        scope.ivs.push((body.argument(0), id));
        let result = self.visit_body(op, body, id, &name, scope);
        scope.ivs.pop();
        result?;
        Ok(id)
    }

    fn visit_body(&mut self, op: Op, body: Blk, id: LoopId, name: &str, scope: &mut Scope) -> Res<()> {
        let loop_op = op;
        let mut loop_children = 0;
        for op in body.ops() {
            let op_name = op.name();
            let loc = op.location();
            match op_name.as_str() {
                "affine.for" => {
                    let child_name = format!("{name}.{loop_children}");
                    loop_children += 1;
                    let child = self.visit_loop(op, Some(id), child_name, scope)?;
                    self.b.program.loops[id].children.push(Child::Loop(child));
                }
                // The store of a reduction's result belongs to the reduction's computation.
                "affine.store" if self.b.reduction_stores.contains(&(op.0.ptr as usize)) => {}
                "affine.store" => {
                    let comp = self.visit_store(op, id, scope)?;
                    self.b.program.loops[id].children.push(Child::Computation(comp));
                }
                "affine.yield" => {
                    for r in 0..op.num_operands() {
                        let comp = self.visit_reduction(loop_op, op, r, id, scope)?;
                        self.b.program.loops[id].children.push(Child::Computation(comp));
                    }
                }
                // Pure values: read when a store's expression reaches them.
                "affine.load" | "affine.apply" => {}
                n if (n.starts_with("arith.") || n.starts_with("math.")) && op.num_regions() == 0 => {}
                _ => return Err(classify_unsupported(op, op_name, loc)),
            }
        }
        Ok(())
    }

    /// The expressions of a bound map: one, or the operands of its `max` (lower) or `min`
    /// (upper), as tiling makes them.
    fn bounds(&mut self, map: Map, operands: &[Val], what: &'static str, scope: &Scope, loc: &str) -> Res<Vec<Bound>> {
        let n = map.results().len();
        if n == 0 {
            return Err(NotModeled::UnsupportedOp { op: format!("{what} with no expression"), loc: loc.into() });
        }
        (0..n)
            .map(|r| {
                let lin = self.linearize_map_result(map, r, operands, scope, what, loc)?;
                Ok(Bound {
                    constant: lin.constant,
                    loops: lin.loops.into_iter().map(|(of, coeff)| Term { of, coeff }).collect(),
                    symbols: lin.symbols.into_iter().map(|(of, coeff)| Term { of, coeff }).collect(),
                })
            })
            .collect()
    }

    fn linearize_map_result(
        &mut self,
        map: Map,
        result: usize,
        operands: &[Val],
        scope: &Scope,
        what: &'static str,
        loc: &str,
    ) -> Res<Linear> {
        let inputs = operands
            .iter()
            .map(|v| self.index_value(*v, scope, loc))
            .collect::<Res<Vec<_>>>()?;
        let dims = map.num_dims();
        let expr = map.results()[result];
        linearize(expr, &inputs[..dims], &inputs[dims..])
            .map_err(|why| NotModeled::NonLinear { what, why, loc: loc.into() })
    }

    /// An index-typed operand of a bound or subscript, in linear form.
    fn index_value(&mut self, v: Val, scope: &Scope, loc: &str) -> Res<Linear> {
        if let Some(l) = scope.loop_of(v) {
            return Ok(Linear::of_loop(l));
        }
        match v.def() {
            Def::BlockArg { owner: Some(owner), index, entry: true } if owner.same(self.b.func) && v.ty().is_index() => {
                Ok(Linear::of_symbol(self.symbol(v, index)))
            }
            Def::BlockArg { owner, .. } => Err(NotModeled::OpaqueValue {
                op: owner.map(|o| o.name()).unwrap_or_else(|| "<detached block>".into()),
                loc: loc.into(),
            }),
            Def::Result { op, .. } => match op.name().as_str() {
                "arith.constant" => op
                    .int_attr("value")
                    .map(Linear::constant)
                    .ok_or_else(|| NotModeled::OpaqueIndex { op: op.name(), loc: loc.into() }),
                "affine.apply" => {
                    let map = op.affine_map_attr("map").ok_or_else(|| NotModeled::OpaqueIndex {
                        op: op.name(),
                        loc: loc.into(),
                    })?;
                    let operands: Vec<Val> = op.operands().collect();
                    self.linearize_map_result(map, 0, &operands, scope, "affine.apply", &op.location())
                }
                other => Err(NotModeled::OpaqueIndex { op: other.into(), loc: loc.into() }),
            },
        }
    }

    fn symbol(&mut self, v: Val, argument: usize) -> SymbolId {
        if let Some(i) = self.b.symbol_vals.iter().position(|s| s.same(v)) {
            return i;
        }
        let id = self.b.program.symbols.len();
        self.b.program.symbols.push(Symbol { id, argument });
        self.b.symbol_vals.push(v);
        id
    }

    fn buffer(&mut self, memref: Val, loc: &str) -> Res<BufferId> {
        if let Some(i) = self.b.buffer_vals.iter().position(|b| b.same(memref)) {
            return Ok(i);
        }
        let ty = memref.ty();
        let origin = match memref.def() {
            Def::BlockArg { owner: Some(owner), index, entry: true } if owner.same(self.b.func) => {
                BufferOrigin::Argument(index)
            }
            Def::BlockArg { owner, .. } => {
                return Err(NotModeled::OpaqueValue {
                    op: owner.map(|o| o.name()).unwrap_or_default(),
                    loc: loc.into(),
                })
            }
            Def::Result { op, .. } => match op.name().as_str() {
                n @ ("memref.alloc" | "memref.alloca" | "memref.get_global") if !self.inside(op) => {
                    BufferOrigin::Local(format!("{n} at {}", op.location()))
                }
                n => return Err(NotModeled::BufferView { op: n.into(), loc: loc.into() }),
            },
        };
        if !ty.is_memref() {
            return Err(NotModeled::UnsupportedOp { op: ty.to_text(), loc: loc.into() });
        }
        let shape = ty.shape();
        if shape.iter().any(Option::is_none) {
            return Err(NotModeled::DynamicShape { ty: ty.to_text(), loc: loc.into() });
        }
        if !ty.has_identity_layout() || !ty.has_default_memory_space() {
            return Err(NotModeled::NonIdentityLayout { ty: ty.to_text(), loc: loc.into() });
        }
        let element_type = elem_type(ty.element_type())
            .ok_or_else(|| NotModeled::ElementType { ty: ty.element_type().to_text(), loc: loc.into() })?;
        let id = self.b.program.buffers.len();
        self.b.program.buffers.push(Buffer {
            id,
            origin,
            shape: shape.into_iter().map(|d| d.unwrap_or(0)).collect(),
            element_type,
        });
        self.b.buffer_vals.push(memref);
        Ok(id)
    }

    /// The access of an `affine.load` (memref at operand 0) or `affine.store` (operand 1).
    fn access(&mut self, op: Op, memref_index: usize, scope: &Scope) -> Res<Access> {
        let loc = op.location();
        let buffer = self.buffer(op.operand(memref_index), &loc)?;
        let map = op
            .affine_map_attr("map")
            .ok_or_else(|| NotModeled::UnsupportedOp { op: op.name(), loc: loc.clone() })?;
        let operands: Vec<Val> = (memref_index + 1..op.num_operands()).map(|i| op.operand(i)).collect();
        let iterators = scope.iterators();
        let mut matrix = Vec::new();
        for r in 0..map.results().len() {
            let lin = self.linearize_map_result(map, r, &operands, scope, "subscript", &loc)?;
            if !lin.symbols.is_empty() {
                return Err(NotModeled::SymbolInSubscript { loc });
            }
            let mut row: Vec<i64> = iterators.iter().map(|l| lin.loops.get(l).copied().unwrap_or(0)).collect();
            row.push(lin.constant);
            matrix.push(row);
        }
        Ok(Access { buffer, matrix })
    }

    fn visit_store(&mut self, store: Op, parent: LoopId, scope: &Scope) -> Res<CompId> {
        let loc = store.location();
        let store_access = self.access(store, 1, scope)?;
        let mut expr = ExprStats::default();
        self.visit_value(store.operand(0), scope, &mut expr, &loc)?;
        Ok(self.add_computation(store_access, expr, parent, None, scope, loc))
    }

    /// A reduction through `iter_args`: result `r` of `loop` (accumulated by the expression
    /// the loop yields, started from its init value) stored once after the loop. It is the
    /// computation `C[i] = C[i] op f(...)` placed in `loop`, as if written to memory at
    /// every iteration: what the representation (and the model) sees of a reduction.
    fn visit_reduction(&mut self, loop_op: Op, yield_op: Op, r: usize, id: LoopId, scope: &Scope) -> Res<CompId> {
        let loc = self.b.program.loops[id].location.clone();
        let iter_args = |why| NotModeled::IterArgs { why, loc: loc.clone() };
        let uses = loop_op.result(r).uses();
        let store = match uses.as_slice() {
            [(user, 0)] if user.name() == "affine.store" => *user,
            [] => return Err(iter_args("a result is not used")),
            [(user, _)] if user.name() == "affine.yield" => {
                return Err(iter_args("a result is yielded to an enclosing loop (nested reductions are not modeled)"))
            }
            _ => return Err(iter_args("a result is used other than by one affine.store")),
        };
        let same_block = match (store.parent(), loop_op.parent()) {
            (Some(a), Some(b)) => a.same(b),
            _ => false,
        };
        if !same_block {
            return Err(iter_args("a result is stored in another block than the loop's"));
        }
        let store_loc = store.location();
        let store_access = self.access(store, 1, scope)?;
        let mut expr = ExprStats::default();
        self.accumulator = Some((loop_op, r + 1));
        let visited = self.visit_value(yield_op.operand(r), scope, &mut expr, &store_loc);
        self.accumulator = None;
        visited?;
        if expr.accumulator_reads == 0 {
            return Err(iter_args("a yielded value does not read its accumulator (not a reduction)"));
        }
        // The accumulator reads the stored element at every iteration; an init loaded from
        // anywhere else is one more read.
        expr.loads.insert(0, store_access.clone());
        let init = loop_op.operand(loop_op.num_operands() - loop_op.num_results() + r);
        let mut init_expr = ExprStats { seen: std::mem::take(&mut expr.seen), ..ExprStats::default() };
        self.visit_value(init, scope, &mut init_expr, &store_loc)?;
        expr.loads.extend(init_expr.loads.into_iter().filter(|a| *a != store_access));
        for (k, n) in init_expr.ops {
            *expr.ops.entry(k).or_insert(0) += n;
        }
        expr.constants += init_expr.constants;
        expr.invariant_inputs += init_expr.invariant_inputs;
        self.b.reduction_stores.insert(store.0.ptr as usize);
        Ok(self.add_computation(store_access, expr, id, Some(id), scope, store_loc))
    }

    fn add_computation(
        &mut self,
        store_access: Access,
        expr: ExprStats,
        parent: LoopId,
        reduces_along: Option<LoopId>,
        scope: &Scope,
        loc: String,
    ) -> CompId {
        let element_type = self.b.program.buffers[store_access.buffer].element_type;
        let iterators = scope.iterators();
        // A loop reduces when the stored location does not move with it and the expression
        // reads that very location (e.g. C[i][j] += A[i][k] * B[k][j] along k).
        let reads_own_location = expr.loads.iter().any(|l| *l == store_access);
        let reduction_loops: Vec<LoopId> = if reads_own_location {
            iterators
                .iter()
                .enumerate()
                .filter(|(col, l)| {
                    Some(**l) == reduces_along || store_access.matrix.iter().all(|row| row[*col] == 0)
                })
                .map(|(_, l)| *l)
                .collect()
        } else {
            Vec::new()
        };
        for l in &reduction_loops {
            self.b.program.loops[*l].is_reduction = true;
        }
        let id = self.b.program.computations.len();
        self.b.program.computations.push(Computation {
            id,
            name: format!("S{id}"),
            parent,
            iterators,
            element_type,
            store: store_access,
            loads: expr.loads,
            ops: expr
                .ops
                .into_iter()
                .map(|((kind, ty), count)| OpCount { kind, ty, count })
                .collect(),
            constants: expr.constants,
            invariant_inputs: expr.invariant_inputs,
            reduction_loops,
            location: loc,
        });
        id
    }

    fn visit_value(&mut self, v: Val, scope: &Scope, expr: &mut ExprStats, loc: &str) -> Res<()> {
        if scope.loop_of(v).is_some() {
            return Ok(()); // an induction variable: a leaf
        }
        let op = match v.def() {
            Def::Result { op, .. } => op,
            Def::BlockArg { owner: Some(owner), .. } if owner.same(self.b.func) => {
                expr.invariant_inputs += 1;
                return Ok(());
            }
            Def::BlockArg { owner: Some(owner), index, .. } if self.accumulator.is_some_and(|(l, i)| l.same(owner) && i == index) => {
                expr.accumulator_reads += 1;
                return Ok(());
            }
            Def::BlockArg { owner: Some(owner), index, .. } if owner.name() == "affine.for" && index > 0 => {
                return Err(NotModeled::IterArgs {
                    why: "an accumulator is used outside the value its loop yields (nested reductions are not modeled)",
                    loc: owner.location(),
                })
            }
            Def::BlockArg { owner, .. } => {
                return Err(NotModeled::OpaqueValue {
                    op: owner.map(|o| o.name()).unwrap_or_default(),
                    loc: loc.into(),
                })
            }
        };
        let name = op.name();
        if !self.inside(op) {
            if name == "arith.constant" {
                expr.constants += 1;
            } else {
                expr.invariant_inputs += 1;
            }
            return Ok(());
        }
        if !expr.seen.insert(op.0.ptr as usize) {
            return Ok(()); // a shared subexpression is counted once
        }
        let op_loc = op.location();
        match name.as_str() {
            "affine.load" => {
                let access = self.access(op, 0, scope)?;
                expr.loads.push(access);
            }
            "arith.constant" => expr.constants += 1,
            "affine.for" => {
                return Err(NotModeled::IterArgs {
                    why: "a value comes out of an inner loop (nested reductions are not modeled)",
                    loc: op_loc,
                })
            }
            "affine.apply" => {
                for operand in op.operands() {
                    self.visit_value(operand, scope, expr, &op_loc)?;
                }
            }
            n if n.starts_with("arith.") || n.starts_with("math.") => {
                let ty = (op.num_results() == 1)
                    .then(|| elem_type(op.result(0).ty()))
                    .flatten()
                    .ok_or_else(|| NotModeled::ElementType {
                        ty: if op.num_results() == 1 { op.result(0).ty().to_text() } else { "<multiple results>".into() },
                        loc: op_loc.clone(),
                    })?;
                *expr.ops.entry((op_kind(n), ty)).or_insert(0) += 1;
                for operand in op.operands() {
                    self.visit_value(operand, scope, expr, &op_loc)?;
                }
            }
            _ => return Err(classify_unsupported(op, name, op_loc)),
        }
        Ok(())
    }
}

#[derive(Default)]
struct ExprStats {
    loads: Vec<Access>,
    ops: BTreeMap<(OpKind, ElemType), u32>,
    constants: u32,
    invariant_inputs: u32,
    accumulator_reads: u32,
    seen: HashSet<usize>,
}

/// Gives the most specific reason for an operation the representation cannot hold.
fn classify_unsupported(op: Op, name: String, loc: String) -> NotModeled {
    match name.as_str() {
        "affine.if" => NotModeled::AffineIf { loc },
        "affine.parallel" => NotModeled::AlreadyParallel { loc },
        "func.call" | "func.call_indirect" => NotModeled::Call {
            callee: op.attr_text("callee").unwrap_or_else(|| "an indirect callee".into()),
            loc,
        },
        "memref.load" | "memref.store" => NotModeled::NonAffineAccess { op: name, loc },
        "memref.alloc" | "memref.alloca" | "memref.dealloc" => NotModeled::Allocation { op: name, loc },
        n if n.starts_with("scf.") && matches!(n, "scf.for" | "scf.while" | "scf.parallel" | "scf.forall") => {
            NotModeled::NonAffineLoop { op: name, loc }
        }
        n if n.starts_with("vector.") || n.starts_with("affine.vector_") => NotModeled::Vector { op: name, loc },
        _ => NotModeled::UnsupportedOp { op: name, loc },
    }
}

fn linearize(expr: super::mlir::Expr, dims: &[Linear], syms: &[Linear]) -> Result<Linear, NonLinear> {
    Ok(match expr.kind() {
        ExprKind::Constant(c) => Linear::constant(c),
        ExprKind::Dim(d) => dims[d].clone(),
        ExprKind::Symbol(s) => syms[s].clone(),
        ExprKind::Add(l, r) => linearize(l, dims, syms)?.add(&linearize(r, dims, syms)?)?,
        ExprKind::Mul(l, r) => linearize(l, dims, syms)?.mul(&linearize(r, dims, syms)?)?,
        ExprKind::Mod(l, r) => linearize(l, dims, syms)?.fold(&linearize(r, dims, syms)?, NonLinear::Mod, modulo)?,
        ExprKind::FloorDiv(l, r) => {
            linearize(l, dims, syms)?.fold(&linearize(r, dims, syms)?, NonLinear::FloorDiv, floor_div)?
        }
        ExprKind::CeilDiv(l, r) => {
            linearize(l, dims, syms)?.fold(&linearize(r, dims, syms)?, NonLinear::CeilDiv, ceil_div)?
        }
    })
}

/// The element type a representation can hold, if `ty` is one.
pub fn elem_type(ty: Ty) -> Option<ElemType> {
    use mlir_sys::*;
    unsafe {
        let t = ty.0;
        Some(if mlirTypeIsAF32(t) {
            ElemType::F32
        } else if mlirTypeIsAF64(t) {
            ElemType::F64
        } else if mlirTypeIsAF16(t) {
            ElemType::F16
        } else if mlirTypeIsABF16(t) {
            ElemType::Bf16
        } else if mlirTypeIsAIndex(t) {
            ElemType::Index
        } else if mlirTypeIsAInteger(t) {
            match mlirIntegerTypeGetWidth(t) {
                1 => ElemType::I1,
                8 => ElemType::I8,
                16 => ElemType::I16,
                32 => ElemType::I32,
                64 => ElemType::I64,
                _ => return None,
            }
        } else {
            return None;
        })
    }
}

/// Maps an `arith.*` / `math.*` operation name to the kind the representation counts.
pub fn op_kind(name: &str) -> OpKind {
    let short = name.split_once('.').map(|(_, s)| s).unwrap_or(name);
    match short {
        "addf" | "addi" | "addui_extended" => OpKind::Add,
        "subf" | "subi" => OpKind::Sub,
        "mulf" | "muli" | "mulsi_extended" | "mului_extended" => OpKind::Mul,
        "divf" | "divsi" | "divui" | "ceildivsi" | "ceildivui" | "floordivsi" => OpKind::Div,
        "remf" | "remsi" | "remui" => OpKind::Rem,
        "negf" => OpKind::Neg,
        "fma" => OpKind::Fma,
        "maximumf" | "maxnumf" | "maxsi" | "maxui" => OpKind::Max,
        "minimumf" | "minnumf" | "minsi" | "minui" => OpKind::Min,
        "cmpf" | "cmpi" => OpKind::Cmp,
        "select" => OpKind::Select,
        "andi" | "ori" | "xori" => OpKind::Bitwise,
        "shli" | "shrsi" | "shrui" => OpKind::Shift,
        "extf" | "truncf" | "sitofp" | "uitofp" | "fptosi" | "fptoui" | "extsi" | "extui" | "trunci"
        | "index_cast" | "index_castui" | "bitcast" => OpKind::Cast,
        "absf" | "absi" => OpKind::Abs,
        "sqrt" | "rsqrt" | "cbrt" => OpKind::Sqrt,
        "exp" | "exp2" | "expm1" => OpKind::Exp,
        "log" | "log2" | "log10" | "log1p" => OpKind::Log,
        "powf" | "fpowi" | "ipowi" => OpKind::Pow,
        "sin" | "cos" | "tan" | "tanh" | "sinh" | "cosh" | "asin" | "acos" | "atan" | "atan2" | "asinh"
        | "acosh" | "atanh" | "erf" | "erfc" | "sincos" => OpKind::Trig,
        "floor" | "ceil" | "round" | "roundeven" | "trunc" => OpKind::Round,
        _ => OpKind::OtherMath,
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "@{}: {} nest(s), {} loop(s), {} computation(s), {} nest(s) not modeled",
            self.function,
            self.nests.len(),
            self.loops.len(),
            self.computations.len(),
            self.not_modeled.len()
        )
    }
}
