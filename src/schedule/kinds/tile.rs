//! `tile(L0:32, L0.0:64)`: tile a perfectly nested band of 1 to [`MAX_TILE_BAND`] loops
//! (outermost first), a size per loop. Each tiled loop gets a tile-space loop above the
//! band, named after it with `.t`; the tiled loop keeps its name as the intra-tile loop.
//! Tiling the tile loops again (`tile(L0.t:4, L0.0.t:2)`, sizes in tiles) makes tiles of
//! tiles, for a second cache level: `L0.t.t` above `L0.t` above `L0`.

use super::{write_pairs, Memo, Names, Stage, Transform, TransformKind};
use crate::features::layout::Kind as FieldKind;
use crate::ir::Program;
use crate::schedule::tree::{Kid, LoopAt, Node, Scheduled, TreeError};
use crate::schedule::{tile_sizes, LoopName, ParseError, Parser, MAX_TILE_BAND, MAX_TILE_LEVELS, MAX_TILE_SIZE};
use crate::transform::ffi::{self, Call};
use std::ffi::{c_char, CString};
use std::fmt;

/// The tile size classes the search proposes (and the data generator's walks draw from);
/// each also fitted to the trip counts ([`fitted_size`]).
pub const TILE_SIZES: [u32; 4] = [16, 32, 64, 128];

/// How many first-level tiles a second-level tile holds along each loop, the classes the
/// search proposes (each also fitted to the tile loop's trip count).
pub const OUTER_TILE_FACTORS: [u32; 2] = [4, 8];

/// Register tiles (rows, columns) tried at the Tile stage on a band whose innermost loop can
/// accumulate (see [`Tile::lookahead`]); the Unroll stage tries all of
/// [`super::unroll::REGISTER_TILES`] around accumulating loops. 8x16 and 4x32 fill all 16
/// AVX2 registers with 8-lane vectors, or half of AVX-512's 32 with 16 lanes; 8x32 fills
/// half of AVX-512's with 16-lane vectors (`prefer-vector-width=512`; with 8 lanes it
/// spills). On gemm-1024 (benchmarks/showcase/LADDER.md) 4x32 ran faster than 8x16 with 8
/// lanes and 8x32 fastest with 16; attention-scores' model-mode choice is an 8x16 tile.
/// Each costs a check of two unroll-and-jams (about 0.1 s on gemm), and a state the search
/// keeps extending: there are few.
/// 6x16 is 12 accumulators, which leave AVX2 room for the broadcast row and the column
/// vectors (the 16-accumulator tiles spill some each k step on AVX2): with both inputs
/// packed it ran gemm at 121-140 GFLOP/s against 4x32's 97-101 (2-core EPYC, one run
/// each without and with fp-contract). Tiles that do not fit the host's registers
/// ([`super::unroll::register_tile_fits`]: 8x32 on AVX2) are not tried.
/// A function compiled for 512-bit vectors also gets [`super::unroll::WIDE_REGISTER_TILE`],
/// 12x32, first: PolyBench gemm packed, with fp-contract, ran at 250-256 GFLOP/s as 12x32
/// against 218 as 8x32 (2-core Xeon, one run, 9 timed runs, medians; OpenBLAS 329 in an
/// earlier run).
const LOOKAHEAD_REGISTER_TILES: [(u32, u32); 4] = [(8, 16), (4, 32), (8, 32), (6, 16)];

/// Tilings per state extended into register tiles at the Tile stage, at most: the first
/// legal one of a contraction band, which is the analytic tile-size model's
/// (`tile_sizes`) where it has one (on gemm-1024, 128x256x192 ran 1.3x faster as a packed
/// 4x32 register tile than 32x32x32).
const LOOKAHEAD_TILINGS: usize = 1;

/// The function argument a register tile over `[rows, columns, k]` reads the same along
/// the band's loop `along` (0: rows, 1: columns): gemm's B[k][j] along the rows, A[i][k]
/// along the columns. Its tile, packed before `rows`, is read by every row (every column)
/// of the tile, so the copy pays for itself many times over; a column-invariant input's
/// copy also takes the loop-invariant scale the kernel multiplies it by (`alpha * A[i][k]`,
/// passes/kinds/Pack.cpp), which the register tile would otherwise compute and broadcast
/// for every row at every k step. None when no load qualifies, or when the argument is
/// also written in the nest.
fn invariant_input(program: &Program, tree: &Scheduled, band: &[usize], along: usize) -> Option<usize> {
    let [rows, _, k] = band else { return None };
    let id = |n: &usize| tree.nodes[*n].ent.loop_id;
    let comps = tree.comps_under(*rows);
    let written: Vec<usize> = comps.iter().filter_map(|&c| super::pack::argument_of(program, &program.computations[c].store)).collect();
    tree.nodes[*k].children.iter().find_map(|kid| {
        let Kid::Comp(c) = kid else { return None };
        let comp = &program.computations[*c];
        let r = comp.iterators.iter().position(|l| *l == id(&band[along]))?;
        comp.loads.iter().find_map(|a| {
            let arg = super::pack::argument_of(program, a)?;
            (a.matrix.iter().all(|row| row[r] == 0) && !written.contains(&arg)).then_some(arg)
        })
    })
}

/// The order that copies `argument`'s tile so that the band's columns loop (`band[1]`)
/// reads it contiguously, where it does not already: the dimension that moves along the
/// columns moved last (PyTorch's `W[o][i]` under a register tile over `[b, o, i]` is copied
/// as `[i][o]`). See [`super::pack::contiguous_order`].
fn column_order(program: &Program, tree: &Scheduled, band: &[usize], argument: usize) -> Option<Vec<usize>> {
    let [_, cols, k] = band else { return None };
    let id = tree.nodes[*cols].ent.loop_id;
    tree.nodes[*k].children.iter().find_map(|kid| {
        let Kid::Comp(c) = kid else { return None };
        let comp = &program.computations[*c];
        let j = comp.iterators.iter().position(|l| *l == id)?;
        let a = comp.loads.iter().find(|a| super::pack::argument_of(program, a) == Some(argument))?;
        super::pack::order_moving_last(a.matrix.len(), super::pack::moving_dimension(a, j)?)
    })
}

/// Second-level tilings proposed per stage, at most: of the first legal single tilings of
/// bands of two or three loops (the ones with reuse across a cache level's tiles).
const MAX_TWO_LEVEL: usize = 8;

/// The tile size of class `size` for a loop of `trips` iterations: `size` if it divides the
/// trip count; else the divisor of the trip count nearest to it (by ratio) within
/// [3/4, 3/2] of it, multiples of 8 first (whole vectors and register tiles); else `size`.
pub fn fitted_size(trips: i64, size: u32) -> u32 {
    let s = size as i64;
    if trips <= 0 || trips % s == 0 {
        return size;
    }
    let (lo, hi) = ((3 * s + 3) / 4, 3 * s / 2);
    (lo.max(2)..=hi.min(trips - 1))
        .filter(|d| trips % d == 0)
        .min_by(|a, b| {
            let key = |d: &i64| (d % 8 != 0, ((*d as f64) / s as f64).ln().abs());
            key(a).partial_cmp(&key(b)).unwrap_or(std::cmp::Ordering::Equal)
        })
        .map_or(size, |d| d as u32)
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Tile {
    pub band: Vec<(LoopName, u32)>,
}

impl TransformKind for Tile {
    const NAME: &'static str = "tile";
    /// Tile.cpp finds the band by name and tiles it in place (its dependences are the band's).
    const LOCAL: bool = true;
    const SINCE_LAYOUT: u32 = 1;
    const FEATURES: &'static [(&'static str, FieldKind)] =
        &[("tiled", FieldKind::Bool), ("tile_size", FieldKind::Log), ("tile_loop_depth", FieldKind::Log)];
    const WALK_PROBABILITY: f64 = 0.5;
    const STRUCTURAL: bool = false;
    const LATER_FEATURES: (u32, &'static [(&'static str, FieldKind)]) =
        (3, &[("tile2_size", FieldKind::Log), ("tile2_loop_depth", FieldKind::Log)]);
    const HAS_COMBINATIONS: bool = true;

    /// Tiling a tile loop is described by the second-level fields.
    fn layout_needed(&self) -> u32 {
        if self.band.iter().any(|(l, _)| l.as_str().ends_with(".t")) {
            Self::LATER_FEATURES.0
        } else {
            Self::SINCE_LAYOUT
        }
    }

    fn parse(p: &mut Parser) -> Result<Self, ParseError> {
        let at = p.pos;
        let band = p.list(|p| p.loop_with("a tile size", 2, MAX_TILE_SIZE as u64))?;
        if band.len() > MAX_TILE_BAND {
            return p.err(at, format!("tile takes 1 to {MAX_TILE_BAND} loops, got {}", band.len()));
        }
        Ok(Tile { band })
    }

    fn write_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pairs: Vec<(&LoopName, u32)> = self.band.iter().map(|(l, s)| (l, *s)).collect();
        write_pairs(f, &pairs)
    }

    fn loops(&self) -> Vec<&LoopName> {
        self.band.iter().map(|(l, _)| l).collect()
    }

    fn rename(&self, names: &mut Names) -> Result<(), String> {
        for (l, _) in &self.band {
            // A second tiling of the same loop would make a second loop of the same name,
            // nested in the first: a later step naming it would mean both.
            if names.live.contains(l.tile_loop().as_str()) {
                return Err(format!(
                    "{l} is tiled already (its tile loop {} exists); tile {} for another level of tiles",
                    l.tile_loop(),
                    l.tile_loop()
                ));
            }
            names.live.insert(l.tile_loop().to_string());
        }
        Ok(())
    }

    fn reshape(&self, tree: &mut Scheduled, step: usize) -> Result<(), TreeError> {
        let mut found = Vec::new();
        for (n, size) in &self.band {
            let (ent, node) = tree.resolve(step, n)?;
            if ent.tile >= MAX_TILE_LEVELS {
                return Err(TreeError { step, reason: format!("{n}: at most {MAX_TILE_LEVELS} levels of tiles are modeled") });
            }
            found.push((ent, node, *size));
        }
        let Some(&(_, top, _)) = found.first() else { return Ok(()) };
        let parent = tree.nodes[top].parent;
        let first_new = tree.nodes.len();
        for (i, (ent, _, size)) in found.iter().enumerate() {
            let tile_ent = ent.at_level(ent.tile + 1);
            let node_parent = if i == 0 { parent } else { Some(first_new + i - 1) };
            tree.nodes.push(Node { ent: tile_ent, parent: node_parent, children: Vec::new() });
            tree.at.insert(tile_ent, first_new + i);
            tree.set_tag(*ent, Stage::Tile, *size);
        }
        let last_new = tree.nodes.len() - 1;
        for i in first_new..last_new {
            tree.nodes[i].children = vec![Kid::Node(i + 1)];
        }
        tree.nodes[last_new].children = vec![Kid::Node(top)];
        tree.replace_child(parent, top, first_new);
        tree.nodes[top].parent = Some(last_new);
        Ok(())
    }

    fn features(_program: &Program, tree: &Scheduled, at: &LoopAt, set: &mut dyn FnMut(&'static str, f64)) {
        if let Some(size) = tree.tag(at.point, Stage::Tile) {
            set("tiled", 1.0);
            set("tile_size", size as f64);
        }
        if let Some(node) = tree.node_of(at.tile) {
            set("tile_loop_depth", tree.depth(node) as f64);
        }
        // The second level: its size in iterations of the original loop.
        if let (Some(outer), Some(inner)) = (tree.tag(at.tile, Stage::Tile), tree.tag(at.point, Stage::Tile)) {
            set("tile2_size", outer as f64 * inner as f64);
        }
        if let Some(node) = tree.node_of(at.tile2) {
            set("tile2_loop_depth", tree.depth(node) as f64);
        }
    }

    /// Windows of 1 to 3 loops of every chain, untiled and rectangular: at the sizes the
    /// analytic model chooses for this machine ([`tile_sizes::choose_interleaved`]; another host's
    /// inside [`tile_sizes::Target::scoped`]), and at each size class below every loop's
    /// trip count, as is and fitted to the trip counts ([`fitted_size`]).
    fn candidates(program: &Program, tree: &Scheduled) -> Vec<Self> {
        let mut out = Vec::new();
        for chain in tree.chains() {
            for len in 1..=MAX_TILE_BAND.min(chain.len()) {
                for start in 0..=chain.len() - len {
                    let window = &chain[start..start + len];
                    if !tree.rectangular(program, window) || window.iter().any(|n| tree.nodes[*n].ent.is_tile()) {
                        continue;
                    }
                    // The analytic model's sizes for the current target's caches (`tile_sizes`),
                    // for a register tile: a reduction's chains interleaved.
                    if let Some(choice) = tile_sizes::choose_interleaved(program, tree, window, &tile_sizes::Target::current()) {
                        out.push(Tile { band: window.iter().zip(&choice.sizes).map(|(n, s)| (tree.name(program, *n), *s)).collect() });
                    }
                    for size in TILE_SIZES {
                        let trips: Vec<Option<i64>> = window.iter().map(|n| tree.trip_count(program, *n)).collect();
                        if trips.iter().all(|t| t.is_some_and(|t| t > size as i64)) {
                            out.push(Tile { band: window.iter().map(|n| (tree.name(program, *n), size)).collect() });
                        }
                        // The same size class fitted to the trip counts, where a size near it
                        // divides them: whole tiles need no peeled copy of a partial last tile
                        // (which unroll-and-jam and the vectorizer make).
                        let fitted: Vec<u32> = trips.iter().map(|t| t.map_or(size, |t| fitted_size(t, size))).collect();
                        if fitted.iter().any(|f| *f != size)
                            && window.iter().zip(&fitted).all(|(n, f)| tree.trip_count(program, *n).is_some_and(|t| t > *f as i64))
                        {
                            out.push(Tile { band: window.iter().zip(&fitted).map(|(n, f)| (tree.name(program, *n), *f)).collect() });
                        }
                    }
                }
            }
        }
        // The model's sizes may equal a class's: keep the first.
        let mut seen = std::collections::HashSet::new();
        out.retain(|t| seen.insert(t.clone()));
        out
    }

    /// A single tiling of two or three loops followed by the tiling of its tile loops, by
    /// each factor class (fitted to the tile loops' trip counts): two levels of tiles.
    fn combinations(program: &Program, tree: &Scheduled, legal: &[Self]) -> Vec<Vec<Self>> {
        let mut out = Vec::new();
        for t in legal.iter().filter(|t| t.band.len() >= 2).take(MAX_TWO_LEVEL) {
            let trips: Option<Vec<i64>> = t
                .band
                .iter()
                .map(|(l, s)| {
                    let n = tree.node_named(program, l)?;
                    Some((tree.trip_count(program, n)? + *s as i64 - 1) / *s as i64)
                })
                .collect();
            let Some(trips) = trips else { continue };
            let mut seen = Vec::new();
            for factor in OUTER_TILE_FACTORS {
                let fitted: Vec<u32> = trips.iter().map(|t| fitted_size(*t, factor)).collect();
                if trips.iter().zip(&fitted).any(|(t, f)| *t <= *f as i64) || seen.contains(&fitted) {
                    continue;
                }
                let outer = Tile { band: t.band.iter().zip(&fitted).map(|((l, _), f)| (l.tile_loop(), *f)).collect() };
                seen.push(fitted);
                out.push(vec![t.clone(), outer]);
            }
        }
        out
    }

    /// A legal tiling of a band of three loops whose innermost reduces along itself (gemm's
    /// i-j-k, C[i][j] in k), with known trip counts along the two outer loops and tiles of at
    /// least 32, its outer sizes rounded up to whole register tiles, taken on to a register tile:
    /// `accumulate` of the innermost, then unroll-and-jam of the outer two
    /// ([`LOOKAHEAD_REGISTER_TILES`], rows first as the Unroll stage does). Tiled alone, or
    /// accumulating alone, such a band runs no faster than before, so the beam would drop it.
    /// Where several nests hold such a band (2mm's and 3mm's chained products), also every
    /// band at once, each by its first such tiling: one nest's register tile alone leaves
    /// the others to stages that have passed, and a lookahead per nest would not compose.
    fn lookahead(program: &Program, tree: &Scheduled, legal: &[Self]) -> Vec<Vec<Transform>> {
        register_tiles(program, tree, legal, false)
    }

    fn apply(&self, call: &mut Call) -> i32 {
        let names: Vec<CString> = self.band.iter().map(|(l, _)| ffi::cstring(l.as_str())).collect();
        let ptrs: Vec<*const c_char> = names.iter().map(|c| c.as_ptr()).collect();
        let sizes: Vec<i64> = self.band.iter().map(|(_, s)| *s as i64).collect();
        let (report, ctx) = call.report();
        // SAFETY: the clone is live; names and sizes outlive the call.
        unsafe { ffi::autosched_tx_tile(call.func, ptrs.as_ptr(), sizes.as_ptr(), ptrs.len(), report, ctx) }
    }

    /// A band's legality depends on its sizes only through which loops they tile in effect:
    /// the band's dependences and trip counts (autosched_tx_tile_band) are learned once and
    /// decide every size.
    fn check_in_place(&self, call: &mut Call, memo: &mut Memo) -> Option<i32> {
        let n = self.band.len();
        let key = format!("tile {}", self.band.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>().join(","));
        let facts = memo.entry(key).or_insert_with(|| {
            let names: Vec<CString> = self.band.iter().map(|(l, _)| ffi::cstring(l.as_str())).collect();
            let ptrs: Vec<*const c_char> = names.iter().map(|c| c.as_ptr()).collect();
            let (mut trips, mut backward, mut bands) = (vec![0i64; n], vec![0u8; n], 0usize);
            let mut probe = Call::new(call.func);
            let (report, ctx) = probe.report();
            // SAFETY: the clone is live and only read; the buffers hold n entries and outlive the call.
            let status = unsafe {
                ffi::autosched_tx_tile_band(
                    call.func,
                    ptrs.as_ptr(),
                    n,
                    trips.as_mut_ptr(),
                    backward.as_mut_ptr(),
                    &mut bands,
                    report,
                    ctx,
                )
            };
            if status != ffi::AUTOSCHED_TX_OK as i32 {
                return Err((status, probe.into_reason()));
            }
            // Several bands of these names may differ in their trip counts: no shortcut.
            if bands != 1 {
                return Ok(Vec::new());
            }
            Ok(trips.into_iter().chain(backward.into_iter().map(i64::from)).collect())
        });
        match facts {
            Err((status, why)) => {
                call.say(why);
                Some(*status)
            }
            Ok(f) if f.is_empty() => None,
            Ok(f) => {
                let (trips, backward) = f.split_at(n);
                // As Tile.cpp: the innermost loops whose tile covers their whole constant
                // trip count are not tiled in effect.
                let mut tiled = n;
                while tiled > 0 && trips[tiled - 1] >= 0 && self.band[tiled - 1].1 as i64 >= trips[tiled - 1] {
                    tiled -= 1;
                }
                match (0..tiled).find(|&i| backward[i] != 0) {
                    Some(i) => {
                        call.say(&format!(
                            "tiling would reverse a dependence: the band is not fully permutable (a dependence \
                             component along {} may be negative)",
                            self.band[i].0
                        ));
                        Some(ffi::AUTOSCHED_TX_REFUSED_DEPENDENCE as i32)
                    }
                    None => Some(ffi::AUTOSCHED_TX_OK as i32),
                }
            }
        }
    }
}

/// `t` with its first two sizes made multiples of `rows` and `cols`
/// ([`tile_sizes::whole_register_size`]).
fn register_tiling(t: &Tile, trips: [i64; 2], rows: u32, cols: u32) -> Tile {
    let mut band = t.band.clone();
    for (k, unit) in [(0, rows), (1, cols)] {
        band[k].1 = tile_sizes::whole_register_size(band[k].1, trips[k], unit);
    }
    Tile { band }
}

/// [`Tile::lookahead`]'s sequences: register tiles of the first qualifying tiling of one
/// band (each of [`LOOKAHEAD_REGISTER_TILES`], and 12x32 in 512-bit vectors), and of every
/// band at once where there are several (one register tile only, the first that
/// [`super::unroll::register_tile_leaves_room`]: each sequence costs unroll-and-jam checks
/// on every band; on 2mm with 32 registers 8x16 ran 41.9x, 4x32 29.2x, 8x32 30.4x); with
/// `all_bands`, only those of every band.
pub(crate) fn register_tiles(program: &Program, tree: &Scheduled, legal: &[Tile], all_bands: bool) -> Vec<Vec<Transform>> {
    let leaves = tree.innermost();
    // The first qualifying tiling of each band (by its innermost loop), in candidate order:
    // among tilings with whole tiles along the rows and columns, and among all (a partial
    // last tile, which the unrolls peel). A model trained before peeling existed knows only
    // the former, and model mode keeps to them (search::model_choice).
    let (mut whole, mut any): (Vec<Band>, Vec<Band>) = (Vec::new(), Vec::new());
    for t in legal.iter().filter(|t| t.band.len() == 3) {
        let nodes: Option<Vec<usize>> = t.band.iter().map(|(l, _)| tree.node_named(program, l)).collect();
        let Some(nodes) = nodes else { continue };
        let k = nodes[2];
        let has = |bands: &[Band]| bands.iter().any(|b| b.nodes[2] == k);
        if (has(&whole) && has(&any))
            || !leaves.contains(&k)
            || !super::accumulate::reduces_in(program, tree, k)
            || !super::unroll::register_tile_shaped(program, tree, nodes[0], nodes[1], k)
        {
            continue;
        }
        let (Some(rows_trips), Some(cols_trips)) = (tree.trip_count(program, nodes[0]), tree.trip_count(program, nodes[1])) else {
            continue;
        };
        if t.band.iter().any(|(_, size)| *size < 32) {
            continue;
        }
        // Also with the row-invariant input's tile packed before the outer point loop, and
        // with both inputs' tiles (the copies are of the tiled band as the Pack stage would
        // see it).
        let mut packed = Vec::new();
        let mut order = None;
        if let Some(b) = invariant_input(program, tree, &nodes, 0) {
            packed.push(b);
            packed.extend(invariant_input(program, tree, &nodes, 1).filter(|a| *a != b));
            order = column_order(program, tree, &nodes, b);
        }
        let bytes = super::unroll::element_bytes(program, tree, k);
        let band = Band { nodes: [nodes[0], nodes[1], k], tile: t, packed, order, trips: [rows_trips, cols_trips], bytes };
        let divides = rows_trips % t.band[0].1 as i64 == 0 && cols_trips % t.band[1].1 as i64 == 0;
        if divides && !has(&whole) {
            whole.push(band.clone());
        }
        if !has(&any) {
            any.push(band);
        }
    }
    // The loops' whole tiling as it is, then the sizes for the register tile (the cache tile's
    // made whole register tiles were offered beside these until 2026-12-06: without the
    // peeled rows' share, the register model had sized gemm's 8x32 tile 504 rows tall, one
    // tile in parallel; with it, model mode's gemm ran 32.7 ms against 48.1 at the cache
    // tile's 256 x 224 x 400, 3mm 45.2 against 64.5, dense 4.4 against 18.4, attention-scores
    // 1.63 against 1.40; 2-core Xeon, benchmarks/TILE-SIZES.md).
    let mut out = register_tile_sequences(program, tree, &whole, all_bands, Sizing::AsTiled);
    for seq in register_tile_sequences(program, tree, &any, all_bands, Sizing::Register) {
        if !out.contains(&seq) {
            out.push(seq);
        }
    }
    out
}

/// `b`'s tiling sized for a `rows` x `cols` register tile whose point loops nest as `order`
/// ([`register_tile_sizes`] for the current target); where that has no answer, `b`'s own
/// tiling in whole register tiles.
fn register_sized(program: &Program, tree: &Scheduled, b: &Band, rows: u32, cols: u32, order: tile_sizes::PointOrder) -> Tile {
    match register_tile_sizes(program, tree, b.nodes, &tile_sizes::Target::current(), [rows, cols], order) {
        Some(c) => Tile { band: b.tile.band.iter().zip(&c.sizes).map(|((l, _), s)| (l.clone(), *s)).collect() },
        None => register_tiling(b.tile, b.trips, rows, cols),
    }
}

/// The register tile of `unit` (rows x columns) over `band` whose point loops nest as `order`,
/// as [`tile_sizes::choose_register`] describes it.
pub fn register_kernel(program: &Program, tree: &Scheduled, band: [usize; 3], unit: [u32; 2], order: tile_sizes::PointOrder) -> tile_sizes::RegisterKernel {
    tile_sizes::RegisterKernel { unit, order, bytes: super::unroll::element_bytes(program, tree, band[2]) }
}

/// The sizes of `band` = [rows, columns, reduction] (nodes) for a register tile of `unit`
/// (rows x columns) whose point loops nest as `order`, for `target`: the analytic model's
/// ([`tile_sizes::choose_register`]) among the sizes that leave the tile mostly whole
/// ([`super::unroll::register_tile_mostly_whole`]).
pub fn register_tile_sizes(
    program: &Program,
    tree: &Scheduled,
    band: [usize; 3],
    target: &tile_sizes::Target,
    unit: [u32; 2],
    order: tile_sizes::PointOrder,
) -> Option<tile_sizes::TileChoice> {
    let trips = [tree.trip_count(program, band[0])?, tree.trip_count(program, band[1])?];
    let keep = |s: &[u32]| {
        let side = |i: usize| (unit[i], Some(trips[i]), Some(i64::from(s[i])));
        super::unroll::register_tile_mostly_whole(side(0), side(1))
    };
    tile_sizes::choose_register(program, tree, &band, target, register_kernel(program, tree, band, unit, order), keep)
}

/// A contraction band's tiling that [`register_tiles`] takes on to register tiles.
#[derive(Clone)]
struct Band<'a> {
    /// The band's rows, columns and innermost (reducing) loops' nodes.
    nodes: [usize; 3],
    tile: &'a Tile,
    /// The inputs to pack (argument positions): the row-invariant one, then the
    /// column-invariant one; packings take the first one or both.
    packed: Vec<usize>,
    /// The order of the row-invariant input's copy in which the columns read it
    /// contiguously, where its own order does not ([`column_order`]).
    order: Option<Vec<usize>>,
    /// Trip counts of the rows and columns loops.
    trips: [i64; 2],
    /// The widest element its computations store.
    bytes: i64,
}

/// How [`register_tile_sequences`] sizes a band's tiling.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sizing {
    /// The tiling as it is: the whole tilings models trained before peeling saw.
    AsTiled,
    /// Sized for the register tile and the order of its point loops ([`register_sized`]).
    Register,
}

/// The register-tile sequences of `bands` (each alone, and all at once where there are
/// several; with `all_bands`, only the latter), their tilings sized by `sizing`.
fn register_tile_sequences(program: &Program, tree: &Scheduled, bands: &[Band], all_bands: bool, sizing: Sizing) -> Vec<Vec<Transform>> {
    let mut out = Vec::new();
    let mut groups: Vec<&[Band]> = if all_bands { Vec::new() } else { bands.chunks(1).take(LOOKAHEAD_TILINGS).collect() };
    if bands.len() >= 2 {
        groups.push(bands);
    }
    for group in groups {
        // Several bands at once: one register tile, the first that leaves room for the
        // column vectors and a broadcast beside its accumulators on every band (8x16 with
        // 32 registers, 6x16 with AVX2's 16, where 8x16's accumulators spill: 2mm's bands
        // as 6x16 with both inputs packed ran 25.4 ms against 55.6 as 8x16, 2-core EPYC);
        // in 512-bit vectors also 12x32 where it leaves room (its rows may not make whole
        // tiles where the other's do).
        let roomy = |&(rows, cols): &(u32, u32)| group.iter().all(|b| super::unroll::register_tile_leaves_room(rows, cols, b.bytes));
        let wide = super::unroll::wide_register_tiles();
        let shapes: Vec<(u32, u32)> = if group.len() == 1 {
            wide.into_iter().chain(LOOKAHEAD_REGISTER_TILES).collect()
        } else {
            wide.filter(roomy).into_iter().chain(LOOKAHEAD_REGISTER_TILES.into_iter().find(roomy)).collect()
        };
        for (rows, cols) in shapes {
            if group.iter().any(|b| {
                rows > b.tile.band[0].1 || cols > b.tile.band[1].1 || !super::unroll::register_tile_fits(rows, cols, b.bytes)
            }) {
                continue;
            }
            // Otherwise each tiling's two outer sizes in whole register tiles: a size the
            // tile does not divide leaves a clean-up copy in every tile (gemm's 220-column
            // tiles of 32 ran at 0.64x the 256-column ones, 2-core EPYC); a last partial
            // tile is peeled by the unroll (passes/kinds/Unroll.cpp). Per order of the point
            // loops: rows outside the columns as tiled, or the columns outside where the
            // packings interchange them (only with both inputs packable).
            let both = group.iter().all(|b| b.packed.len() == 2);
            let tilings = |order: tile_sizes::PointOrder| -> Vec<Tile> {
                group
                    .iter()
                    .map(|b| match sizing {
                        Sizing::AsTiled => b.tile.clone(),
                        Sizing::Register => register_sized(program, tree, b, rows, cols, order),
                    })
                    .collect()
            };
            let by_order = [
                tilings(tile_sizes::PointOrder::RowsOutside),
                if both { tilings(tile_sizes::PointOrder::ColumnsOutside) } else { Vec::new() },
            ];
            // Nor a tile that leaves much of its loops to the unrolls' clean-up copies
            // ([`super::unroll::MAX_CLEANUP_SHARE`]: 32 columns over a 56-wide loop), or one
            // in every tile (a whole tiling as it is whose tiles the register tile does not
            // divide: the models ranked gemm's 275-column tiles of 32 over the 288 fit).
            let mostly_whole = |tiles: &[Tile]| {
                group.iter().zip(tiles).all(|(b, t)| {
                    let side = |i: usize, unit: u32| (unit, Some(b.trips[i]), Some(i64::from(t.band[i].1)));
                    super::unroll::register_tile_mostly_whole(side(0, rows), side(1, cols))
                })
            };
            // Unpacked, with the row-invariant input's tile packed, and with both inputs'
            // tiles packed and the columns' point loop outside the rows' (interchanged after
            // tiling): the register tile's column sliver of the row-invariant input then
            // stays in L1 while the rows sweep the tile, as BLIS's loop order keeps it
            // (gemm's 6x16 with both packed: 22.2 against 31.7 ms rows outside, fastest of
            // 11 runs, 2-core EPYC). Without a packable input the sequences are one (kept
            // once). Steps otherwise go stage by stage (tilings, copies, accumulators,
            // unrolls, the outer loop first).
            // Where the columns read the row-invariant input across its rows (a transposed
            // operand), also with its copy reordered so that they read it contiguously:
            // dense's W[o][i] copied as [i][o] ran its 8x16 tile 1.9x faster (2-core EPYC Zen 4).
            let reorder = group.iter().all(|b| b.order.is_some());
            let packings = [(0, false, false), (1, false, false)]
                .into_iter()
                .chain(both.then_some((2, true, false)))
                .chain(reorder.then_some((1, false, true)))
                .chain((both && reorder).then_some((2, true, true)));
            for (pack, columns_outside, reordered) in packings {
                let tiles = &by_order[usize::from(columns_outside)];
                if !mostly_whole(tiles) {
                    continue;
                }
                let mut seq: Vec<Transform> = tiles.iter().map(|t| Transform::Tile(t.clone())).collect();
                let names = |b: &Band| {
                    let [r, c, k] = [0, 1, 2].map(|i| b.tile.band[i].0.clone());
                    if columns_outside { [(c, cols), (r, rows), (k, 0)] } else { [(r, rows), (c, cols), (k, 0)] }
                };
                if columns_outside {
                    seq.extend(group.iter().map(|b| Transform::Interchange(super::Interchange { order: names(b).map(|n| n.0).to_vec() })));
                }
                for b in group {
                    let target = names(b)[0].0.clone();
                    seq.extend(b.packed.iter().take(pack).enumerate().map(|(i, &argument)| {
                        let order = if reordered && i == 0 { b.order.clone().unwrap_or_default() } else { Vec::new() };
                        Transform::Pack(super::Pack { target: target.clone(), argument, order })
                    }));
                }
                for b in group {
                    seq.push(Transform::Accumulate(super::Accumulate { target: b.tile.band[2].0.clone() }));
                }
                for b in group {
                    let [outer, inner, _] = names(b);
                    seq.push(Transform::Unroll(super::Unroll { target: outer.0, factor: outer.1 }));
                    seq.push(Transform::Unroll(super::Unroll { target: inner.0, factor: inner.1 }));
                }
                if !out.contains(&seq) {
                    out.push(seq);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fitted_sizes_divide_the_trip_count_near_the_class() {
        assert_eq!(fitted_size(1024, 64), 64);
        // 1000 = 8 x 125: near 64, 50 (no multiple of 8 in [48, 96] divides 1000: 40 is
        // outside, so the nearest divisor by ratio).
        assert_eq!(fitted_size(1000, 64), 50);
        assert_eq!(fitted_size(1000, 32), 40);
        assert_eq!(fitted_size(1200, 64), 80);
        assert_eq!(fitted_size(1100, 128), 110);
        // A prime: nothing near divides it.
        assert_eq!(fitted_size(997, 32), 32);
        for (t, s) in [(1000, 16), (1100, 64), (240, 128), (200, 32)] {
            let f = fitted_size(t, s);
            assert!(t % f as i64 == 0 || f == s, "{t} {s} -> {f}");
            assert!((3 * s + 3) / 4 <= f && f <= 3 * s / 2, "{t} {s} -> {f}");
        }
    }
}
