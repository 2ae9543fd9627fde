//! Random affine programs: seeded, deterministic, valid by construction.
//!
//! The classes follow the seeds' generator and PolyBench: element-wise maps (with
//! transposed, strided and broadcast accesses), reductions (with an imperfect or a separate
//! initialization), contractions (matmul-like, batched), convolutions, stencils (two-buffer
//! and in-place, with an optional time loop), triangular nests, and chains of sibling nests
//! linked by temporaries (fusion material). Sizes are drawn so that one run takes from tens
//! of microseconds to a few milliseconds, with buffers from a few KiB (in cache) to tens of
//! MiB (not).

use super::rng::Rng;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// The name of the generated function.
pub const FUNCTION: &str = "kernel";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProgramClass {
    Elementwise,
    Reduction,
    Contraction,
    Convolution,
    Stencil,
    Triangular,
    MultiNest,
}

pub const CLASSES: [ProgramClass; 7] = [
    ProgramClass::Elementwise,
    ProgramClass::Reduction,
    ProgramClass::Contraction,
    ProgramClass::Convolution,
    ProgramClass::Stencil,
    ProgramClass::Triangular,
    ProgramClass::MultiNest,
];

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GeneratedProgram {
    /// `s<seed>-p<index>`: unique within a dataset.
    pub id: String,
    pub seed: u64,
    pub index: u64,
    pub class: ProgramClass,
    pub mlir: String,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    F32,
    F64,
    I32,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::I32 => "i32",
        }
    }
    fn is_float(self) -> bool {
        self != Ty::I32
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Bin {
    Add,
    Sub,
    Mul,
    Max,
}

/// Emits one `func.func` as text, keeping track of SSA names, buffers and indentation.
struct Gen {
    ty: Ty,
    bufs: Vec<Vec<i64>>,
    consts: Vec<(String, String)>,
    body: String,
    depth: usize,
    next_value: usize,
    next_iv: usize,
}

impl Gen {
    fn new(ty: Ty) -> Self {
        Gen { ty, bufs: Vec::new(), consts: Vec::new(), body: String::new(), depth: 0, next_value: 0, next_iv: 0 }
    }

    fn memref(&self, shape: &[i64]) -> String {
        if shape.is_empty() {
            format!("memref<{}>", self.ty.name())
        } else {
            let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
            format!("memref<{}x{}>", dims.join("x"), self.ty.name())
        }
    }

    /// A new buffer argument of this shape.
    fn buffer(&mut self, shape: Vec<i64>) -> usize {
        self.bufs.push(shape);
        self.bufs.len() - 1
    }

    fn line(&mut self, text: &str) {
        let _ = writeln!(self.body, "{}{}", "  ".repeat(self.depth + 1), text);
    }

    fn value(&mut self) -> String {
        self.next_value += 1;
        format!("%v{}", self.next_value - 1)
    }

    /// Opens `affine.for %iN = lb to ub`; bounds are MLIR bound syntax.
    fn open(&mut self, lb: &str, ub: &str) -> String {
        let iv = format!("%i{}", self.next_iv);
        self.next_iv += 1;
        self.line(&format!("affine.for {iv} = {lb} to {ub} {{"));
        self.depth += 1;
        iv
    }

    fn open_n(&mut self, n: i64) -> String {
        self.open("0", &n.to_string())
    }

    fn close(&mut self) {
        self.depth -= 1;
        self.line("}");
    }

    fn load(&mut self, buf: usize, subs: &[String]) -> String {
        let v = self.value();
        let ty = self.memref(&self.bufs[buf].clone());
        self.line(&format!("{v} = affine.load %b{buf}[{}] : {ty}", subs.join(", ")));
        v
    }

    fn store(&mut self, v: &str, buf: usize, subs: &[String]) {
        let ty = self.memref(&self.bufs[buf].clone());
        self.line(&format!("affine.store {v}, %b{buf}[{}] : {ty}", subs.join(", ")));
    }

    fn constant(&mut self, x: f64) -> String {
        let name = format!("%c{}", self.consts.len());
        let text = match self.ty {
            Ty::I32 => format!("{name} = arith.constant {} : i32", x.round() as i64),
            t => format!("{name} = arith.constant {x:.6e} : {}", t.name()),
        };
        self.consts.push((name.clone(), text));
        name
    }

    fn bin(&mut self, op: Bin, a: &str, b: &str) -> String {
        let name = match (op, self.ty.is_float()) {
            (Bin::Add, true) => "arith.addf",
            (Bin::Sub, true) => "arith.subf",
            (Bin::Mul, true) => "arith.mulf",
            (Bin::Max, true) => "arith.maximumf",
            (Bin::Add, false) => "arith.addi",
            (Bin::Sub, false) => "arith.subi",
            (Bin::Mul, false) => "arith.muli",
            (Bin::Max, false) => "arith.maxsi",
        };
        let v = self.value();
        self.line(&format!("{v} = {name} {a}, {b} : {}", self.ty.name()));
        v
    }

    /// Combines values with random operations (a random expression tree, left-deep).
    fn combine(&mut self, rng: &mut Rng, values: &[String]) -> String {
        let mut acc = values[0].clone();
        for v in &values[1..] {
            let op = *rng.pick(&[Bin::Add, Bin::Add, Bin::Mul, Bin::Sub, Bin::Max]);
            acc = self.bin(op, &acc, v);
        }
        if rng.chance(0.3) {
            let c = self.constant(if self.ty.is_float() { 0.5 } else { 3.0 });
            acc = self.bin(Bin::Mul, &acc, &c);
        }
        acc
    }

    fn finish(self) -> String {
        let args: Vec<String> =
            self.bufs.iter().enumerate().map(|(i, s)| format!("%b{i}: {}", self.memref(s))).collect();
        let mut out = format!("func.func @{FUNCTION}({}) {{\n", args.join(", "));
        for (_, c) in &self.consts {
            let _ = writeln!(out, "  {c}");
        }
        out.push_str(&self.body);
        out.push_str("  return\n}\n");
        out
    }
}

/// Extents for `depth` loops whose product is about `budget` iterations.
fn extents(rng: &mut Rng, depth: usize, budget: f64) -> Vec<i64> {
    let per = budget.powf(1.0 / depth as f64);
    (0..depth)
        .map(|_| {
            let jitter = 0.5 + rng.below(1000) as f64 / 1000.0;
            let e = (per * jitter).round().max(4.0) as i64;
            // Round to a multiple of 8 most of the time (vectorizable), keep some odd sizes.
            if rng.chance(0.7) {
                ((e + 7) / 8 * 8).max(8)
            } else {
                e
            }
        })
        .collect()
}

fn budget(rng: &mut Rng) -> f64 {
    (1u64 << rng.range(14, 20)) as f64
}

fn ivs(list: &[String], idx: &[usize]) -> Vec<String> {
    idx.iter().map(|&i| list[i].clone()).collect()
}

/// An access pattern of an input of an element-wise map: which loops index which dims.
fn elementwise_input(rng: &mut Rng, g: &mut Gen, ext: &[i64], ivs_: &[String]) -> String {
    let d = ext.len();
    let mut dims: Vec<usize> = (0..d).collect();
    let kind = rng.below(4);
    if kind == 1 && d >= 2 {
        rng.shuffle(&mut dims); // transposed
    } else if kind == 2 && d >= 2 {
        let drop = rng.below(d); // broadcast along one loop
        dims.remove(drop);
    }
    let strided = kind == 3;
    let stride_dim = rng.below(dims.len().max(1));
    let shape: Vec<i64> = dims
        .iter()
        .enumerate()
        .map(|(k, &l)| if strided && k == stride_dim { 2 * ext[l] } else { ext[l] })
        .collect();
    let subs: Vec<String> = dims
        .iter()
        .enumerate()
        .map(|(k, &l)| if strided && k == stride_dim { format!("{} * 2", ivs_[l]) } else { ivs_[l].clone() })
        .collect();
    let b = g.buffer(shape);
    g.load(b, &subs)
}

fn elementwise(rng: &mut Rng, g: &mut Gen, ext: &[i64], inputs: usize, out: Option<usize>) -> usize {
    let out = out.unwrap_or_else(|| g.buffer(ext.to_vec()));
    let ivs_: Vec<String> = ext.iter().map(|&e| g.open_n(e)).collect();
    let vals: Vec<String> = (0..inputs).map(|_| elementwise_input(rng, g, ext, &ivs_)).collect();
    let v = g.combine(rng, &vals);
    g.store(&v, out, &ivs_);
    for _ in ext {
        g.close();
    }
    out
}

fn gen_elementwise(rng: &mut Rng, g: &mut Gen) {
    let depth = rng.range(1, 4);
    let b = budget(rng);

    let ext = extents(rng, depth, b);
    let inputs = rng.range(1, 3);
    elementwise(rng, g, &ext, inputs, None);
}

/// `out[kept loops] op= f(inputs)` over all loops; init imperfect or as a sibling nest.
fn reduction(rng: &mut Rng, g: &mut Gen, ext: &[i64], kept: usize, input: Option<usize>) -> usize {
    let depth = ext.len();
    let out = g.buffer(ext[..kept].to_vec());
    let separate_init = kept > 0 && rng.chance(0.4);
    let zero = g.constant(0.0);
    if separate_init {
        let ivs_: Vec<String> = ext[..kept].iter().map(|&e| g.open_n(e)).collect();
        g.store(&zero, out, &ivs_);
        for _ in 0..kept {
            g.close();
        }
    }
    let mut ivs_ = Vec::new();
    for (l, &e) in ext.iter().enumerate() {
        if l == kept && !separate_init {
            let subs = ivs_.clone();
            g.store(&zero, out, &subs);
        }
        ivs_.push(g.open_n(e));
    }
    let all: Vec<usize> = (0..depth).collect();
    let a = match input {
        Some(b) => g.load(b, &ivs(&ivs_, &all)),
        None => elementwise_input(rng, g, ext, &ivs_),
    };
    let kept_subs = ivs(&ivs_, &(0..kept).collect::<Vec<_>>());
    let acc = g.load(out, &kept_subs);
    let op = if rng.chance(0.8) { Bin::Add } else { Bin::Max };
    let v = g.bin(op, &acc, &a);
    g.store(&v, out, &kept_subs);
    for _ in 0..depth {
        g.close();
    }
    out
}

fn gen_reduction(rng: &mut Rng, g: &mut Gen) {
    let depth = rng.range(2, 4);
    let b = budget(rng);

    let ext = extents(rng, depth, b);
    let kept = rng.range(0, depth - 1);
    reduction(rng, g, &ext, kept, None);
}

fn gen_contraction(rng: &mut Rng, g: &mut Gen) {
    let batched = rng.chance(0.25);
    let b = budget(rng) * 2.0;

    let ext = extents(rng, 3, b);
    let (ni, nj, nk) = (ext[0], ext[1], ext[2]);
    let nb = if batched { rng.range(2, 6) as i64 } else { 1 };
    let pre: Vec<i64> = if batched { vec![nb] } else { vec![] };
    let shape = |a: i64, b: i64| [pre.clone(), vec![a, b]].concat();
    let a = g.buffer(shape(ni, nk));
    let b = g.buffer(shape(nk, nj));
    let c = g.buffer(shape(ni, nj));
    // Loop order: a random permutation of i, j, k.
    let mut order = vec![0usize, 1, 2];
    rng.shuffle(&mut order);
    let sizes = [ni, nj, nk];
    let mut iv_of = [String::new(), String::new(), String::new()];
    let mut bivs = Vec::new();
    if batched {
        bivs.push(g.open_n(nb));
    }
    for &l in &order {
        iv_of[l] = g.open_n(sizes[l]);
    }
    let sub = |x: &str, y: &str| [bivs.clone(), vec![x.to_string(), y.to_string()]].concat();
    let va = g.load(a, &sub(&iv_of[0], &iv_of[2]));
    let vb = g.load(b, &sub(&iv_of[2], &iv_of[1]));
    let vc = g.load(c, &sub(&iv_of[0], &iv_of[1]));
    let p = g.bin(Bin::Mul, &va, &vb);
    let s = g.bin(Bin::Add, &vc, &p);
    g.store(&s, c, &sub(&iv_of[0], &iv_of[1]));
    for _ in 0..(3 + bivs.len()) {
        g.close();
    }
}

fn gen_convolution(rng: &mut Rng, g: &mut Gen) {
    // out[f][y][x] += in[c][y + r][x + s] * w[f][c][r][s], some of f and c dropped.
    let with_f = rng.chance(0.6);
    let with_c = rng.chance(0.6);
    let k = *rng.pick(&[3i64, 3, 5]);
    let b = budget(rng) / (k * k) as f64;

    let outer = extents(rng, 2, b);
    let (ny, nx) = (outer[0], outer[1]);
    let nf = if with_f { rng.range(2, 8) as i64 } else { 1 };
    let nc = if with_c { rng.range(2, 8) as i64 } else { 1 };
    let mut in_shape = vec![ny + k - 1, nx + k - 1];
    let mut w_shape = vec![k, k];
    let mut out_shape = vec![ny, nx];
    if with_c {
        in_shape.insert(0, nc);
        w_shape.insert(0, nc);
    }
    if with_f {
        w_shape.insert(0, nf);
        out_shape.insert(0, nf);
    }
    let input = g.buffer(in_shape);
    let w = g.buffer(w_shape);
    let out = g.buffer(out_shape);
    let f = with_f.then(|| g.open_n(nf));
    let y = g.open_n(ny);
    let x = g.open_n(nx);
    let c = with_c.then(|| g.open_n(nc));
    let r = g.open_n(k);
    let s = g.open_n(k);
    let mut in_sub = vec![format!("{y} + {r}"), format!("{x} + {s}")];
    let mut w_sub = vec![r.clone(), s.clone()];
    let mut out_sub = vec![y.clone(), x.clone()];
    if let Some(c) = &c {
        in_sub.insert(0, c.clone());
        w_sub.insert(0, c.clone());
    }
    if let Some(f) = &f {
        w_sub.insert(0, f.clone());
        out_sub.insert(0, f.clone());
    }
    let vi = g.load(input, &in_sub);
    let vw = g.load(w, &w_sub);
    let vo = g.load(out, &out_sub);
    let p = g.bin(Bin::Mul, &vi, &vw);
    let a = g.bin(Bin::Add, &vo, &p);
    g.store(&a, out, &out_sub);
    let depth = 4 + with_f as usize + with_c as usize;
    for _ in 0..depth {
        g.close();
    }
}

fn gen_stencil(rng: &mut Rng, g: &mut Gen) {
    let rank = rng.range(1, 3);
    let time = rng.chance(0.5);
    let steps = if time { rng.range(2, 6) as i64 } else { 1 };
    let b = budget(rng) / steps as f64;

    let ext = extents(rng, rank, b);
    let shape: Vec<i64> = ext.iter().map(|e| e + 2).collect();
    let in_place = rng.chance(0.3);
    let a = g.buffer(shape.clone());
    let b = if in_place { a } else { g.buffer(shape.clone()) };
    // Neighbour offsets: the centre and a random subset of the 3^rank - 1 others.
    let mut offsets: Vec<Vec<i64>> = vec![vec![0; rank]];
    let total = 3usize.pow(rank as u32);
    for code in 0..total {
        let off: Vec<i64> = (0..rank).map(|d| ((code / 3usize.pow(d as u32)) % 3) as i64 - 1).collect();
        if off.iter().any(|&o| o != 0) && rng.chance(0.5) {
            offsets.push(off);
        }
    }
    if offsets.len() == 1 {
        offsets.push((0..rank).map(|d| if d == 0 { 1 } else { 0 }).collect());
    }
    let sweep = |g: &mut Gen, rng: &mut Rng, src: usize, dst: usize| {
        let ivs_: Vec<String> = shape.iter().map(|&n| g.open("1", &(n - 1).to_string())).collect();
        let vals: Vec<String> = offsets
            .iter()
            .map(|off| {
                let subs: Vec<String> = ivs_
                    .iter()
                    .zip(off)
                    .map(|(iv, &o)| match o {
                        0 => iv.clone(),
                        o if o > 0 => format!("{iv} + {o}"),
                        o => format!("{iv} - {}", -o),
                    })
                    .collect();
                g.load(src, &subs)
            })
            .collect();
        let v = g.combine(rng, &vals);
        g.store(&v, dst, &ivs_);
        for _ in 0..rank {
            g.close();
        }
    };
    if time {
        g.open_n(steps);
    }
    sweep(g, rng, a, b);
    if !in_place && time && rng.chance(0.7) {
        sweep(g, rng, b, a); // jacobi-style: the time loop holds two sibling nests
    }
    if time {
        g.close();
    }
}

fn gen_triangular(rng: &mut Rng, g: &mut Gen) {
    let b = budget(rng) * 2.0;
    let n = extents(rng, 2, b)[0];
    let with_k = rng.chance(0.6);
    let b = budget(rng) / (n * n / 2) as f64;
    let nk = if with_k { extents(rng, 1, b)[0].clamp(4, 256) } else { 1 };
    let lower = rng.chance(0.5);
    let c = g.buffer(vec![n, n]);
    let a = g.buffer(vec![n, nk.max(1)]);
    let i = g.open_n(n);
    // j in [0, i] (lower) or [i, n) (upper).
    let k = if with_k && rng.chance(0.5) { Some(g.open_n(nk)) } else { None };
    let j = if lower {
        g.open("0", &format!("affine_map<(d0) -> (d0 + 1)>({i})"))
    } else {
        g.open(&format!("affine_map<(d0) -> (d0)>({i})"), &n.to_string())
    };
    let k = match k {
        Some(k) => Some(k),
        None if with_k => Some(g.open_n(nk)),
        None => None,
    };
    let ksub = k.clone().unwrap_or_else(|| "0".to_string());
    let v1 = g.load(a, &[i.clone(), ksub.clone()]);
    let v2 = g.load(a, &[j.clone(), ksub]);
    let vc = g.load(c, &[i.clone(), j.clone()]);
    let p = g.bin(Bin::Mul, &v1, &v2);
    let s = g.bin(Bin::Add, &vc, &p);
    g.store(&s, c, &[i, j]);
    let depth = 2 + k.is_some() as usize;
    for _ in 0..depth {
        g.close();
    }
}

fn gen_multi_nest(rng: &mut Rng, g: &mut Gen) {
    let depth = rng.range(1, 3);
    let b = budget(rng) / 2.0;

    let ext = extents(rng, depth, b);
    let nests = rng.range(2, 3);
    let inputs = rng.range(1, 2);
    let mut prev = elementwise(rng, g, &ext, inputs, None);
    for n in 1..nests {
        if n == nests - 1 && depth >= 2 && rng.chance(0.4) {
            reduction(rng, g, &ext, depth - 1, Some(prev));
        } else {
            let out = g.buffer(ext.clone());
            let ivs_: Vec<String> = ext.iter().map(|&e| g.open_n(e)).collect();
            let all: Vec<usize> = (0..depth).collect();
            let mut vals = vec![g.load(prev, &ivs(&ivs_, &all))];
            if rng.chance(0.5) {
                vals.push(elementwise_input(rng, g, &ext, &ivs_));
            }
            let v = g.combine(rng, &vals);
            g.store(&v, out, &ivs_);
            for _ in 0..depth {
                g.close();
            }
            prev = out;
        }
    }
}

/// The program of item `index` of the stream `seed`.
pub fn generate(seed: u64, index: u64) -> GeneratedProgram {
    let mut rng = Rng::for_item(seed, index);
    let class = *rng.pick(&CLASSES);
    let ty = match rng.below(20) {
        0..=11 => Ty::F32,
        12..=16 => Ty::F64,
        _ => Ty::I32,
    };
    let mut g = Gen::new(ty);
    match class {
        ProgramClass::Elementwise => gen_elementwise(&mut rng, &mut g),
        ProgramClass::Reduction => gen_reduction(&mut rng, &mut g),
        ProgramClass::Contraction => gen_contraction(&mut rng, &mut g),
        ProgramClass::Convolution => gen_convolution(&mut rng, &mut g),
        ProgramClass::Stencil => gen_stencil(&mut rng, &mut g),
        ProgramClass::Triangular => gen_triangular(&mut rng, &mut g),
        ProgramClass::MultiNest => gen_multi_nest(&mut rng, &mut g),
    }
    GeneratedProgram { id: format!("s{seed}-p{index}"), seed, index, class, mlir: g.finish() }
}
