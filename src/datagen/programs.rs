//! Random affine programs: seeded, deterministic, valid by construction.
//!
//! The classes follow the seeds' generator and PolyBench: element-wise maps (with
//! transposed, strided and broadcast accesses), reductions (with an imperfect or a separate
//! initialization), contractions (matmul-like, batched), convolutions, stencils (two-buffer
//! and in-place, with an optional time loop), triangular nests, and chains of sibling nests
//! linked by temporaries (fusion material).
//!
//! Three size profiles. `Sizes::Toy` (the first dataset): one run takes from tens of
//! microseconds to a few milliseconds. `Sizes::Real`: what users run, with loop iterations
//! drawn log-normally from 2^16 to 2^31 (identity runs from about 50 µs to seconds, median
//! in the tens of milliseconds), working sets from a few KiB to a few hundred MiB (L1 to
//! several times the last-level cache), and the DNN and PolyBench classes besides: DNN
//! convolutions of every common kind (standard, depthwise, grouped, pointwise, strided,
//! dilated), pooling, matmul chains with transposed operands, normalization, triangular
//! solvers, covariance, and 3-D stencils. `Sizes::Resident`: the real classes at the sizes
//! whose buffers stay in the caches (2^14..2^24 iterations, working sets up to
//! [`MAX_RESIDENT_WORKING_SET`]): a BERT layer's normalization (512 x 768) or a MobileNet
//! layer, where the real profile's bell (around 2^23.5) draws few of them.

use super::rng::Rng;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// The name of the generated function.
pub const FUNCTION: &str = "kernel";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
#[value(rename_all = "snake_case")]
pub enum ProgramClass {
    Elementwise,
    Reduction,
    Contraction,
    Convolution,
    Stencil,
    Triangular,
    MultiNest,
    DnnConvolution,
    Pooling,
    MatmulChain,
    Normalization,
    Solver,
    DataMining,
    Wide,
    Linear,
    Temporary,
    RankUpdate,
    DnnLayer,
}

impl ProgramClass {
    /// What a class's own stream mixes into the seed (0 for the mixed streams): from its
    /// name, so that no reordering of the classes moves a stream.
    pub fn stream_salt(self) -> u64 {
        self.name().bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
    }

    /// The name in data and on the command line (`data_mining`).
    pub fn name(self) -> &'static str {
        match self {
            ProgramClass::Elementwise => "elementwise",
            ProgramClass::Reduction => "reduction",
            ProgramClass::Contraction => "contraction",
            ProgramClass::Convolution => "convolution",
            ProgramClass::Stencil => "stencil",
            ProgramClass::Triangular => "triangular",
            ProgramClass::MultiNest => "multi_nest",
            ProgramClass::DnnConvolution => "dnn_convolution",
            ProgramClass::Pooling => "pooling",
            ProgramClass::MatmulChain => "matmul_chain",
            ProgramClass::Normalization => "normalization",
            ProgramClass::Solver => "solver",
            ProgramClass::DataMining => "data_mining",
            ProgramClass::Wide => "wide",
            ProgramClass::Linear => "linear",
            ProgramClass::Temporary => "temporary",
            ProgramClass::RankUpdate => "rank_update",
            ProgramClass::DnnLayer => "dnn_layer",
        }
    }
}

/// The classes of `Sizes::Toy`.
pub const CLASSES: [ProgramClass; 7] = [
    ProgramClass::Elementwise,
    ProgramClass::Reduction,
    ProgramClass::Contraction,
    ProgramClass::Convolution,
    ProgramClass::Stencil,
    ProgramClass::Triangular,
    ProgramClass::MultiNest,
];

/// The classes of `Sizes::Real`: the toy classes and the DNN and PolyBench ones.
pub const REAL_CLASSES: [ProgramClass; 13] = [
    ProgramClass::Elementwise,
    ProgramClass::Reduction,
    ProgramClass::Contraction,
    ProgramClass::Convolution,
    ProgramClass::Stencil,
    ProgramClass::Triangular,
    ProgramClass::MultiNest,
    ProgramClass::DnnConvolution,
    ProgramClass::Pooling,
    ProgramClass::MatmulChain,
    ProgramClass::Normalization,
    ProgramClass::Solver,
    ProgramClass::DataMining,
];

/// How big the generated programs are (see the module's documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Sizes {
    Toy,
    Real,
    Resident,
}

impl Sizes {
    /// The first letter of the ids of this profile's programs (`r2-p7`, `c4-normalization-p0`).
    pub fn prefix(self) -> &'static str {
        match self {
            Sizes::Toy => "s",
            Sizes::Real => "r",
            Sizes::Resident => "c",
        }
    }

    /// The profile of a program id's prefix (the inverse of [`Sizes::prefix`]).
    pub fn of_id(id: &str) -> Option<Sizes> {
        [Sizes::Toy, Sizes::Real, Sizes::Resident].into_iter().find(|s| {
            id.strip_prefix(s.prefix()).is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        })
    }
}

/// The largest working set (bytes of all buffers) of a `Sizes::Real` program: several
/// times the last-level caches of the machines used (32 MiB here), and small enough for a
/// batch's driver (two copies of every buffer) to fit in memory beside its neighbours.
pub const MAX_WORKING_SET: u64 = 384 << 20;

/// The largest working set of a `Sizes::Resident` program: half the last-level cache of the
/// data card's hosts (32 MiB), so that its buffers and their copies stay there.
pub const MAX_RESIDENT_WORKING_SET: u64 = 16 << 20;

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
    sizes: Sizes,
    /// Multiplies every drawn iteration budget (a program over the working-set limit is
    /// drawn again, smaller).
    shrink: f64,
    ty: Ty,
    bufs: Vec<Vec<i64>>,
    consts: Vec<(String, String)>,
    body: String,
    depth: usize,
    next_value: usize,
    next_iv: usize,
}

impl Gen {
    fn new(ty: Ty, sizes: Sizes, shrink: f64) -> Self {
        Gen { sizes, shrink, ty, bufs: Vec::new(), consts: Vec::new(), body: String::new(), depth: 0, next_value: 0, next_iv: 0 }
    }

    /// Iterations of a program: toy: 2^14..2^20, uniform in the exponent; real: 2^16..2^31,
    /// the exponent the mean of three uniforms (a bell around 2^23.5: runs of tens of ms);
    /// resident: 2^14..2^24 the same way (a bell around 2^19: a normalization's two buffers
    /// of 1 MiB each).
    fn budget(&self, rng: &mut Rng) -> f64 {
        let bell = |rng: &mut Rng| (0..3).map(|_| rng.below(1_000_001) as f64 / 1e6).sum::<f64>() / 3.0;
        match self.sizes {
            Sizes::Toy => (1u64 << rng.range(14, 20)) as f64,
            Sizes::Real => 2f64.powf(16.0 + 15.0 * bell(rng)) * self.shrink,
            Sizes::Resident => 2f64.powf(14.0 + 10.0 * bell(rng)) * self.shrink,
        }
    }

    fn elem_bytes(&self) -> u64 {
        if self.ty == Ty::F64 {
            8
        } else {
            4
        }
    }

    /// Bytes of every buffer.
    fn working_set(&self) -> u64 {
        self.bufs.iter().map(|s| s.iter().product::<i64>().max(1) as u64 * self.elem_bytes()).sum()
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

    /// `c[c_subs] = c[c_subs] + a[a_subs] * b[b_subs]`: the statement of every product
    /// (loads of a, b, then c, in that order: the committed data's programs are this text).
    fn multiply_accumulate(&mut self, (a, a_subs): (usize, &[String]), (b, b_subs): (usize, &[String]), (c, c_subs): (usize, &[String])) {
        let va = self.load(a, a_subs);
        let vb = self.load(b, b_subs);
        let vc = self.load(c, c_subs);
        let p = self.bin(Bin::Mul, &va, &vb);
        let s = self.bin(Bin::Add, &vc, &p);
        self.store(&s, c, c_subs);
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
    let b = g.budget(rng);

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
    let b = g.budget(rng);

    let ext = extents(rng, depth, b);
    let kept = rng.range(0, depth - 1);
    reduction(rng, g, &ext, kept, None);
}

fn gen_contraction(rng: &mut Rng, g: &mut Gen) {
    let batched = rng.chance(0.25);
    let b = g.budget(rng) * 2.0;

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
    g.multiply_accumulate((a, &sub(&iv_of[0], &iv_of[2])), (b, &sub(&iv_of[2], &iv_of[1])), (c, &sub(&iv_of[0], &iv_of[1])));
    for _ in 0..(3 + bivs.len()) {
        g.close();
    }
}

fn gen_convolution(rng: &mut Rng, g: &mut Gen) {
    // out[f][y][x] += in[c][y + r][x + s] * w[f][c][r][s], some of f and c dropped.
    let with_f = rng.chance(0.6);
    let with_c = rng.chance(0.6);
    let k = *rng.pick(&[3i64, 3, 5]);
    let b = g.budget(rng) / (k * k) as f64;

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
    let b = g.budget(rng) / steps as f64;

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
    let b = g.budget(rng) * 2.0;
    let n = extents(rng, 2, b)[0];
    let with_k = rng.chance(0.6);
    let b = g.budget(rng) / (n * n / 2) as f64;
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
    let b = g.budget(rng) / 2.0;

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

/// Picks a size near `target` among the usual layer sizes (powers of two and their 1.5x).
fn layer_size(rng: &mut Rng, target: f64, lo: i64, hi: i64) -> i64 {
    let candidates: Vec<i64> = [3i64, 4, 6, 7, 8, 12, 14, 16, 24, 28, 32, 48, 56, 64, 96, 112, 128, 192, 224, 256, 384, 512]
        .into_iter()
        .filter(|&s| s >= lo && s <= hi)
        .collect();
    let near = candidates.iter().copied().min_by(|a, b| {
        ((*a as f64).ln() - target.max(1.0).ln()).abs().total_cmp(&((*b as f64).ln() - target.max(1.0).ln()).abs())
    });
    let i = candidates.iter().position(|&s| Some(s) == near).unwrap_or(0);
    // One step either way now and then.
    let j = match rng.below(4) {
        0 => i.saturating_sub(1),
        1 => (i + 1).min(candidates.len() - 1),
        _ => i,
    };
    candidates[j]
}

/// `a * s + b * d` for loop ivs, as a subscript (`s`, `d` small constants).
fn scaled(a: &str, s: i64, b: &str, d: i64) -> String {
    let t = |v: &str, k: i64| if k == 1 { v.to_string() } else { format!("{v} * {k}") };
    format!("{} + {}", t(a, s), t(b, d))
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ConvKind {
    Standard,
    Depthwise,
    Grouped,
    Pointwise,
}

/// A DNN convolution layer (NCHW, batch 1): standard, depthwise, grouped or pointwise, with a
/// stride and a dilation: out[f][y][x] += in[c][y*s + r*d][x*s + q*d] * w[f][c][r][q].
fn gen_dnn_convolution(rng: &mut Rng, g: &mut Gen) {
    dnn_convolution(rng, g, LayerForm::BARE);
}

/// How a layer's output is set up around its convolution. `BARE` is the
/// `dnn_convolution` class's (the output accumulated as it is); the `dnn_layer` class
/// draws the forms a framework's lowering emits (`linalg.fill` + `linalg.conv_2d_*` +
/// an activation, through `--convert-linalg-to-affine-loops`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct LayerForm {
    /// Images per batch: an outermost loop over all three buffers when above 1.
    batch: i64,
    /// The output's initialization, in its own nest before the convolution's.
    init: Option<LayerInit>,
    /// A ReLU in its own nest after the convolution's.
    relu: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum LayerInit {
    Zero,
    /// `out[f][y][x] = bias[f]`.
    Bias,
}

impl LayerForm {
    const BARE: LayerForm = LayerForm { batch: 1, init: None, relu: false };
}

/// A DNN layer as lowered from a framework's graph: a convolution of any kind (as
/// [`gen_dnn_convolution`]) whose output is zeroed or set to a bias in a sibling nest first
/// (most of the time), over a batch of images sometimes, followed by a ReLU nest sometimes:
/// fusion material where the convolution alone has none (the init nest fused into the
/// convolution's output loops, then the register tile around the reduction).
fn gen_dnn_layer(rng: &mut Rng, g: &mut Gen) {
    let batch = *rng.pick(&[1i64, 1, 1, 2, 4, 8]);
    let init = match rng.below(10) {
        0..=5 => Some(LayerInit::Zero),
        6..=8 => Some(LayerInit::Bias),
        _ => None,
    };
    let relu = rng.chance(0.3);
    dnn_convolution(rng, g, LayerForm { batch, init, relu });
}

/// The convolution of [`gen_dnn_convolution`] in a [`LayerForm`]; with `LayerForm::BARE` it
/// draws and emits exactly what that class always did (the committed data's programs).
fn dnn_convolution(rng: &mut Rng, g: &mut Gen, form: LayerForm) {
    let kind = *rng.pick(&[ConvKind::Standard, ConvKind::Standard, ConvKind::Depthwise, ConvKind::Grouped, ConvKind::Pointwise]);
    let k = if kind == ConvKind::Pointwise { 1 } else { *rng.pick(&[3i64, 3, 3, 5, 7]) };
    let stride = *rng.pick(&[1i64, 1, 1, 2]);
    let dilation = if k > 1 && rng.chance(0.2) { 2 } else { 1 };
    let b = g.budget(rng);
    // Channels first (layers have 16..512), then the spatial size from what is left.
    let target = 2f64.powf(4.0 + 4.0 * rng.below(1001) as f64 / 1000.0);
    let c = layer_size(rng, target, 3, 512);
    let groups = match kind {
        ConvKind::Grouped => *rng.pick(&[2i64, 4, 8]).min(&c),
        ConvKind::Depthwise => c,
        _ => 1,
    };
    let c = c / groups * groups;
    let f = match kind {
        ConvKind::Depthwise => c,
        ConvKind::Grouped => (layer_size(rng, c as f64, 8, 512) / groups).max(1) * groups,
        _ => {
            let target = c as f64 * [0.5, 1.0, 2.0][rng.below(3)];
            layer_size(rng, target, 8, 512)
        }
    };
    // A batch loop would make a grouped layer with a window 8 loops deep, past what the model
    // takes (`limits::MAX_DEPTH`): those stay one image.
    let form = if kind == ConvKind::Grouped && k > 1 { LayerForm { batch: 1, ..form } } else { form };
    let per_output = (c / groups) * k * k;
    let hw = (b / (form.batch * f * per_output) as f64).sqrt();
    let out = layer_size(rng, hw, 3, 224);
    let span = (k - 1) * dilation + 1;
    let inp = (out - 1) * stride + span;
    let batched = |shape: Vec<i64>| if form.batch > 1 { [vec![form.batch], shape].concat() } else { shape };
    let input = g.buffer(batched(vec![c, inp, inp]));
    let w = g.buffer(if kind == ConvKind::Depthwise { vec![c, k, k] } else { vec![f, c / groups, k, k] });
    let o = g.buffer(batched(vec![f, out, out]));
    let bias = (form.init == Some(LayerInit::Bias)).then(|| g.buffer(vec![f]));
    // The output's loops (batch, filter, y, x) of the initialization and the ReLU nests.
    let output_nest = |g: &mut Gen, body: &dyn Fn(&mut Gen, Vec<String>)| {
        let n = (form.batch > 1).then(|| g.open_n(form.batch));
        let subs: Vec<String> = n.into_iter().chain([f, out, out].map(|e| g.open_n(e))).collect();
        let depth = subs.len();
        body(g, subs);
        for _ in 0..depth {
            g.close();
        }
    };
    let zero = (form.init.is_some() || form.relu).then(|| g.constant(0.0)).unwrap_or_default();
    if let Some(init) = form.init {
        output_nest(g, &|g, subs| {
            let v = match (init, bias) {
                (LayerInit::Bias, Some(bias)) => g.load(bias, &subs[subs.len() - 3..subs.len() - 2]),
                _ => zero.clone(),
            };
            g.store(&v, o, &subs);
        });
    }
    let (cg, fg) = (c / groups, f / groups);
    // Loops: (batch), (group), filter, y, x, channel (in the group), r, q.
    let n = (form.batch > 1).then(|| g.open_n(form.batch));
    let grp = (kind == ConvKind::Grouped).then(|| g.open_n(groups));
    let fo = g.open_n(if kind == ConvKind::Grouped { fg } else { f });
    let y = g.open_n(out);
    let x = g.open_n(out);
    let ci = (kind != ConvKind::Depthwise).then(|| g.open_n(cg));
    let (r, q) = if k > 1 { (Some(g.open_n(k)), Some(g.open_n(k))) } else { (None, None) };
    let fsub = match &grp {
        Some(gv) => format!("{gv} * {fg} + {fo}"),
        None => fo.clone(),
    };
    let csub = match (&grp, &ci) {
        (Some(gv), Some(ci)) => format!("{gv} * {cg} + {ci}"),
        (None, Some(ci)) => ci.clone(),
        _ => fo.clone(), // depthwise: the channel is the filter
    };
    let spatial = |base: &str, off: &Option<String>| match off {
        Some(o) => scaled(base, stride, o, dilation),
        None if stride == 1 => base.to_string(),
        None => format!("{base} * {stride}"),
    };
    let with_n = |subs: Vec<String>| n.iter().cloned().chain(subs).collect::<Vec<String>>();
    let vi = g.load(input, &with_n(vec![csub.clone(), spatial(&y, &r), spatial(&x, &q)]));
    let mut wsub = match kind {
        ConvKind::Depthwise => vec![fo.clone()],
        _ => vec![fsub.clone(), ci.clone().unwrap_or_default()],
    };
    wsub.extend(r.iter().cloned().chain(q.iter().cloned()));
    if k == 1 && kind != ConvKind::Depthwise {
        wsub.extend(["0".to_string(), "0".to_string()]);
    }
    let vw = g.load(w, &wsub);
    let osub = with_n(vec![fsub, y.clone(), x.clone()]);
    let vo = g.load(o, &osub);
    let p = g.bin(Bin::Mul, &vi, &vw);
    let s = g.bin(Bin::Add, &vo, &p);
    g.store(&s, o, &osub);
    let depth = 3 + n.is_some() as usize + grp.is_some() as usize + ci.is_some() as usize + 2 * (k > 1) as usize;
    for _ in 0..depth {
        g.close();
    }
    if form.relu {
        output_nest(g, &|g, subs| {
            let v = g.load(o, &subs);
            let r = g.bin(Bin::Max, &v, &zero);
            g.store(&r, o, &subs);
        });
    }
}

/// Max or sum pooling over a window with a stride: out[c][y][x] = in[c][y*s][x*s], then
/// combined with the rest of the window.
fn gen_pooling(rng: &mut Rng, g: &mut Gen) {
    let k = *rng.pick(&[2i64, 3, 3]);
    let stride = *rng.pick(&[1i64, 2, 2]);
    let b = g.budget(rng) / (k * k) as f64;
    let target = 2f64.powf(4.0 + 4.0 * rng.below(1001) as f64 / 1000.0);
    let c = layer_size(rng, target, 3, 512);
    let out = layer_size(rng, (b / c as f64).sqrt(), 3, 224);
    let inp = (out - 1) * stride + k;
    let input = g.buffer(vec![c, inp, inp]);
    let o = g.buffer(vec![c, out, out]);
    let op = if rng.chance(0.6) { Bin::Max } else { Bin::Add };
    let cv = g.open_n(c);
    let y = g.open_n(out);
    let x = g.open_n(out);
    let first = g.load(input, &[cv.clone(), spatial_at(&y, stride), spatial_at(&x, stride)]);
    let osub = vec![cv.clone(), y.clone(), x.clone()];
    g.store(&first, o, &osub);
    let r = g.open_n(k);
    let q = g.open_n(k);
    let v = g.load(input, &[cv, scaled(&y, stride, &r, 1), scaled(&x, stride, &q, 1)]);
    let acc = g.load(o, &osub);
    let m = g.bin(op, &acc, &v);
    g.store(&m, o, &osub);
    for _ in 0..5 {
        g.close();
    }
}

fn spatial_at(iv: &str, stride: i64) -> String {
    if stride == 1 {
        iv.to_string()
    } else {
        format!("{iv} * {stride}")
    }
}

/// Two chained matrix products (2mm-like, attention-like): T = A·B, then D += T·C, with B or
/// C transposed now and then, each product with its own initialization nest.
fn gen_matmul_chain(rng: &mut Rng, g: &mut Gen) {
    let b = g.budget(rng) / 2.0;
    let e = extents(rng, 4, b.powf(4.0 / 3.0));
    let (ni, nk, nj, nl) = (e[0], e[1], e[2], e[3]);
    let (bt, ct) = (rng.chance(0.4), rng.chance(0.4));
    let a = g.buffer(vec![ni, nk]);
    let bm = g.buffer(if bt { vec![nj, nk] } else { vec![nk, nj] });
    let t = g.buffer(vec![ni, nj]);
    let cm = g.buffer(if ct { vec![nl, nj] } else { vec![nj, nl] });
    let d = g.buffer(vec![ni, nl]);
    let zero = g.constant(0.0);
    let product = |g: &mut Gen, lhs: usize, rhs: usize, out: usize, (n1, n2, n3): (i64, i64, i64), transposed: bool, init: bool| {
        let i = g.open_n(n1);
        let j = g.open_n(n2);
        if init {
            g.store(&zero, out, &[i.clone(), j.clone()]);
        }
        let k = g.open_n(n3);
        let rhs_subs = if transposed { [j.clone(), k.clone()] } else { [k.clone(), j.clone()] };
        g.multiply_accumulate((lhs, &[i.clone(), k]), (rhs, &rhs_subs), (out, &[i, j]));
        for _ in 0..3 {
            g.close();
        }
    };
    product(g, a, bm, t, (ni, nj, nk), bt, true);
    product(g, t, cm, d, (ni, nl, nj), ct, rng.chance(0.5));
}

/// `stat[s] = zero; stat[s] = op(stat[s], term)` over the other dimension of the 2-D `src`
/// (its rows' statistic with `by_row`, its columns' otherwise; `term` is the element, or its
/// square): the initialized reduction of normalizations and data-mining kernels.
#[allow(clippy::too_many_arguments)]
fn statistic(g: &mut Gen, src: usize, stat: usize, (n_stat, n_other): (i64, i64), by_row: bool, zero: &str, op: Bin, square: bool) {
    let s = g.open_n(n_stat);
    g.store(zero, stat, &[s.clone()]);
    let o = g.open_n(n_other);
    let subs = if by_row { [s.clone(), o] } else { [o, s.clone()] };
    let v = g.load(src, &subs);
    let term = if square { g.bin(Bin::Mul, &v, &v) } else { v };
    let m = g.load(stat, &[s.clone()]);
    let r = g.bin(op, &m, &term);
    g.store(&r, stat, &[s]);
    g.close();
    g.close();
}

/// PolyBench's temporaries (doitgen's `sum[p]`): per iteration of one or two outer loops, a
/// contraction into a buffer indexed by the inner loops only, `t[p] = Σ_s A[o..][s] · W[s][p]`
/// (W maybe stored `[p][s]`), initialized there (in the same nest or a separate one), then
/// written out (`out[o..][p] = t[p]`, into A itself where the sizes allow, as doitgen does).
/// Its stores are invariant in the outer loops, which no other class makes: the model had
/// never seen a reduction innermost under such loops, and predicted about 1x for doitgen's
/// interchange that runs 15x (onnx/REPORT.md). The inner order is drawn: the reduction
/// innermost (doitgen's, which LLVM cannot vectorize) or outside the loop over p. Drawn only
/// on request (`--class temporary`), so the mixed streams stay as they were.
fn gen_temporary(rng: &mut Rng, g: &mut Gen) {
    let outer = rng.range(1, 3) as usize;
    let b = g.budget(rng);
    let ext = extents(rng, outer + 2, b);
    let (outers, np) = (ext[..outer].to_vec(), ext[outer]);
    let in_place = rng.chance(0.5);
    let ns = if in_place { np } else { ext[outer + 1] };
    let transposed = rng.chance(0.3);
    let with_outer = |last: i64| [outers.clone(), vec![last]].concat();
    let input = g.buffer(with_outer(ns));
    let w = g.buffer(if transposed { vec![np, ns] } else { vec![ns, np] });
    let t = g.buffer(vec![np]);
    let out = if in_place { input } else { g.buffer(with_outer(np)) };
    let zero = g.constant(0.0);
    let ivs: Vec<String> = outers.iter().map(|n| g.open_n(*n)).collect();
    let sub = |last: &str| [ivs.clone(), vec![last.to_string()]].concat();
    let w_subs = |s: &str, p: &str| if transposed { [p.to_string(), s.to_string()] } else { [s.to_string(), p.to_string()] };
    let reduction_innermost = rng.chance(0.6);
    // With p innermost the initialization cannot share p's loop: it runs first, on its own.
    let separate_init = !reduction_innermost || rng.chance(0.4);
    if separate_init {
        let p = g.open_n(np);
        g.store(&zero, t, &[p]);
        g.close();
    }
    if reduction_innermost {
        let p = g.open_n(np);
        if !separate_init {
            g.store(&zero, t, &[p.clone()]);
        }
        let s = g.open_n(ns);
        g.multiply_accumulate((input, &sub(&s)), (w, &w_subs(&s, &p)), (t, &[p.clone()]));
    } else {
        let s = g.open_n(ns);
        let p = g.open_n(np);
        g.multiply_accumulate((input, &sub(&s)), (w, &w_subs(&s, &p)), (t, &[p.clone()]));
    }
    g.close();
    g.close();
    let p = g.open_n(np);
    let mut v = g.load(t, &[p.clone()]);
    if rng.chance(0.3) {
        let c = g.constant(if g.ty.is_float() { 0.5 } else { 3.0 });
        v = g.bin(Bin::Mul, &v, &c);
    }
    g.store(&v, out, &sub(&p));
    g.close();
    for _ in &ivs {
        g.close();
    }
}

/// Triangular rank-k updates and triangular products whose reduction is as long as the
/// budget makes it (BLAS-3's and PolyBench's syrk, syr2k and trmm at any size and
/// orientation). The triangular class draws its reduction at most 256 long: there a chain
/// of dependent adds along it, innermost, still overlaps the next column's chain in a core's
/// reorder window, and the model trained on that rated the k-j interchange of a long
/// triangular reduction (a scalar chain innermost, latency-bound) at 4x where it ran 0.93x
/// (benchmarks/discussion.md, syrk). Forms: `C[i][j] (·beta) += Σ_k A[i][k]·B[j][k]
/// (+ B[i][k]·A[j][k])` over the lower or the upper triangle, the scaling in i's loop before
/// the update, in a nest of its own, or none, and the reduction loop k between i and j or
/// innermost; or `B[i][j] += Σ_{k>i} A[k][i]·B[k][j]` then scaled (the reduction's bounds
/// triangular), k innermost or j. Drawn only on request (`--class rank_update`), so the
/// mixed streams stay as they were.
fn gen_rank_update(rng: &mut Rng, g: &mut Gen) {
    let b = g.budget(rng) * 2.0;
    // The reduction 0.5x to 4x the other loops' length (at the budget's median, k of about
    // 150 to 1,200), the triangle's side what is left of the budget.
    let skew = *rng.pick(&[0.5, 1.0, 2.0, 4.0]);
    let e = extents(rng, 3, b);
    let nk = ((e[1] as f64 * skew).round() as i64).max(8);
    let n = (((e[0] * e[2]) as f64 / skew).sqrt().round() as i64).max(8);
    let alpha = if rng.chance(0.5) { Some(g.constant(if g.ty.is_float() { 1.5 } else { 3.0 })) } else { None };
    let times_alpha = |g: &mut Gen, v: String| match &alpha {
        Some(a) => g.bin(Bin::Mul, &v, a),
        None => v,
    };
    if rng.chance(0.25) {
        // trmm-like: B is n x m, A is n x n; row i takes the rows below it.
        let m = nk;
        let a = g.buffer(vec![n, n]);
        let bm = g.buffer(vec![n, m]);
        let i = g.open_n(n);
        let k_inner = rng.chance(0.6);
        let (j, k) = if k_inner {
            let j = g.open_n(m);
            let k = g.open(&format!("affine_map<(d0) -> (d0 + 1)>({i})"), &n.to_string());
            (j, k)
        } else {
            let k = g.open(&format!("affine_map<(d0) -> (d0 + 1)>({i})"), &n.to_string());
            let j = g.open_n(m);
            (j, k)
        };
        g.multiply_accumulate((a, &[k.clone(), i.clone()]), (bm, &[k, j.clone()]), (bm, &[i.clone(), j]));
        g.close();
        g.close();
        if let Some(al) = alpha.clone() {
            let j = g.open_n(m);
            let v = g.load(bm, &[i.clone(), j.clone()]);
            let s = g.bin(Bin::Mul, &v, &al);
            g.store(&s, bm, &[i, j]);
            g.close();
        }
        g.close();
        return;
    }
    let lower = rng.chance(0.5);
    let two = rng.chance(0.35);
    let c = g.buffer(vec![n, n]);
    let a = g.buffer(vec![n, nk]);
    let other = if two { g.buffer(vec![n, nk]) } else { a };
    // 0: scaled in i's loop before the update (PolyBench's), 1: in a nest of its own, 2: not.
    let scale = rng.below(3);
    let beta = (scale < 2).then(|| g.constant(if g.ty.is_float() { 1.2 } else { 2.0 }));
    let tri = |g: &mut Gen, i: &str| {
        if lower {
            g.open("0", &format!("affine_map<(d0) -> (d0 + 1)>({i})"))
        } else {
            g.open(&format!("affine_map<(d0) -> (d0)>({i})"), &n.to_string())
        }
    };
    let scale_row = |g: &mut Gen, i: &str, beta: &str| {
        let j = tri(g, i);
        let v = g.load(c, &[i.to_string(), j.clone()]);
        let s = g.bin(Bin::Mul, &v, beta);
        g.store(&s, c, &[i.to_string(), j]);
        g.close();
    };
    if let (1, Some(beta)) = (scale, &beta) {
        let i = g.open_n(n);
        scale_row(g, &i, beta);
        g.close();
    }
    let i = g.open_n(n);
    if let (0, Some(beta)) = (scale, &beta) {
        scale_row(g, &i, beta);
    }
    let k_inner = rng.chance(0.4);
    let (j, k) = if k_inner {
        let j = tri(g, &i);
        (j, g.open_n(nk))
    } else {
        let k = g.open_n(nk);
        (tri(g, &i), k)
    };
    let (ik, jk) = ([i.clone(), k.clone()], [j.clone(), k.clone()]);
    let sum = if two {
        let v1 = g.load(a, &jk);
        let v2 = g.load(other, &ik);
        let v3 = g.load(other, &jk);
        let v4 = g.load(a, &ik);
        let vc = g.load(c, &[i.clone(), j.clone()]);
        let v2 = times_alpha(g, v2);
        let p1 = g.bin(Bin::Mul, &v1, &v2);
        let v4 = times_alpha(g, v4);
        let p2 = g.bin(Bin::Mul, &v3, &v4);
        let s = g.bin(Bin::Add, &vc, &p1);
        g.bin(Bin::Add, &s, &p2)
    } else {
        let v1 = g.load(a, &ik);
        let v2 = g.load(a, &jk);
        let vc = g.load(c, &[i.clone(), j.clone()]);
        let v1 = times_alpha(g, v1);
        let p = g.bin(Bin::Mul, &v1, &v2);
        g.bin(Bin::Add, &vc, &p)
    };
    g.store(&sum, c, &[i, j]);
    for _ in 0..3 {
        g.close();
    }
}

/// Fully connected layers and GEMMs with their operands stored either way:
/// `C[i][j] (= bias[j] | 0 | as it is) + Σ_k A(i, k) · B(k, j)`, A stored `[i][k]` or
/// `[k][i]`, B `[k][j]` or (as PyTorch's Linear keeps its weights) `[j][k]`, then maybe a
/// ReLU nest. The contraction class never transposes an operand, so which loop may go
/// innermost without walking a matrix's rows depends here on the layout, not only on the
/// loop order. Shapes are square-ish or layer-like (a batch of 1 to 128 rows against wide
/// inputs and outputs). Drawn only on request (`--class linear`), so the mixed streams stay
/// as they were.
fn gen_linear(rng: &mut Rng, g: &mut Gen) {
    let b = g.budget(rng) * 2.0;
    let (ni, nj, nk) = if rng.chance(0.5) {
        let batch = *rng.pick(&[1i64, 4, 8, 16, 32, 64, 128]);
        let e = extents(rng, 2, (b / batch as f64).max(16.0));
        (batch, e[0], e[1])
    } else {
        let e = extents(rng, 3, b);
        (e[0], e[1], e[2])
    };
    let (a_t, b_t) = (rng.chance(0.3), rng.chance(0.6));
    let a = g.buffer(if a_t { vec![nk, ni] } else { vec![ni, nk] });
    let w = g.buffer(if b_t { vec![nj, nk] } else { vec![nk, nj] });
    let c = g.buffer(vec![ni, nj]);
    // 0: the output initialized inside the nest (from a bias or zero: imperfect, k
    // innermost); 1: by a sibling nest first; 2: accumulated into as it is.
    let init = rng.below(3);
    let bias = if init < 2 && rng.chance(0.6) { Some(g.buffer(vec![nj])) } else { None };
    let zero = g.constant(0.0);
    let init_value = |g: &mut Gen, j: &str| match bias {
        Some(bb) => g.load(bb, &[j.to_string()]),
        None => zero.clone(),
    };
    if init == 1 {
        let i = g.open_n(ni);
        let j = g.open_n(nj);
        let v = init_value(g, &j);
        g.store(&v, c, &[i, j]);
        g.close();
        g.close();
    }
    let mut order = vec![0usize, 1, 2];
    if init == 0 {
        if rng.chance(0.5) {
            order.swap(0, 1);
        }
    } else {
        rng.shuffle(&mut order);
    }
    let sizes = [ni, nj, nk];
    let mut iv = [String::new(), String::new(), String::new()];
    for (depth, &l) in order.iter().enumerate() {
        iv[l] = g.open_n(sizes[l]);
        if init == 0 && depth == 1 {
            let v = init_value(g, &iv[1]);
            g.store(&v, c, &[iv[0].clone(), iv[1].clone()]);
        }
    }
    let (i, j, k) = (iv[0].clone(), iv[1].clone(), iv[2].clone());
    let a_subs = if a_t { [k.clone(), i.clone()] } else { [i.clone(), k.clone()] };
    let w_subs = if b_t { [j.clone(), k] } else { [k, j.clone()] };
    g.multiply_accumulate((a, &a_subs), (w, &w_subs), (c, &[i, j]));
    for _ in 0..3 {
        g.close();
    }
    if rng.chance(0.3) {
        let i = g.open_n(ni);
        let j = g.open_n(nj);
        let v = g.load(c, &[i.clone(), j.clone()]);
        let r = g.bin(Bin::Max, &v, &zero);
        g.store(&r, c, &[i, j]);
        g.close();
        g.close();
    }
}

/// Row normalization (at most [`crate::limits::MAX_COMPUTATIONS`] statements): either
/// mean[r] = Σ x[r][c]; y[r][c] = (x[r][c] - mean[r] * k) * scale, or the second-moment
/// form ms[r] = Σ x[r][c]²; y[r][c] = x[r][c] * ms[r].
fn gen_normalization(rng: &mut Rng, g: &mut Gen) {
    let second_moment = rng.chance(0.4);
    let b = g.budget(rng) / 2.0;
    let e = extents(rng, 2, b);
    let (nr, nc) = (e[0], e[1]);
    let x = g.buffer(vec![nr, nc]);
    let stat = g.buffer(vec![nr]);
    let y = g.buffer(vec![nr, nc]);
    let zero = g.constant(0.0);
    let inv = g.constant(if g.ty.is_float() { 1.0 / nc as f64 } else { 1.0 });
    let scale = g.constant(if g.ty.is_float() { 0.5 } else { 3.0 });
    statistic(g, x, stat, (nr, nc), true, &zero, Bin::Add, second_moment);
    let r = g.open_n(nr);
    let c = g.open_n(nc);
    let v = g.load(x, &[r.clone(), c.clone()]);
    let m = g.load(stat, &[r.clone()]);
    let mk = g.bin(Bin::Mul, &m, &inv);
    let out = if second_moment {
        g.bin(Bin::Mul, &v, &mk)
    } else {
        let d = g.bin(Bin::Sub, &v, &mk);
        g.bin(Bin::Mul, &d, &scale)
    };
    g.store(&out, y, &[r, c]);
    g.close();
    g.close();
}

/// Triangular solvers and factorizations, whose dependences limit the schedules:
/// forward substitution x[i][b] -= L[i][j] * x[j][b] (j < i, several right-hand sides),
/// or the LU-like update A[i][j] -= A[i][k] * A[k][j] (k < i, j).
fn gen_solver(rng: &mut Rng, g: &mut Gen) {
    if rng.chance(0.5) {
        let b = g.budget(rng) * 2.0;
        let nb = if rng.chance(0.6) { layer_size(rng, 32.0, 3, 256) } else { 1 };
        let n = (b / nb as f64).sqrt().clamp(8.0, 8192.0) as i64;
        let l = g.buffer(vec![n, n]);
        let x = g.buffer(vec![n, nb]);
        let i = g.open_n(n);
        let rhs_outside = nb > 1 && rng.chance(0.5);
        let bv = if rhs_outside { Some(g.open_n(nb)) } else { None };
        let j = g.open("0", &format!("affine_map<(d0) -> (d0)>({i})"));
        let bv = bv.unwrap_or_else(|| g.open_n(nb));
        let vl = g.load(l, &[i.clone(), j.clone()]);
        let vx = g.load(x, &[j, bv.clone()]);
        let vi = g.load(x, &[i.clone(), bv.clone()]);
        let p = g.bin(Bin::Mul, &vl, &vx);
        let s = g.bin(Bin::Sub, &vi, &p);
        g.store(&s, x, &[i, bv]);
        for _ in 0..3 {
            g.close();
        }
    } else {
        let b = g.budget(rng) * 3.0;
        let n = b.cbrt().clamp(8.0, 2048.0) as i64;
        let a = g.buffer(vec![n, n]);
        let k = g.open_n(n);
        let i = g.open(&format!("affine_map<(d0) -> (d0 + 1)>({k})"), &n.to_string());
        let j = g.open(&format!("affine_map<(d0) -> (d0 + 1)>({k})"), &n.to_string());
        let vik = g.load(a, &[i.clone(), k.clone()]);
        let vkj = g.load(a, &[k, j.clone()]);
        let vij = g.load(a, &[i.clone(), j.clone()]);
        let p = g.bin(Bin::Mul, &vik, &vkj);
        let s = g.bin(Bin::Sub, &vij, &p);
        g.store(&s, a, &[i, j]);
        for _ in 0..3 {
            g.close();
        }
    }
}

/// Covariance (PolyBench's data mining): column means, centring, then the upper triangle of
/// Dᵀ·D accumulated into `cov` (four statements: the model's limit).
fn gen_data_mining(rng: &mut Rng, g: &mut Gen) {
    let b = g.budget(rng) * 2.0;
    let e = extents(rng, 3, b);
    let (nn, nm) = (e[0].max(8), e[1].max(8));
    let data = g.buffer(vec![nn, nm]);
    let mean = g.buffer(vec![nm]);
    let cov = g.buffer(vec![nm, nm]);
    let zero = g.constant(0.0);
    let inv = g.constant(if g.ty.is_float() { 1.0 / nn as f64 } else { 1.0 });
    statistic(g, data, mean, (nm, nn), false, &zero, Bin::Add, false);
    let i = g.open_n(nn);
    let j = g.open_n(nm);
    let v = g.load(data, &[i.clone(), j.clone()]);
    let m = g.load(mean, &[j.clone()]);
    let mk = g.bin(Bin::Mul, &m, &inv);
    let d = g.bin(Bin::Sub, &v, &mk);
    g.store(&d, data, &[i, j]);
    g.close();
    g.close();
    let i = g.open_n(nm);
    let j = g.open(&format!("affine_map<(d0) -> (d0)>({i})"), &nm.to_string());
    let k = g.open_n(nn);
    let a = g.load(data, &[k.clone(), i.clone()]);
    let bb = g.load(data, &[k, j.clone()]);
    let c = g.load(cov, &[i.clone(), j.clone()]);
    let p = g.bin(Bin::Mul, &a, &bb);
    let s = g.bin(Bin::Add, &c, &p);
    g.store(&s, cov, &[i, j]);
    for _ in 0..3 {
        g.close();
    }
}

/// Wide programs, as PolyBench's correlation, covariance, 3mm, gemver and layer norms are: a
/// pipeline of 3 to 6 stages over 2-D buffers, each reading what the one before wrote, with
/// 5 to 18 statements in 4 to 12 nests (the other classes stop at
/// [`crate::limits::MAX_COMPUTATIONS`]). A stage is a product with another matrix (plain or
/// transposed, its initialization imperfect or a sibling nest), a row or column statistic
/// (initialized, accumulated) applied back to the matrix (in place or into a new buffer), or
/// an element-wise map with a second input. Drawn only on request (`--class wide`), so the
/// streams of the other classes stay as they were.
fn gen_wide(rng: &mut Rng, g: &mut Gen) {
    let stages = rng.range(3, 6);
    let products = if rng.chance(0.5) { rng.range(1, 3) } else { 0 };
    let b = g.budget(rng);
    // A product costs rows x cols x inner iterations, the others rows x cols (a few times).
    let (nr, nc) = if products > 0 {
        let e = extents(rng, 3, b / products as f64);
        (e[0], e[1])
    } else {
        let e = extents(rng, 2, b / (2 * stages) as f64);
        (e[0], e[1])
    };
    let mut kinds: Vec<usize> = (0..stages).map(|k| if k < products { 0 } else { 1 + rng.below(2) }).collect();
    rng.shuffle(&mut kinds);
    let zero = g.constant(0.0);
    let scale = g.constant(if g.ty.is_float() { 0.5 } else { 3.0 });
    let mut cur = g.buffer(vec![nr, nc]);
    let mut cols = nc;
    let mut statements = 0;
    for (k, &kind) in kinds.iter().enumerate() {
        let last = k + 1 == kinds.len();
        match kind {
            0 => {
                // out[i][j] = Σ_k cur[i][k] * w[k][j] (or w[j][k]).
                let nl = extents(rng, 1, cols as f64)[0];
                let transposed = rng.chance(0.4);
                let w = g.buffer(if transposed { vec![nl, cols] } else { vec![cols, nl] });
                let out = g.buffer(vec![nr, nl]);
                let separate_init = rng.chance(0.3);
                if separate_init {
                    let i = g.open_n(nr);
                    let j = g.open_n(nl);
                    g.store(&zero, out, &[i, j]);
                    g.close();
                    g.close();
                }
                let i = g.open_n(nr);
                let j = g.open_n(nl);
                if !separate_init {
                    g.store(&zero, out, &[i.clone(), j.clone()]);
                }
                let kk = g.open_n(cols);
                let w_subs = if transposed { [j.clone(), kk.clone()] } else { [kk.clone(), j.clone()] };
                g.multiply_accumulate((cur, &[i.clone(), kk]), (w, &w_subs), (out, &[i, j]));
                for _ in 0..3 {
                    g.close();
                }
                statements += 2;
                (cur, cols) = (out, nl);
            }
            1 => {
                // stat[r] = Σ_c cur[r][c] (rows) or stat[c] = Σ_r cur[r][c] (columns);
                // then cur[r][c] = (cur[r][c] - stat * inv) * scale, in place or not.
                let by_row = rng.chance(0.5);
                let (n_stat, n_other) = if by_row { (nr, cols) } else { (cols, nr) };
                let stat = g.buffer(vec![n_stat]);
                let inv = g.constant(if g.ty.is_float() { 1.0 / n_other as f64 } else { 1.0 });
                let square = rng.chance(0.3);
                statistic(g, cur, stat, (n_stat, n_other), by_row, &zero, Bin::Add, square);
                let out = if rng.chance(0.5) && !last { cur } else { g.buffer(vec![nr, cols]) };
                let r = g.open_n(nr);
                let c = g.open_n(cols);
                let v = g.load(cur, &[r.clone(), c.clone()]);
                let m = g.load(stat, &[if by_row { r.clone() } else { c.clone() }]);
                let mk = g.bin(Bin::Mul, &m, &inv);
                let d = if square { g.bin(Bin::Mul, &v, &mk) } else { g.bin(Bin::Sub, &v, &mk) };
                let y = g.bin(Bin::Mul, &d, &scale);
                g.store(&y, out, &[r, c]);
                g.close();
                g.close();
                statements += 3;
                cur = out;
            }
            _ => {
                // out[r][c] = f(cur[r][c], another input, maybe transposed or broadcast).
                let ext = [nr, cols];
                let out = g.buffer(ext.to_vec());
                let ivs_: Vec<String> = ext.iter().map(|&e| g.open_n(e)).collect();
                let mut vals = vec![g.load(cur, &ivs_)];
                vals.push(elementwise_input(rng, g, &ext, &ivs_));
                let v = g.combine(rng, &vals);
                g.store(&v, out, &ivs_);
                g.close();
                g.close();
                statements += 1;
                cur = out;
            }
        }
    }
    // At least 5 statements: a closing statistic over the result (as correlation ends).
    if statements < 5 {
        let stat = g.buffer(vec![cols]);
        statistic(g, cur, stat, (cols, nr), false, &zero, Bin::Max, false);
    }
}

/// The program of item `index` of the stream `seed` (toy sizes: the first dataset's).
pub fn generate(seed: u64, index: u64) -> GeneratedProgram {
    generate_sized(seed, index, Sizes::Toy)
}

/// The program of item `index` of the stream `seed` at the given sizes. Real-size programs
/// are named `r<seed>-p<index>` (toy ones `s<seed>-p<index>`, resident ones `c<seed>-p<index>`),
/// so they never collide in a dataset; one over its profile's working-set limit is drawn
/// again with a quarter of the iterations.
pub fn generate_sized(seed: u64, index: u64, sizes: Sizes) -> GeneratedProgram {
    generate_class(seed, index, sizes, None)
}

/// The salt of the stream `p` was drawn from: its class's when it came from a class's own
/// stream (`r<seed>-<class>-p<index>`), else 0. The walks of its schedules mix it in too, so
/// that a class's programs do not share their walks' draws with the mixed ones.
pub fn stream_salt(p: &GeneratedProgram) -> u64 {
    let own = [Sizes::Toy, Sizes::Real, Sizes::Resident]
        .iter()
        .any(|s| p.id == format!("{}{}-{}-p{}", s.prefix(), p.seed, p.class.name(), p.index));
    if own {
        p.class.stream_salt()
    } else {
        0
    }
}

/// Like [`generate_sized`], or, with `class`, the program of item `index` of that class's
/// own stream, named `r<seed>-<class>-p<index>`: every class can be drawn on request
/// ([`ProgramClass::Wide`], [`ProgramClass::Linear`], [`ProgramClass::Temporary`],
/// [`ProgramClass::RankUpdate`] and [`ProgramClass::DnnLayer`] only so) without changing the
/// other streams.
pub fn generate_class(seed: u64, index: u64, sizes: Sizes, class: Option<ProgramClass>) -> GeneratedProgram {
    let mut shrink = 1.0;
    loop {
        let (drawn, g) = draw(seed, index, sizes, class, shrink);
        let limit = match sizes {
            Sizes::Toy => u64::MAX,
            Sizes::Real => MAX_WORKING_SET,
            Sizes::Resident => MAX_RESIDENT_WORKING_SET,
        };
        if g.working_set() <= limit || shrink < 1e-6 {
            let prefix = sizes.prefix();
            let id = match class {
                None => format!("{prefix}{seed}-p{index}"),
                Some(c) => format!("{prefix}{seed}-{}-p{index}", c.name()),
            };
            return GeneratedProgram { id, seed, index, class: drawn, mlir: g.finish() };
        }
        shrink /= 4.0;
    }
}

fn draw(seed: u64, index: u64, sizes: Sizes, class: Option<ProgramClass>, shrink: f64) -> (ProgramClass, Gen) {
    let salt = class.map_or(0, ProgramClass::stream_salt);
    let mut rng = match sizes {
        Sizes::Toy => Rng::for_item(seed ^ salt, index),
        Sizes::Real => Rng::for_item(seed ^ 0x5ea1_5123 ^ salt, index),
        Sizes::Resident => Rng::for_item(seed ^ 0xcac4_e5 ^ salt, index),
    };
    let class = match (class, sizes) {
        (Some(c), _) => c,
        (None, Sizes::Toy) => *rng.pick(&CLASSES),
        (None, Sizes::Real | Sizes::Resident) => *rng.pick(&REAL_CLASSES),
    };
    let ty = match rng.below(20) {
        0..=11 => Ty::F32,
        12..=16 => Ty::F64,
        _ => Ty::I32,
    };
    let mut g = Gen::new(ty, sizes, shrink);
    match class {
        ProgramClass::Elementwise => gen_elementwise(&mut rng, &mut g),
        ProgramClass::Reduction => gen_reduction(&mut rng, &mut g),
        ProgramClass::Contraction => gen_contraction(&mut rng, &mut g),
        ProgramClass::Convolution => gen_convolution(&mut rng, &mut g),
        ProgramClass::Stencil => gen_stencil(&mut rng, &mut g),
        ProgramClass::Triangular => gen_triangular(&mut rng, &mut g),
        ProgramClass::MultiNest => gen_multi_nest(&mut rng, &mut g),
        ProgramClass::DnnConvolution => gen_dnn_convolution(&mut rng, &mut g),
        ProgramClass::Pooling => gen_pooling(&mut rng, &mut g),
        ProgramClass::MatmulChain => gen_matmul_chain(&mut rng, &mut g),
        ProgramClass::Normalization => gen_normalization(&mut rng, &mut g),
        ProgramClass::Solver => gen_solver(&mut rng, &mut g),
        ProgramClass::DataMining => gen_data_mining(&mut rng, &mut g),
        ProgramClass::Wide => gen_wide(&mut rng, &mut g),
        ProgramClass::Linear => gen_linear(&mut rng, &mut g),
        ProgramClass::Temporary => gen_temporary(&mut rng, &mut g),
        ProgramClass::RankUpdate => gen_rank_update(&mut rng, &mut g),
        ProgramClass::DnnLayer => gen_dnn_layer(&mut rng, &mut g),
    }
    (class, g)
}
