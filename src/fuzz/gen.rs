//! The fuzzer's own random programs, built to break loop transformations rather than to be
//! typical (the data generator, `datagen::programs`, makes typical ones): bounds that make
//! loops empty for some outer iterations (triangular, trapezoidal, negative coefficients,
//! offsets, `max`/`min` bounds as tiling makes them), steps above 1, in-place updates
//! reading neighbours in every direction, reductions (in memory, and through `iter_args`),
//! several nests sharing buffers, mixed element types, imperfect nests of depth 1 to 6, and
//! small extents so that a run takes microseconds.
//!
//! A program is kept as a small AST ([`FuzzProgram`]): [`FuzzProgram::to_mlir`] prints it,
//! and the oracle ([`super::oracle`]) iterates the same AST. Buffers are sized after the
//! fact so that every access the original program makes is in bounds.

use crate::datagen::rng::Rng;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::fmt::Write;

/// Programs whose original run makes more accesses than this are drawn again: the oracle
/// compares every pair of conflicting accesses, and a run should take microseconds.
pub const MAX_EVENTS: usize = 12_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Elem {
    F32,
    F64,
    I32,
}

impl Elem {
    pub fn name(self) -> &'static str {
        match self {
            Elem::F32 => "f32",
            Elem::F64 => "f64",
            Elem::I32 => "i32",
        }
    }
    fn is_float(self) -> bool {
        self != Elem::I32
    }
}

/// `coeffs · ivs + c` over the enclosing induction variables, outermost first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Aff {
    pub coeffs: Vec<i64>,
    pub c: i64,
}

impl Aff {
    pub fn constant(depth: usize, c: i64) -> Aff {
        Aff { coeffs: vec![0; depth], c }
    }

    pub fn eval(&self, ivs: &[i64]) -> i64 {
        self.coeffs.iter().zip(ivs).map(|(a, v)| a * v).sum::<i64>() + self.c
    }

    fn is_constant(&self) -> bool {
        self.coeffs.iter().all(|&a| a == 0)
    }

    /// The expression over SSA names (`%i0 * 2 - 1`), as affine.load/store subscripts take it.
    fn ssa_text(&self, ivs: &[String]) -> String {
        let mut s = String::new();
        for (a, v) in self.coeffs.iter().zip(ivs) {
            let term = match *a {
                0 => continue,
                1 => v.clone(),
                -1 => format!("-{v}"),
                a => format!("{v} * {a}"),
            };
            if s.is_empty() {
                s = term;
            } else if let Some(t) = term.strip_prefix('-') {
                let _ = write!(s, " - {t}");
            } else {
                let _ = write!(s, " + {term}");
            }
        }
        match (s.is_empty(), self.c) {
            (true, c) => c.to_string(),
            (false, 0) => s,
            (false, c) if c < 0 => format!("{s} - {}", -c),
            (false, c) => format!("{s} + {c}"),
        }
    }

}

/// A loop bound: a constant, an `affine_map` applied to every enclosing iv, or the `max`
/// (`min`) of several expressions.
fn bound_text(first: &Aff, more: &[Aff], kind: &str, ivs: &[String]) -> String {
    if more.is_empty() && first.is_constant() {
        return first.c.to_string();
    }
    let dims: Vec<String> = (0..ivs.len()).map(|d| format!("d{d}")).collect();
    let exprs: Vec<String> = std::iter::once(first).chain(more).map(|e| e.ssa_text(&dims)).collect();
    let prefix = if more.is_empty() { String::new() } else { format!("{kind} ") };
    format!("{prefix}affine_map<({}) -> ({})>({})", dims.join(", "), exprs.join(", "), ivs.join(", "))
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Buffer {
    pub elem: Elem,
    pub shape: Vec<i64>,
}

impl Buffer {
    pub fn memref(&self) -> String {
        let dims: Vec<String> = self.shape.iter().map(|d| d.to_string()).collect();
        format!("memref<{}x{}>", dims.join("x"), self.elem.name())
    }

    /// Row-major position of an index (in bounds by construction of the program).
    pub fn linear(&self, idx: &[i64]) -> i64 {
        idx.iter().zip(&self.shape).fold(0, |acc, (i, d)| acc * d + i)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Access {
    pub buf: usize,
    pub idx: Vec<Aff>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Max,
}

/// The second operand of one step of a statement's expression.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Operand {
    /// The next load (loads are used in order, each once).
    Load,
    /// The induction variable of the loop at this depth (so that writes of different
    /// iterations store different values, and reordering them shows in the output).
    Iv(usize),
    /// A small constant (an integer, or `c / 4` for floats).
    Const(i64),
}

/// `store = ((load0 op1 x1) op2 x2) ...`: loads first, then arithmetic, then the store.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stmt {
    pub loads: Vec<Access>,
    pub store: Access,
    /// Applied in order to the first value (the first load, or the first operand).
    pub first: Operand,
    pub ops: Vec<(BinOp, Operand)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Item {
    Loop(Loop),
    Stmt(Stmt),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Loop {
    pub lb: Aff,
    pub ub: Aff,
    pub step: i64,
    pub body: Vec<Item>,
    /// Further lower bounds: the loop starts at the largest (`max`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lb_max: Vec<Aff>,
    /// Further upper bounds: the loop ends before the smallest (`min`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ub_min: Vec<Aff>,
    /// A reduction through `iter_args`: see [`Reduction`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduce: Option<Reduction>,
}

impl Loop {
    pub fn new(lb: Aff, ub: Aff, step: i64, body: Vec<Item>) -> Loop {
        Loop { lb, ub, step, body, lb_max: Vec::new(), ub_min: Vec::new(), reduce: None }
    }

    pub fn lower(&self, ivs: &[i64]) -> i64 {
        self.lb_max.iter().map(|e| e.eval(ivs)).fold(self.lb.eval(ivs), i64::max)
    }

    pub fn upper(&self, ivs: &[i64]) -> i64 {
        self.ub_min.iter().map(|e| e.eval(ivs)).fold(self.ub.eval(ivs), i64::min)
    }
}

/// A loop that carries a value: its body is one statement whose store is the element the
/// result goes to (its subscripts do not use the loop) and whose first load is that same
/// element, which is the accumulator. It is printed as
/// `%r = affine.for .. iter_args(%acc = init) { ..; affine.yield f(%acc, ..) }` followed by
/// `affine.store %r` to the element; the oracle runs it as the same statement in memory
/// (`C[i] = f(C[i], ..)` at every iteration), which has the same accesses in the same
/// order as far as any other statement can tell. Its bounds are constant and it runs at
/// least once, so that its first iteration is where a constant init is written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reduction {
    /// None: the accumulator starts from the element (`C[i] += ..`); Some(c): from a
    /// constant (`C[i] = c; C[i] += ..`), so the first iteration does not read the element.
    pub init: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FuzzProgram {
    pub seed: u64,
    pub index: u64,
    pub buffers: Vec<Buffer>,
    pub nests: Vec<Loop>,
}

/// The generated function's name.
pub const FUNCTION: &str = "kernel";

impl FuzzProgram {
    pub fn id(&self) -> String {
        format!("f{}-{}", self.seed, self.index)
    }

    /// Program `index` of stream `seed`: deterministic.
    pub fn generate(seed: u64, index: u64) -> FuzzProgram {
        // Every CONTRACTION_EVERY-th program is a contraction wide enough for the search's
        // register tiles (drawn from a stream of its own: the other programs of a seed stay
        // what they were).
        if index % CONTRACTION_EVERY == CONTRACTION_EVERY - 1 {
            let mut rng = Rng::for_item(seed ^ 0xc047_ac75, index);
            for _ in 0..100 {
                let mut p = draw_contraction(&mut rng, seed, index);
                if let Some(events) = p.fit_buffers() {
                    if events > 0 && events <= MAX_EVENTS {
                        return p;
                    }
                }
            }
        }
        let mut rng = Rng::for_item(seed ^ 0xf022_f022, index);
        for _ in 0..1000 {
            let mut p = draw(&mut rng, seed, index);
            // Mostly programs whose every statement runs (a statement that never runs tests
            // little), now and then one with dead code.
            if p.dead_statements() > 0 && !rng.chance(0.1) {
                continue;
            }
            if let Some(events) = p.fit_buffers() {
                if events > 0 && events <= MAX_EVENTS {
                    return p;
                }
            }
        }
        // Practically unreachable: a single small loop.
        let mut p = FuzzProgram {
            seed,
            index,
            buffers: vec![Buffer { elem: Elem::F64, shape: vec![1] }],
            nests: vec![Loop::new(
                Aff::constant(0, 0),
                Aff::constant(0, 4),
                1,
                vec![Item::Stmt(Stmt {
                    loads: vec![],
                    store: Access { buf: 0, idx: vec![Aff { coeffs: vec![1], c: 0 }] },
                    first: Operand::Iv(0),
                    ops: vec![],
                })],
            )],
        };
        p.fit_buffers();
        p
    }

    /// Visits every statement instance of the original program in execution order, with
    /// the values of its enclosing induction variables.
    pub fn for_each_instance(&self, mut f: impl FnMut(&[usize], &Stmt, &[i64], &[LoopInstance])) {
        fn walk(
            items: &[Item],
            path: &mut Vec<usize>,
            ivs: &mut Vec<i64>,
            loops: &mut Vec<LoopInstance>,
            f: &mut dyn FnMut(&[usize], &Stmt, &[i64], &[LoopInstance]),
        ) {
            for (k, item) in items.iter().enumerate() {
                path.push(k);
                match item {
                    Item::Stmt(s) => f(path, s, ivs, loops),
                    Item::Loop(l) => {
                        let (lb, ub) = (l.lower(ivs), l.upper(ivs));
                        let mut v = lb;
                        while v < ub {
                            ivs.push(v);
                            loops.push(LoopInstance { v, lb, ub, step: l.step });
                            match (&l.reduce, l.body.as_slice()) {
                                // A constant init: the first iteration writes the element
                                // without reading it.
                                (Some(Reduction { init: Some(_) }), [Item::Stmt(s)]) if v == lb => {
                                    let mut first = s.clone();
                                    first.loads.remove(0);
                                    path.push(0);
                                    f(path, &first, ivs, loops);
                                    path.pop();
                                }
                                _ => walk(&l.body, path, ivs, loops, f),
                            }
                            ivs.pop();
                            loops.pop();
                            v += l.step;
                        }
                    }
                }
                path.pop();
            }
        }
        let top: Vec<Item> = self.nests.iter().cloned().map(Item::Loop).collect();
        walk(&top, &mut Vec::new(), &mut Vec::new(), &mut Vec::new(), &mut f);
    }

    /// How many statements the program has.
    pub fn statements(&self) -> usize {
        fn count(items: &[Item]) -> usize {
            items
                .iter()
                .map(|i| match i {
                    Item::Loop(l) => count(&l.body),
                    Item::Stmt(_) => 1,
                })
                .sum()
        }
        self.nests.iter().map(|l| count(&l.body)).sum()
    }

    /// Statements that never run (their loops are empty for every outer iteration).
    fn dead_statements(&self) -> usize {
        let total = self.statements();
        let mut ran: HashSet<Vec<usize>> = HashSet::new();
        let mut budget = 4 * MAX_EVENTS;
        self.for_each_instance(|path, _, _, _| {
            if budget > 0 {
                budget -= 1;
                ran.insert(path.to_vec());
            }
        });
        total - ran.len()
    }

    /// Shifts subscripts so that the smallest index of every buffer dimension the program
    /// touches is 0 and sizes buffers to the largest; returns the number of accesses the
    /// program makes (None when it makes too many to size).
    fn fit_buffers(&mut self) -> Option<usize> {
        let ranks: Vec<usize> = self.buffers.iter().map(|b| b.shape.len()).collect();
        let mut lo: Vec<Vec<i64>> = ranks.iter().map(|&r| vec![i64::MAX; r]).collect();
        let mut hi: Vec<Vec<i64>> = ranks.iter().map(|&r| vec![i64::MIN; r]).collect();
        let mut events = 0usize;
        let mut too_many = false;
        self.for_each_instance(|_, s, ivs, _| {
            events += s.loads.len() + 1;
            if events > 4 * MAX_EVENTS {
                too_many = true;
                return;
            }
            for a in s.loads.iter().chain(std::iter::once(&s.store)) {
                for (d, e) in a.idx.iter().enumerate() {
                    let x = e.eval(ivs);
                    lo[a.buf][d] = lo[a.buf][d].min(x);
                    hi[a.buf][d] = hi[a.buf][d].max(x);
                }
            }
        });
        if too_many {
            return None;
        }
        for (b, buf) in self.buffers.iter_mut().enumerate() {
            for d in 0..buf.shape.len() {
                if lo[b][d] == i64::MAX {
                    lo[b][d] = 0;
                    hi[b][d] = 0;
                }
                buf.shape[d] = hi[b][d] - lo[b][d] + 1;
            }
        }
        fn shift(items: &mut [Item], lo: &[Vec<i64>]) {
            for item in items {
                match item {
                    Item::Loop(l) => shift(&mut l.body, lo),
                    Item::Stmt(s) => {
                        for a in s.loads.iter_mut().chain(std::iter::once(&mut s.store)) {
                            for (d, e) in a.idx.iter_mut().enumerate() {
                                e.c -= lo[a.buf][d];
                            }
                        }
                    }
                }
            }
        }
        for nest in &mut self.nests {
            shift(&mut nest.body, &lo);
        }
        Some(events)
    }

    /// The program as an MLIR module with one `func.func @kernel`.
    pub fn to_mlir(&self) -> String {
        let mut p = Printer { out: String::new(), consts: String::new(), next: 0, next_iv: 0 };
        let mut body = String::new();
        for nest in &self.nests {
            p.print_loop(nest, &mut Vec::new(), self, 1, &mut body);
        }
        let args: Vec<String> = self.buffers.iter().enumerate().map(|(b, buf)| format!("%b{b}: {}", buf.memref())).collect();
        let _ = writeln!(p.out, "func.func @{FUNCTION}({}) {{", args.join(", "));
        p.out.push_str(&p.consts);
        p.out.push_str(&body);
        p.out.push_str("  return\n}\n");
        p.out
    }
}

/// One iteration of a loop: its induction variable's value and the bounds and step it ran
/// under (for the oracle, which needs them to say where tiling and unrolling put it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopInstance {
    pub v: i64,
    pub lb: i64,
    pub ub: i64,
    pub step: i64,
}

fn subscripts(a: &Access, ivs: &[String]) -> String {
    a.idx.iter().map(|e| e.ssa_text(ivs)).collect::<Vec<_>>().join(", ")
}

struct Printer {
    out: String,
    consts: String,
    next: usize,
    next_iv: usize,
}

impl Printer {
    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("%v{}", self.next)
    }

    fn print_loop(&mut self, l: &Loop, ivs: &mut Vec<String>, prog: &FuzzProgram, indent: usize, out: &mut String) {
        let iv = format!("%i{}", self.next_iv);
        self.next_iv += 1;
        let pad = "  ".repeat(indent);
        let step = if l.step == 1 { String::new() } else { format!(" step {}", l.step) };
        let (lb, ub) = (bound_text(&l.lb, &l.lb_max, "max", ivs), bound_text(&l.ub, &l.ub_min, "min", ivs));
        if let (Some(red), [Item::Stmt(s)]) = (&l.reduce, l.body.as_slice()) {
            self.print_reduction(red, s, (&iv, &lb, &ub, &step), ivs, prog, indent, out);
            return;
        }
        let _ = writeln!(out, "{pad}affine.for {iv} = {lb} to {ub}{step} {{");
        ivs.push(iv);
        for item in &l.body {
            match item {
                Item::Loop(inner) => self.print_loop(inner, ivs, prog, indent + 1, out),
                Item::Stmt(s) => self.print_stmt(s, ivs, prog, indent + 1, out),
            }
        }
        ivs.pop();
        let _ = writeln!(out, "{pad}}}");
    }

    /// A loop carrying the statement's element in `iter_args` (see [`Reduction`]).
    #[allow(clippy::too_many_arguments)]
    fn print_reduction(
        &mut self,
        red: &Reduction,
        s: &Stmt,
        (iv, lb, ub, step): (&str, &str, &str, &str),
        ivs: &mut Vec<String>,
        prog: &FuzzProgram,
        indent: usize,
        out: &mut String,
    ) {
        let pad = "  ".repeat(indent);
        let buf = &prog.buffers[s.store.buf];
        let ty = buf.elem.name();
        let element = format!("%b{}[{}]", s.store.buf, subscripts(&s.store, ivs));
        let init = match red.init {
            None => {
                let v = self.fresh();
                let _ = writeln!(out, "{pad}{v} = affine.load {element} : {}", buf.memref());
                v
            }
            Some(c) => self.constant(c, buf.elem),
        };
        let (acc, result) = (self.fresh(), self.fresh());
        let _ = writeln!(out, "{pad}{result} = affine.for {iv} = {lb} to {ub}{step} iter_args({acc} = {init}) -> ({ty}) {{");
        ivs.push(iv.to_string());
        let value = self.print_expr(s, Some(&acc), ivs, prog, indent + 1, out);
        ivs.pop();
        let _ = writeln!(out, "{pad}  affine.yield {value} : {ty}");
        let _ = writeln!(out, "{pad}}}");
        let _ = writeln!(out, "{pad}affine.store {result}, {element} : {}", buf.memref());
    }

    fn constant(&mut self, c: i64, ty: Elem) -> String {
        let k = self.fresh();
        let value = if ty.is_float() { format!("{:.6e}", c as f64 / 4.0) } else { c.to_string() };
        let _ = writeln!(self.consts, "  {k} = arith.constant {value} : {}", ty.name());
        k
    }

    fn print_stmt(&mut self, s: &Stmt, ivs: &[String], prog: &FuzzProgram, indent: usize, out: &mut String) {
        let pad = "  ".repeat(indent);
        let value = self.print_expr(s, None, ivs, prog, indent, out);
        let buf = &prog.buffers[s.store.buf];
        let _ = writeln!(out, "{pad}affine.store {value}, %b{}[{}] : {}", s.store.buf, subscripts(&s.store, ivs), buf.memref());
    }

    /// The statement's loads and arithmetic; returns the value it stores. With an
    /// accumulator, the first load is that value instead of a load.
    fn print_expr(&mut self, s: &Stmt, accumulator: Option<&str>, ivs: &[String], prog: &FuzzProgram, indent: usize, out: &mut String) -> String {
        let pad = "  ".repeat(indent);
        let ty = prog.buffers[s.store.buf].elem;
        let mut loaded = Vec::new();
        for (k, a) in s.loads.iter().enumerate() {
            if let (0, Some(acc)) = (k, accumulator) {
                loaded.push(acc.to_string());
                continue;
            }
            let v = self.fresh();
            let buf = &prog.buffers[a.buf];
            let _ = writeln!(out, "{pad}{v} = affine.load %b{}[{}] : {}", a.buf, subscripts(a, ivs), buf.memref());
            loaded.push(self.convert(v, buf.elem, ty, &pad, out));
        }
        let mut loads = loaded.into_iter();
        let mut operand = |o: &Operand, this: &mut Printer, out: &mut String| -> String {
            match o {
                Operand::Load => loads.next().expect("one load per Load operand"),
                Operand::Iv(d) => {
                    let i = this.fresh();
                    let _ = writeln!(out, "{pad}{i} = arith.index_cast {} : index to i32", ivs[*d]);
                    this.convert(i, Elem::I32, ty, &pad, out)
                }
                Operand::Const(c) => this.constant(*c, ty),
            }
        };
        let mut acc = operand(&s.first, self, out);
        for (op, o) in &s.ops {
            let x = operand(o, self, out);
            let name = match (op, ty.is_float()) {
                (BinOp::Add, true) => "arith.addf",
                (BinOp::Sub, true) => "arith.subf",
                (BinOp::Mul, true) => "arith.mulf",
                (BinOp::Max, true) => "arith.maximumf",
                (BinOp::Add, false) => "arith.addi",
                (BinOp::Sub, false) => "arith.subi",
                (BinOp::Mul, false) => "arith.muli",
                (BinOp::Max, false) => "arith.maxsi",
            };
            let r = self.fresh();
            let _ = writeln!(out, "{pad}{r} = {name} {acc}, {x} : {}", ty.name());
            acc = r;
        }
        acc
    }

    /// `v` of type `from` as type `to` (floats never become integers: out-of-range
    /// conversions would be poison, and differ between equally correct programs).
    fn convert(&mut self, v: String, from: Elem, to: Elem, pad: &str, out: &mut String) -> String {
        let op = match (from, to) {
            (a, b) if a == b => return v,
            (Elem::F32, Elem::F64) => "arith.extf",
            (Elem::F64, Elem::F32) => "arith.truncf",
            (Elem::I32, _) => "arith.sitofp",
            _ => unreachable!("float loads are never converted to integers"),
        };
        let r = self.fresh();
        let _ = writeln!(out, "{pad}{r} = {op} {v} : {} to {}", from.name(), to.name());
        r
    }
}

/// One program in this many is a [`draw_contraction`].
pub const CONTRACTION_EVERY: u64 = 8;

/// A contraction `C[i][j] = A[i][k] * B[k][j] + C[i][j]` (`-` or `max` now and then) over
/// rows and columns long enough for the search's register tiles (6 to 26 rows, 8 to 72
/// columns: whole and partial 6x16, 8x16 and 12x32 tiles) and a short reduction, the inputs
/// now and then transposed, one element type: what the search's tiling, packing,
/// `accumulate` and unroll-and-jam are for, which the small random programs rarely let it
/// make. Now and then a statement on C[i][j] before the reduction (gemm's `C *= beta`: an
/// imperfect nest to distribute), bounds that do not start at 0, or columns bounded by the
/// row (syrk's triangle).
fn draw_contraction(rng: &mut Rng, seed: u64, index: u64) -> FuzzProgram {
    let elem = *rng.pick(&[Elem::F32, Elem::F32, Elem::F64, Elem::I32]);
    let (rows, cols, depth) = (rng.range(6, 26) as i64, rng.range(8, 72) as i64, rng.range(1, 4) as i64);
    let (a_t, b_t) = (rng.chance(0.25), rng.chance(0.25));
    let buffers = vec![Buffer { elem, shape: vec![0, 0] }; 3];
    let at = |coeffs: [i64; 3], c: i64| Aff { coeffs: coeffs.to_vec(), c };
    let (i, j, k) = ([1, 0, 0], [0, 1, 0], [0, 0, 1]);
    let a = Access { buf: 1, idx: if a_t { vec![at(k, 0), at(i, 0)] } else { vec![at(i, 0), at(k, 0)] } };
    let b = Access { buf: 2, idx: if b_t { vec![at(j, 0), at(k, 0)] } else { vec![at(k, 0), at(j, 0)] } };
    let c3 = Access { buf: 0, idx: vec![at(i, 0), at(j, 0)] };
    let combine = if rng.chance(0.8) { BinOp::Add } else { *rng.pick(&[BinOp::Sub, BinOp::Max]) };
    let update = Stmt { loads: vec![a, b, c3.clone()], store: c3, first: Operand::Load, ops: vec![(BinOp::Mul, Operand::Load), (combine, Operand::Load)] };
    let lb = |rng: &mut Rng, depth: usize| Aff::constant(depth, *rng.pick(&[0, 0, 0, 1, 2]));
    let k_lb = lb(rng, 2);
    let k_loop = Loop::new(k_lb.clone(), Aff { c: k_lb.c + depth, ..k_lb }, 1, vec![Item::Stmt(update)]);
    let mut j_body = vec![Item::Loop(k_loop)];
    if rng.chance(0.4) {
        let c2 = Access { buf: 0, idx: vec![Aff { coeffs: vec![1, 0], c: 0 }, Aff { coeffs: vec![0, 1], c: 0 }] };
        let scale = Stmt { loads: vec![c2.clone()], store: c2, first: Operand::Load, ops: vec![(BinOp::Mul, Operand::Const(rng.range(2, 7) as i64))] };
        j_body.insert(0, Item::Stmt(scale));
    }
    let j_lb = lb(rng, 1);
    // syrk's triangle: the columns up to the row (j <= i + c), else a rectangle.
    let j_ub = if rng.chance(0.2) { Aff { coeffs: vec![1], c: rng.range(1, 8) as i64 } } else { Aff { c: j_lb.c + cols, ..j_lb.clone() } };
    let j_loop = Loop::new(j_lb, j_ub, 1, j_body);
    let i_lb = lb(rng, 0);
    let i_loop = Loop::new(i_lb.clone(), Aff { c: i_lb.c + rows, ..i_lb }, 1, vec![Item::Loop(j_loop)]);
    FuzzProgram { seed, index, buffers, nests: vec![i_loop] }
}

fn draw(rng: &mut Rng, seed: u64, index: u64) -> FuzzProgram {
    let nbuf = rng.range(1, 4);
    let buffers: Vec<Buffer> = (0..nbuf)
        .map(|_| {
            let elem = *rng.pick(&[Elem::F64, Elem::F64, Elem::F32, Elem::F32, Elem::I32]);
            Buffer { elem, shape: vec![0; rng.range(1, 3)] }
        })
        .collect();
    let nnests = *rng.pick(&[1, 1, 2, 2, 2, 3]);
    let mut g = Draw { rng, buffers: &buffers };
    let mut nests: Vec<Loop> = Vec::new();
    for _ in 0..nnests {
        let max_depth = *g.rng.pick(&[1, 2, 2, 3, 3, 3, 4, 4, 5, 6]);
        let mut nest = g.draw_loop(0, max_depth);
        // Fusion material: now and then the same outer loops as the nest before.
        if let Some(prev) = nests.last() {
            if g.rng.chance(0.4) {
                nest.lb = prev.lb.clone();
                nest.ub = prev.ub.clone();
                nest.step = prev.step;
                if let (Some(Item::Loop(a)), Some(Item::Loop(b))) = (prev.body.first(), nest.body.first_mut()) {
                    // (A reduction keeps its constant, non-empty bounds.)
                    if b.reduce.is_none() && g.rng.chance(0.7) {
                        b.lb = a.lb.clone();
                        b.ub = a.ub.clone();
                        b.step = a.step;
                    }
                }
            }
        }
        nests.push(nest);
    }
    // A producer and a consumer over the same perfect loops (what fusion takes): the
    // consumer reads the producer's buffer at the same point, or a neighbour (which makes
    // the fusion illegal, or the slice more than one iteration).
    if g.rng.chance(0.35) {
        let (producer, consumer) = g.draw_fusable_pair();
        nests.push(producer);
        nests.push(consumer);
    }
    FuzzProgram { seed, index, buffers, nests }
}

struct Draw<'a> {
    rng: &'a mut Rng,
    buffers: &'a [Buffer],
}

impl Draw<'_> {
    fn draw_fusable_pair(&mut self) -> (Loop, Loop) {
        let depth = *self.rng.pick(&[1, 2, 2, 3]);
        let bounds: Vec<(i64, i64, i64)> = (0..depth)
            .map(|_| {
                let step = *self.rng.pick(&[1, 1, 1, 2]);
                let lb = *self.rng.pick(&[0, 0, 1]);
                (lb, lb + self.rng.range(2, 7) as i64 * step, step)
            })
            .collect();
        // The buffer between them, indexed by the loops (its rank is what it is: extra
        // dimensions get a constant, missing ones drop loops).
        let t = self.rng.below(self.buffers.len());
        let rank = self.buffers[t].shape.len();
        let at = |offsets: &[i64]| Access {
            buf: t,
            idx: (0..rank)
                .map(|r| {
                    let mut e = Aff::constant(depth, offsets.get(r).copied().unwrap_or(0));
                    if r < depth {
                        e.coeffs[r] = 1;
                    }
                    e
                })
                .collect(),
        };
        let nest = |body: Vec<Item>| -> Loop {
            let mut inner = body;
            for d in (0..depth).rev() {
                let (lb, ub, step) = bounds[d];
                let l = Loop::new(Aff::constant(d, lb), Aff::constant(d, ub), step, inner);
                if d == 0 {
                    return l;
                }
                inner = vec![Item::Loop(l)];
            }
            unreachable!()
        };
        let produce = Stmt { loads: vec![], store: at(&[0, 0, 0]), first: Operand::Iv(depth - 1), ops: vec![(BinOp::Add, Operand::Const(3))] };
        let offsets: Vec<i64> = (0..rank).map(|_| *self.rng.pick(&[0, 0, 0, 1, -1])).collect();
        let mut consume = self.draw_stmt(depth);
        // The consumer reads the produced buffer only where it is told to below, and writes
        // elsewhere when there is an elsewhere (else most pairs could not be fused at all).
        consume.loads.retain(|a| a.buf != t);
        if consume.store.buf == t && self.buffers.len() > 1 {
            consume.store.buf = (t + 1) % self.buffers.len();
            let r = self.buffers[consume.store.buf].shape.len();
            consume.store.idx = (0..r).map(|_| self.subscript(depth)).collect();
            if !self.buffers[consume.store.buf].elem.is_float() {
                consume.loads.retain(|a| !self.buffers[a.buf].elem.is_float());
            }
        }
        // The loads kept, each used once: rebuild the expression over them.
        let n = consume.loads.len();
        consume.first = if n > 0 { Operand::Load } else { Operand::Iv(depth - 1) };
        consume.ops.retain(|(_, o)| *o != Operand::Load);
        for _ in 1..n {
            consume.ops.insert(0, (BinOp::Add, Operand::Load));
        }
        // Keep the consumer's type: read the produced buffer only when the types allow it.
        if self.buffers[t].elem.is_float() == self.buffers[consume.store.buf].elem.is_float() {
            consume.loads.insert(0, at(&offsets));
            if consume.first == Operand::Load {
                consume.ops.insert(0, (BinOp::Add, Operand::Load));
            } else {
                consume.ops.insert(0, (BinOp::Add, consume.first.clone()));
                consume.first = Operand::Load;
            }
        }
        (nest(vec![Item::Stmt(produce)]), nest(vec![Item::Stmt(consume)]))
    }

    fn coeff(&mut self) -> i64 {
        *self.rng.pick(&[1, 1, 1, 1, 2, -1, -1, 3, -2])
    }

    fn draw_loop(&mut self, depth: usize, max_depth: usize) -> Loop {
        let extent = |r: &mut Rng, depth: usize| -> i64 {
            // Deeper loops are shorter, so that deep nests stay small.
            let hi = [9, 8, 6, 5, 4, 3][depth.min(5)];
            r.range(1, hi) as i64
        };
        let step = *self.rng.pick(&[1, 1, 1, 1, 1, 1, 2, 2, 3]);
        let (lb, ub) = if depth == 0 || self.rng.chance(0.4) {
            let lb = *self.rng.pick(&[0, 0, 0, 1, 2, -2]);
            // Now and then a loop that never runs, or runs once.
            let n = if self.rng.chance(0.05) { *self.rng.pick(&[0, -1, 1]) } else { extent(self.rng, depth) * step };
            (Aff::constant(depth, lb), Aff::constant(depth, lb + n))
        } else {
            // Bounds that follow an outer loop: triangular (lb or ub = outer + c),
            // trapezoidal, reversed (-outer + c), scaled (2 * outer): empty for some
            // outer iterations more often than not.
            let k = self.rng.below(depth);
            let a = self.coeff();
            let mut moving = Aff::constant(depth, *self.rng.pick(&[-2, -1, 0, 0, 1, 2]));
            moving.coeffs[k] = a;
            let width = extent(self.rng, depth) * step;
            match self.rng.below(4) {
                0 => (moving, Aff::constant(depth, width)),
                1 => (Aff::constant(depth, 0), moving),
                2 => {
                    let mut ub = moving.clone();
                    ub.c += width;
                    (moving, ub)
                }
                _ => {
                    let mut other = Aff::constant(depth, *self.rng.pick(&[0, 1, 3]));
                    let k2 = self.rng.below(depth);
                    other.coeffs[k2] += self.coeff();
                    (moving, other)
                }
            }
        };
        let mut body = Vec::new();
        let items = *self.rng.pick(&[1, 1, 1, 2, 2, 3]);
        for _ in 0..items {
            if depth + 1 < max_depth && (body.is_empty() || self.rng.chance(0.5)) && self.rng.chance(0.8) {
                body.push(Item::Loop(self.draw_loop(depth + 1, max_depth)));
            } else if depth + 1 < max_depth && self.rng.chance(0.2) {
                body.push(Item::Loop(self.draw_reduction(depth + 1)));
            } else {
                body.push(Item::Stmt(self.draw_stmt(depth + 1)));
            }
        }
        let mut l = Loop::new(lb, ub, step, body);
        // Now and then a `max` lower or `min` upper bound (what tiling makes): a constant
        // clamp, or a second expression moving with an outer loop.
        if self.rng.chance(0.2) {
            let lower = self.rng.chance(0.5);
            let extra = if depth > 0 && self.rng.chance(0.5) {
                let mut e = Aff::constant(depth, self.rng.range(0, 4) as i64 - 2);
                let k = self.rng.below(depth);
                e.coeffs[k] = self.coeff();
                if !lower {
                    e.c += self.rng.range(1, 5) as i64;
                }
                e
            } else if lower {
                Aff::constant(depth, self.rng.range(0, 3) as i64 - 1)
            } else {
                Aff::constant(depth, self.rng.range(1, 8) as i64)
            };
            if lower {
                l.lb_max.push(extra);
            } else {
                l.ub_min.push(extra);
            }
        }
        l
    }

    /// A loop carrying an accumulator (see [`Reduction`]), at `depth` outer loops. Its body
    /// reads no element of the accumulated buffer: inside the loop the real program reads
    /// that buffer as it was before the loop, which is not what the oracle's in-memory
    /// statement would read.
    fn draw_reduction(&mut self, depth: usize) -> Loop {
        let step = *self.rng.pick(&[1, 1, 2]);
        let lb = *self.rng.pick(&[0, 0, 1, -1]);
        let trips = self.rng.range(2, 7) as i64;
        let mut s = self.draw_stmt(depth + 1);
        let buf = s.store.buf;
        let mut element = self.access(buf, depth);
        for e in &mut element.idx {
            e.coeffs.push(0);
        }
        s.loads.retain(|a| a.buf != buf);
        let n = s.loads.len();
        s.ops.retain(|(_, o)| *o != Operand::Load);
        s.first = if n > 0 { Operand::Load } else { Operand::Iv(self.rng.below(depth + 1)) };
        for _ in 1..n {
            s.ops.insert(0, (*self.rng.pick(&[BinOp::Add, BinOp::Mul, BinOp::Sub]), Operand::Load));
        }
        // The accumulator comes first: f(acc, ..).
        let combine = *self.rng.pick(&[BinOp::Add, BinOp::Add, BinOp::Max, BinOp::Mul]);
        s.ops.insert(0, (combine, s.first.clone()));
        s.first = Operand::Load;
        s.loads.insert(0, element.clone());
        s.store = element;
        let init = if self.rng.chance(0.5) { None } else { Some(self.rng.range(0, 5) as i64) };
        let mut l = Loop::new(Aff::constant(depth, lb), Aff::constant(depth, lb + trips * step), step, vec![Item::Stmt(s)]);
        l.reduce = Some(Reduction { init });
        l
    }

    /// A subscript: one enclosing iv (usually), two, or none, scaled, with an offset.
    fn subscript(&mut self, depth: usize) -> Aff {
        let mut e = Aff::constant(depth, self.rng.range(0, 4) as i64 - 2);
        let terms = *self.rng.pick(&[1, 1, 1, 1, 1, 2, 0]);
        for _ in 0..terms {
            let k = self.rng.below(depth);
            e.coeffs[k] += self.coeff();
        }
        e
    }

    fn access(&mut self, buf: usize, depth: usize) -> Access {
        let rank = self.buffers[buf].shape.len();
        Access { buf, idx: (0..rank).map(|_| self.subscript(depth)).collect() }
    }

    /// A neighbour of `a`: every subscript moved by -1, 0 or 1.
    fn neighbour(&mut self, a: &Access) -> Access {
        let mut n = a.clone();
        for e in &mut n.idx {
            e.c += self.rng.range(0, 2) as i64 - 1;
        }
        n
    }

    fn draw_stmt(&mut self, depth: usize) -> Stmt {
        let nbuf = self.buffers.len();
        let store_buf = self.rng.below(nbuf);
        let ty = self.buffers[store_buf].elem;
        let store = self.access(store_buf, depth);
        let mut loads = Vec::new();
        match self.rng.below(4) {
            // In place: read neighbours of the stored element (stencils, seidel-like
            // dependences in every direction).
            0 => {
                for _ in 0..self.rng.range(1, 3) {
                    let n = self.neighbour(&store);
                    loads.push(n);
                }
            }
            // A reduction or an accumulation: read the stored element itself, plus others.
            1 => {
                loads.push(store.clone());
                for _ in 0..self.rng.range(0, 2) {
                    let b = self.rng.below(nbuf);
                    loads.push(self.access(b, depth));
                }
            }
            // Anything: random accesses to any buffer.
            _ => {
                for _ in 0..self.rng.range(0, 3) {
                    let b = self.rng.below(nbuf);
                    loads.push(self.access(b, depth));
                }
            }
        }
        // Integers are computed from integers only (see `Printer::convert`).
        if !ty.is_float() {
            loads.retain(|a| !self.buffers[a.buf].elem.is_float());
        }
        self.rng.shuffle(&mut loads);
        let bin = |r: &mut Rng| *r.pick(&[BinOp::Add, BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Max]);
        let (first, rest) = if loads.is_empty() { (Operand::Iv(self.rng.below(depth)), 0) } else { (Operand::Load, loads.len() - 1) };
        let mut ops: Vec<(BinOp, Operand)> = (0..rest).map(|_| (bin(self.rng), Operand::Load)).collect();
        // Mix in the iteration (so output dependences show) and a constant.
        if self.rng.chance(0.6) {
            let d = self.rng.below(depth);
            let op = *self.rng.pick(&[BinOp::Add, BinOp::Sub]);
            ops.push((op, Operand::Iv(d)));
        }
        if self.rng.chance(0.4) {
            let c = self.rng.range(1, 7) as i64;
            ops.push((bin(self.rng), Operand::Const(c)));
        }
        Stmt { loads, store, first, ops }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every CONTRACTION_EVERY-th program is a contraction nest (rows, columns, reduction)
    /// on three buffers, some wide enough for the 12x32 register tile, its statement a
    /// product combined with the output element.
    #[test]
    fn every_eighth_program_is_a_contraction_for_register_tiles() {
        let mut wide = 0;
        for i in (CONTRACTION_EVERY - 1..400).step_by(CONTRACTION_EVERY as usize) {
            let p = FuzzProgram::generate(1, i);
            assert_eq!((p.buffers.len(), p.nests.len()), (3, 1), "program {i}");
            let Some(Item::Loop(j)) = p.nests[0].body.first() else { panic!("program {i}: no column loop") };
            let Some(Item::Loop(k)) = j.body.last() else { panic!("program {i}: no reduction loop") };
            let Some(Item::Stmt(update)) = k.body.first() else { panic!("program {i}: no update") };
            assert_eq!((update.loads.len(), update.ops[0].0), (3, BinOp::Mul), "program {i}");
            assert_eq!(update.loads[2], update.store, "program {i}: the output element is read and written");
            wide += (p.buffers[0].shape[0] >= 12 && p.buffers[0].shape[1] >= 32) as usize;
        }
        assert!(wide >= 5, "{wide} of 50 wide enough for a 12x32 tile");
    }

    #[test]
    fn deterministic_in_bounds_and_parseable_text() {
        for i in 0..200 {
            let p = FuzzProgram::generate(1, i);
            assert_eq!(p, FuzzProgram::generate(1, i));
            let mut events = 0;
            p.for_each_instance(|_, s, ivs, _| {
                for a in s.loads.iter().chain(std::iter::once(&s.store)) {
                    let buf = &p.buffers[a.buf];
                    for (d, e) in a.idx.iter().enumerate() {
                        let x = e.eval(ivs);
                        assert!((0..buf.shape[d]).contains(&x), "program {i}: index {x} out of 0..{}", buf.shape[d]);
                    }
                    events += 1;
                }
            });
            assert!(events > 0 && events <= MAX_EVENTS, "program {i}: {events} accesses");
            let text = p.to_mlir();
            assert!(text.contains("func.func @kernel"), "{text}");
        }
    }
}
