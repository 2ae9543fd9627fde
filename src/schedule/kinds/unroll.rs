//! `unroll(L0.0.0:4)`: unroll a loop by a factor; unroll-and-jam when the loop has loops
//! inside it (its copies then share the inner loops). An unrolled loop's clean-up copy keeps
//! its name; so do the copies of a tile's point loop whose partial last tile is peeled first
//! (passes/kinds/Unroll.cpp).

use super::{write_pairs, Memo, Names, Stage, TransformKind};
use crate::features::layout::Kind as FieldKind;
use crate::ir::Program;
use crate::schedule::tree::{Kid, LoopAt, Scheduled, TreeError};
use crate::schedule::{LoopName, ParseError, Parser, MAX_UNROLL_FACTOR};
use crate::transform::ffi::{self, Call};
use std::fmt;

/// The factors the search proposes (and the data generator's walks draw from).
pub const UNROLL_FACTORS: [u32; 3] = [2, 4, 8];

/// Register tiles (rows, columns) around a loop that accumulates in registers
/// (`accumulate`): its grandparent jammed by `rows`, then its parent by `columns`, so the
/// accumulating loop carries rows x columns accumulators (gemm's 8x16 tile ran at 1.5-3x
/// the 4x8 one on 1024^3, near OpenBLAS, on a 2-core EPYC). Rows first because the exact
/// check of a jam is quadratic in the accesses of the jammed body: the other order checks
/// the rows' jam against `columns` copies (4x32 on attention-scores: 6.3 s against 0.35 s).
pub const REGISTER_TILES: [(u32, u32); 6] = [(2, 8), (4, 8), (4, 16), (8, 8), (8, 16), (4, 32)];

/// A register tile for a function compiled for 512-bit vectors (`prefer-vector-width=512` on
/// AVX-512): 12x32 f32 is 24 of the 32 registers, with room for the two column vectors and
/// the broadcast (BLIS's Skylake-X single-precision kernel, transposed). Offered only there
/// ([`wide_register_tiles`]), before the others, so that LLVM's default vectors search as
/// before whatever the element type (with 2-byte elements it would fit 256-bit ones too).
pub const WIDE_REGISTER_TILE: (u32, u32) = (12, 32);

/// [`WIDE_REGISTER_TILE`] where the function is compiled for vectors of 64 bytes or more.
pub fn wide_register_tiles() -> Option<(u32, u32)> {
    (crate::schedule::tile_sizes::Target::current_vector_bytes() >= 64).then_some(WIDE_REGISTER_TILE)
}

/// Whether a register tile of `rows` x `columns` accumulators of `bytes`-byte elements fits
/// this host's vector registers in the vectors the function is compiled for (256-bit, LLVM's
/// default width on x86, AVX-512 included, unless it asks for others: `Target::vector_bytes`):
/// one that does not spills its accumulators on every step of the reduction
/// (gemm's 8x32 f32 tile on AVX2, 32 vectors for 16 registers, ran at 0.5x the 4x32 one
/// on a 2-core EPYC, and model mode kept choosing it).
pub fn register_tile_fits(rows: u32, columns: u32, bytes: i64) -> bool {
    register_tile_vectors(rows, columns, bytes) <= vector_registers()
}

/// The vector registers a register tile's accumulators take.
fn register_tile_vectors(rows: u32, columns: u32, bytes: i64) -> i64 {
    rows as i64 * row_vectors(columns, bytes)
}

/// Whether the tile also leaves a register for each of its column vectors and one for the
/// broadcast row value beside its accumulators (the micro-kernel's working set: 6x16 f32
/// on AVX2 takes 12 + 2 + 1 of 16).
pub fn register_tile_leaves_room(rows: u32, columns: u32, bytes: i64) -> bool {
    let vectors = row_vectors(columns, bytes);
    rows as i64 * vectors + vectors + 1 <= vector_registers()
}

/// The largest share of a register tile's iterations (over its rows and columns loops) that
/// may run outside whole copies of its unroll-and-jam, in the clean-up copies: pointwise-conv's
/// 56-wide loop in tiles of 32 as an 8x32 tile (the partial tiles of 24 wholly in clean-up, 43%
/// of the columns) ran at 8.27x the naive code, as 8x16 (14%) at 12.83x (one run, medians of 9,
/// 2-core EPYC Zen 4). The model sees the unroll factor and the tile size but not the
/// remainder of the loop, so such tiles are not proposed.
pub const MAX_CLEANUP_SHARE: f64 = 0.25;

/// The share of a loop's `trips` iterations that a `factor`-way unroll leaves to its clean-up
/// copy when the loop is tiled by `tile` (each whole tile, and the peeled partial last one,
/// unrolled on its own: passes/kinds/Unroll.cpp); 0 where the trip count is unknown.
pub fn cleanup_share(trips: Option<i64>, tile: Option<i64>, factor: u32) -> f64 {
    let Some(trips) = trips.filter(|t| *t > 0) else { return 0.0 };
    let (f, tile) = (factor.max(1) as i64, tile.unwrap_or(trips).clamp(1, trips));
    let rest = (trips / tile) * (tile % f) + (trips % tile) % f;
    rest as f64 / trips as f64
}

/// Whether a register tile of `rows` x `columns` over loops of `row_trips` and `column_trips`
/// iterations, tiled by `row_tile` and `column_tile` (None: untiled), runs at most
/// [`MAX_CLEANUP_SHARE`] of its iterations outside whole register tiles.
/// Nor one whose unrolls leave a clean-up copy inside every whole tile (a tile size they do
/// not divide): only a loop's last partial tile, or an untiled loop, may have a remainder.
/// In PolyBench gemm's 275-column tiles, 32 columns (7% of the loop in clean-up) ran the
/// packed 8x32 schedule at 93-98.6 GFLOP/s, in 288-column tiles at 127.5 (2-core EPYC Zen 4).
pub fn register_tile_mostly_whole(rows: (u32, Option<i64>, Option<i64>), columns: (u32, Option<i64>, Option<i64>)) -> bool {
    let divides = |(factor, trips, tile): (u32, Option<i64>, Option<i64>)| match (trips, tile) {
        (Some(trips), Some(tile)) if tile < trips => tile % i64::from(factor.max(1)) == 0,
        _ => true,
    };
    let whole = |(factor, trips, tile): (u32, Option<i64>, Option<i64>)| 1.0 - cleanup_share(trips, tile, factor);
    divides(rows) && divides(columns) && 1.0 - whole(rows) * whole(columns) <= MAX_CLEANUP_SHARE
}

/// The vector registers of the host candidates are drawn for (this one, or a data point's
/// recorded host inside `Target::scoped`).
fn vector_registers() -> i64 {
    crate::schedule::tile_sizes::Target::current_vector_registers() as i64
}

/// Vectors (of the width the function is compiled for) per row of `columns` elements of
/// `bytes` bytes.
fn row_vectors(columns: u32, bytes: i64) -> i64 {
    let vector = i64::from(crate::schedule::tile_sizes::Target::current_vector_bytes().max(1));
    (columns as i64 * bytes.max(1) + vector - 1) / vector
}

/// Whether `rows` x `columns` around the reducing loop `k` (nodes, `k` innermost) have the
/// shape of a contraction's register tile: a computation held by `k` that reduces along it
/// stores to an element that moves with `rows` and by one element along `columns` in its last
/// subscript (C[i][j] over i, j, k: the jammed columns are consecutive elements, which the
/// vectorizer turns into whole vector accumulators), and reads an input that moves along
/// `columns` but not along `rows` (B[k][j]: each column vector loaded once serves every row).
/// Without that reuse each row's copy loads vectors of its own: pointwise-conv's 8x16 tile
/// over h and w (`in[c][h][w]` moves with both) ran at 12.7x the naive code where its w loop
/// vectorized with the sums in memory ran 26.5x (one harness run, 2-core EPYC Zen 4).
pub fn register_tile_shaped(program: &Program, tree: &Scheduled, rows: usize, columns: usize, k: usize) -> bool {
    let id = |n: usize| tree.nodes[n].ent.loop_id;
    let moves = |matrix: &[Vec<i64>], at: usize| matrix.iter().any(|row| row[at] != 0);
    tree.nodes[k].children.iter().any(|kid| {
        let Kid::Comp(c) = kid else { return false };
        let comp = &program.computations[*c];
        let position = |n: usize| comp.iterators.iter().position(|l| *l == id(n));
        let (Some(r), Some(j)) = (position(rows), position(columns)) else { return false };
        let store = &comp.store.matrix;
        comp.reduction_loops.contains(&id(k))
            && moves(store, r)
            && store.last().is_some_and(|last| last[j] == 1)
            && comp.loads.iter().any(|a| a.buffer != comp.store.buffer && moves(&a.matrix, j) && !moves(&a.matrix, r))
    })
}

/// The loops a register tile around the accumulating loop `n` jams, (rows, columns): the
/// columns loop is the nearest around `n` along which the element its computation stores
/// moves, past the computation's other reduction loops (conv2d's c and r around s); the rows
/// loop the nearest around that with a contraction register tile's shape
/// ([`register_tile_shaped`]), past loops without it (pointwise-conv's h between k and w:
/// `in[c][h][w]` moves along h, so rows of h would reuse nothing). Gemm's i-j-k gives the
/// grandparent and parent of k. The loops passed hold one thing each (the jams copy a
/// perfect chain), and none of the loops is a tile-space loop or unrolled already. pointwise-conv's
/// 8x8 tile over k and w (h between) ran at 30.5x the naive code where the search's best
/// ran 12.6x; conv2d's over k and w (h between, c and r inside) 56.1x against 34.2x (one
/// run each, medians of 7 and 5, 2-core EPYC Zen 4).
pub fn register_tile_loops(program: &Program, tree: &Scheduled, n: usize) -> Option<(usize, usize)> {
    let node = |n: usize| &tree.nodes[n];
    let plain = |n: usize| !node(n).ent.is_tile() && tree.tag(node(n).ent, Stage::Unroll).is_none();
    let passed = |n: usize| plain(n) && node(n).children.len() == 1;
    let comp = node(n).children.iter().find_map(|k| match k {
        Kid::Comp(c) if program.computations[*c].reduction_loops.contains(&node(n).ent.loop_id) => Some(&program.computations[*c]),
        _ => None,
    })?;
    let store_moves = |m: usize| {
        let at = comp.iterators.iter().position(|l| *l == node(m).ent.loop_id);
        at.map(|at| comp.store.matrix.iter().any(|row| row[at] != 0))
    };
    let mut columns = node(n).parent?;
    loop {
        if !plain(columns) {
            return None;
        }
        match store_moves(columns)? {
            true => break,
            false if passed(columns) => columns = node(columns).parent?,
            false => return None,
        }
    }
    let mut rows = node(columns).parent?;
    loop {
        if !plain(rows) {
            return None;
        }
        if register_tile_shaped(program, tree, rows, columns, n) {
            return Some((rows, columns));
        }
        if !passed(rows) {
            return None;
        }
        rows = node(rows).parent?;
    }
}

/// The register tiles ([`REGISTER_TILES`]) around the accumulating loop `n` as pairs of
/// unroll-and-jams (rows first), at most `limit` of them, the most accumulators first: those
/// that fit the host's registers and leave most of the loops to whole tiles
/// ([`register_tile_mostly_whole`]). None where `n` has no register tile loops.
pub fn register_tile_unrolls(program: &Program, tree: &Scheduled, n: usize, limit: usize) -> Vec<Vec<Unroll>> {
    let Some((rows, columns)) = register_tile_loops(program, tree, n) else { return Vec::new() };
    let bytes = element_bytes(program, tree, n);
    let ent = |n: usize| tree.nodes[n].ent;
    // Each loop's trip count and, for a tile's point loop, its tile size.
    let extent = |n: usize| (tree.trip_count(program, n), tree.tag(ent(n), Stage::Tile).map(i64::from));
    let ((row_trips, row_tile), (column_trips, column_tile)) = (extent(rows), extent(columns));
    let mut shapes: Vec<(u32, u32)> = wide_register_tiles()
        .into_iter()
        .chain(REGISTER_TILES)
        .filter(|(r, c)| {
            register_tile_fits(*r, *c, bytes) && register_tile_mostly_whole((*r, row_trips, row_tile), (*c, column_trips, column_tile))
        })
        .collect();
    if limit < shapes.len() {
        // Stable: of equal size, REGISTER_TILES' order.
        shapes.sort_by_key(|(r, c)| std::cmp::Reverse(*r as i64 * row_vectors(*c, bytes)));
        shapes.truncate(limit);
    }
    shapes
        .into_iter()
        .map(|(r, c)| {
            vec![
                Unroll { target: tree.name(program, rows), factor: r },
                Unroll { target: tree.name(program, columns), factor: c },
            ]
        })
        .collect()
}

/// Whether a loop around node `n` was unrolled-and-jammed (unrolled with loops inside it).
fn jammed_around(tree: &Scheduled, n: usize) -> bool {
    let mut at = tree.nodes[n].parent;
    while let Some(a) = at {
        if tree.tag(tree.nodes[a].ent, Stage::Unroll).is_some() && tree.has_loop_children(a) {
            return true;
        }
        at = tree.nodes[a].parent;
    }
    false
}

/// The widest element any computation held by node `n` stores (bytes; 4 where none).
pub fn element_bytes(program: &Program, tree: &Scheduled, n: usize) -> i64 {
    tree.nodes[n]
        .children
        .iter()
        .filter_map(|k| if let Kid::Comp(c) = k { Some(program.computations[*c].element_type.bytes()) } else { None })
        .max()
        .unwrap_or(4)
}

/// The factors whose verdicts a search state learns together ([`UNROLL_FACTORS`], those of
/// [`REGISTER_TILES`] and the Tile stage's lookahead's columns); another factor (the rows of
/// 6x16 and of [`WIDE_REGISTER_TILE`]) is checked by applying it.
const CHECKED_FACTORS: [u32; 5] = [2, 4, 8, 16, 32];

/// A factor's verdict not learned yet (autosched_tx_unroll_verdicts' -1).
const UNKNOWN: i64 = -1;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Unroll {
    pub target: LoopName,
    pub factor: u32,
}

impl TransformKind for Unroll {
    const NAME: &'static str = "unroll";
    /// Unroll.cpp finds the loops by name; the jam's dependences are those of the loop's body.
    const LOCAL: bool = true;
    const SINCE_LAYOUT: u32 = 1;
    const FEATURES: &'static [(&'static str, FieldKind)] = &[
        ("unrolled", FieldKind::Bool),
        ("unroll_factor", FieldKind::Log),
        ("tile_loop_unroll_factor", FieldKind::Log),
    ];
    const WALK_PROBABILITY: f64 = 0.4;
    const STRUCTURAL: bool = false;
    const HAS_COMBINATIONS: bool = true;

    fn parse(p: &mut Parser) -> Result<Self, ParseError> {
        let (target, factor) = p.loop_with("an unroll factor", 2, MAX_UNROLL_FACTOR as u64)?;
        Ok(Unroll { target, factor })
    }

    fn write_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_pairs(f, &[(&self.target, self.factor)])
    }

    fn loops(&self) -> Vec<&LoopName> {
        vec![&self.target]
    }

    fn rename(&self, names: &mut Names) -> Result<(), String> {
        names.copies_statements = names.copies_statements.or(Some(names.step));
        Ok(())
    }

    fn reshape(&self, tree: &mut Scheduled, step: usize) -> Result<(), TreeError> {
        let (ent, _) = tree.resolve(step, &self.target)?;
        tree.set_tag(ent, Stage::Unroll, self.factor);
        Ok(())
    }

    fn features(_program: &Program, tree: &Scheduled, at: &LoopAt, set: &mut dyn FnMut(&'static str, f64)) {
        if let Some(u) = tree.tag(at.point, Stage::Unroll) {
            set("unrolled", 1.0);
            set("unroll_factor", u as f64);
        }
        if let Some(u) = tree.tag(at.tile, Stage::Unroll) {
            set("tile_loop_unroll_factor", u as f64);
        }
    }

    /// Every innermost loop and the loop around it (unroll-and-jam), at each factor, unless
    /// unrolled already.
    fn candidates(program: &Program, tree: &Scheduled) -> Vec<Self> {
        let mut out = Vec::new();
        for n in tree.innermost() {
            let mut targets = vec![n];
            if let Some(p) = tree.nodes[n].parent {
                targets.push(p);
            }
            for t in targets {
                // Unrolled already (a register tile of the Tile stage's lookahead): its factor
                // was chosen; unrolling the copies again only multiplies them.
                if tree.tag(tree.nodes[t].ent, Stage::Unroll).is_some() {
                    continue;
                }
                // A jam inside a jammed loop (a register tile's rows or columns): it would
                // multiply the copies past the registers, and its check is quadratic in
                // them (conv2d's r loop under an 8x16 tile over k and w: 3 s).
                if t != n && jammed_around(tree, t) {
                    continue;
                }
                for factor in UNROLL_FACTORS {
                    out.push(Unroll { target: tree.name(program, t), factor });
                }
            }
        }
        out
    }

    /// Every legal innermost loop by one factor; and around each innermost loop that
    /// accumulates in registers, the register tiles of its rows and columns loops
    /// ([`register_tile_loops`], [`register_tile_unrolls`]).
    fn combinations(program: &Program, tree: &Scheduled, legal: &[Self]) -> Vec<Vec<Self>> {
        let leaves = tree.innermost();
        let mut out = Vec::new();
        for &n in &leaves {
            if tree.tag(tree.nodes[n].ent, Stage::Accumulate).is_none() {
                continue;
            }
            out.extend(register_tile_unrolls(program, tree, n, usize::MAX));
        }
        for f in UNROLL_FACTORS {
            let all: Vec<Self> = legal
                .iter()
                .filter(|t| t.factor == f && tree.node_named(program, &t.target).is_some_and(|n| leaves.contains(&n)))
                .cloned()
                .collect();
            if all.len() >= 2 {
                out.push(all);
            }
        }
        out
    }

    fn apply(&self, call: &mut Call) -> i32 {
        let name = ffi::cstring(self.target.as_str());
        let (report, ctx) = call.report();
        // SAFETY: the clone is live; the name outlives the call.
        unsafe { ffi::autosched_tx_unroll(call.func, name.as_ptr(), self.factor as i64, report, ctx) }
    }

    /// Decided without unrolling (autosched_tx_unroll's own checks, on the state's IR): a
    /// loop's preconditions and, for a jam, its dependences, analysed once per loop name and
    /// state for every factor the search proposes ([`CHECKED_FACTORS`]); a refusal's reason
    /// from the same checks of its factor alone. Copying and verifying the state for each
    /// unroll was most of what a search's Unroll stage cost (3mm: 648 checks, 0.57 s).
    fn check_in_place(&self, call: &mut Call, memo: &mut Memo) -> Option<i32> {
        let k = CHECKED_FACTORS.iter().position(|f| *f == self.factor)?;
        let name = ffi::cstring(self.target.as_str());
        let statuses = memo.entry(format!("unroll {}", self.target)).or_insert_with(|| Ok(vec![UNKNOWN; CHECKED_FACTORS.len()]));
        let statuses = statuses.as_mut().ok()?;
        if statuses[k] == UNKNOWN {
            // This factor first: its preconditions decide whether the jam is analysed.
            let order: Vec<usize> = std::iter::once(k).chain((0..CHECKED_FACTORS.len()).filter(|i| *i != k)).collect();
            let factors: Vec<i64> = order.iter().map(|i| CHECKED_FACTORS[*i] as i64).collect();
            let mut got = vec![0i32; factors.len()];
            // SAFETY: the clone is live and only read; the buffers hold factors.len() entries.
            unsafe { ffi::autosched_tx_unroll_verdicts(call.func, name.as_ptr(), factors.as_ptr(), factors.len(), got.as_mut_ptr()) };
            for (i, status) in order.into_iter().zip(got) {
                if i64::from(status) != UNKNOWN {
                    statuses[i] = i64::from(status);
                }
            }
        }
        let status = statuses[k] as i32;
        if status == ffi::AUTOSCHED_TX_OK as i32 {
            return Some(status);
        }
        let (report, ctx) = call.report();
        // SAFETY: the clone is live and only read; the name outlives the call.
        Some(unsafe { ffi::autosched_tx_unroll_check(call.func, name.as_ptr(), self.factor as i64, report, ctx) })
    }

    fn apply_checked(&self, call: &mut Call) -> i32 {
        let name = ffi::cstring(self.target.as_str());
        let (report, ctx) = call.report();
        // SAFETY: the clone is live; the name outlives the call.
        unsafe { ffi::autosched_tx_unroll_checked(call.func, name.as_ptr(), self.factor as i64, report, ctx) }
    }

    /// Upstream's `transform.loop.unroll` where it is the same utility on the same loops:
    /// innermost loops with constant bounds (no clean-up loop to clamp or guard).
    fn upstream(&self, call: &mut Call) -> Option<super::Upstream> {
        let name = ffi::cstring(self.target.as_str());
        // SAFETY: the clone is live; the name outlives the call.
        let plain = unsafe { ffi::autosched_tx_unroll_is_plain(call.func, name.as_ptr(), self.factor as i64) };
        plain.then(|| super::Upstream {
            target: self.target.to_string(),
            op: format!("transform.loop.unroll {{loop}} {{factor = {} : i64}} : !transform.any_op", self.factor),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{cleanup_share, register_tile_fits, register_tile_leaves_room, register_tile_mostly_whole};
    use crate::schedule::tile_sizes::Target;

    /// Which register tiles fit is the target's: inside a recorded host's scope its
    /// registers decide (16 without AVX-512, 32 with it), whatever this machine has.
    #[test]
    fn register_tiles_fit_the_scoped_hosts_registers() {
        let avx2 = Target::recorded(&[], 2, &["avx2".to_string()]);
        let avx512 = Target::recorded(&[], 2, &["avx2".to_string(), "avx512f".to_string()]);
        assert_eq!((avx2.vector_registers, avx512.vector_registers), (16, 32));
        // 8x32 f32: 32 accumulators of 256 bits; 6x16: 12 beside 2 column vectors and a
        // broadcast.
        assert!(!avx2.scoped(|| register_tile_fits(8, 32, 4)));
        assert!(avx512.scoped(|| register_tile_fits(8, 32, 4)));
        assert!(avx2.scoped(|| register_tile_fits(4, 32, 4) && register_tile_leaves_room(6, 16, 4)));
        assert!(!avx2.scoped(|| register_tile_leaves_room(8, 16, 4)));
        assert!(avx512.scoped(|| register_tile_leaves_room(8, 16, 4) && !register_tile_leaves_room(8, 32, 4)));
    }

    /// The vectors a function is compiled for decide too: 12x32 f32 takes 48 256-bit vectors
    /// (too many for any x86 host) but 24 of AVX-512's 512-bit ones, beside 2 column vectors
    /// and a broadcast; a host without AVX-512 gets 256-bit vectors whatever is asked.
    #[test]
    fn register_tiles_fit_the_vectors_the_function_is_compiled_for() {
        let avx2 = Target::recorded(&[], 2, &["avx2".to_string()]);
        let avx512 = Target::recorded(&[], 2, &["avx2".to_string(), "avx512f".to_string()]);
        assert_eq!(avx512.vector_bytes, 32);
        assert!(!avx512.scoped(|| register_tile_fits(12, 32, 4)));
        let wide = avx512.with_vector_width(Some(512));
        assert_eq!(wide.vector_bytes, 64);
        assert!(wide.scoped(|| register_tile_fits(12, 32, 4) && register_tile_leaves_room(12, 32, 4)));
        assert!(wide.scoped(|| !register_tile_fits(16, 64, 4)));
        assert_eq!(avx2.with_vector_width(Some(512)).vector_bytes, 32);
        assert!(!avx2.with_vector_width(Some(512)).scoped(|| register_tile_fits(12, 32, 4)));
        // 128-bit vectors: 8x16 f32 is 32 of them, more than AVX2's 16 registers.
        let narrow = avx2.with_vector_width(Some(128));
        assert_eq!(narrow.vector_bytes, 16);
        assert!(avx2.scoped(|| register_tile_fits(8, 16, 4)) && !narrow.scoped(|| register_tile_fits(8, 16, 4)));
        assert_eq!(avx512.with_vector_width(None), avx512);
    }

    /// The clean-up share counts each whole tile's remainder and the partial last tile's.
    #[test]
    fn cleanup_shares_count_every_tiles_remainder() {
        // pointwise-conv's 56-wide loop in tiles of 32: the partial tile of 24 is clean-up
        // for 32 columns, 8 of its 24 for 16, none for 8.
        assert!((cleanup_share(Some(56), Some(32), 32) - 24.0 / 56.0).abs() < 1e-12);
        assert!((cleanup_share(Some(56), Some(32), 16) - 8.0 / 56.0).abs() < 1e-12);
        assert_eq!(cleanup_share(Some(56), Some(32), 8), 0.0);
        // Untiled: the loop's own remainder; tiles of 36 over 56 rows of 6: 0 + 20 % 6.
        assert!((cleanup_share(Some(56), None, 32) - 24.0 / 56.0).abs() < 1e-12);
        assert!((cleanup_share(Some(56), Some(36), 6) - 2.0 / 56.0).abs() < 1e-12);
        // Each whole tile's own remainder: tiles of 180 over 1000 unrolled by 16 leave 4 per
        // tile and 100 % 16 of the last.
        assert!((cleanup_share(Some(1000), Some(180), 16) - (5.0 * 4.0 + 4.0) / 1000.0).abs() < 1e-12);
        // Unknown trip counts (triangular loops) are not judged.
        assert_eq!(cleanup_share(None, Some(32), 32), 0.0);
        assert!(!register_tile_mostly_whole((8, Some(56), Some(32)), (32, Some(56), Some(32))));
        assert!(register_tile_mostly_whole((8, Some(56), Some(32)), (16, Some(56), Some(32))));
        assert!(register_tile_mostly_whole((8, Some(1000), Some(128)), (32, Some(1100), Some(288))));
        // Whole tiles that the unrolls do not divide: each carries a clean-up copy.
        assert!(!register_tile_mostly_whole((8, Some(1000), Some(128)), (32, Some(1100), Some(275))));
        assert!(!register_tile_mostly_whole((8, Some(1000), Some(125)), (32, Some(1100), Some(288))));
        // A tile as wide as the loop is the loop itself: its remainder is judged by share.
        assert!(register_tile_mostly_whole((8, Some(1000), Some(1000)), (16, Some(56), Some(56))));
    }
}
