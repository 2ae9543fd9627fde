//! The analytic tile-size model: tile sizes for a band from the references in the tile and
//! the cache budget, instead of a fixed list of size classes.
//!
//! As in Yuki et al. (CGO 2010, `../shared/seeds/tile-size-selection-models.txt` §3.1), what
//! decides the sizes is how each reference of the tiled statements walks memory: a reference
//! streams along its contiguous dimension (the prefetcher fetches it), or is invariant in a
//! loop (reused from cache across it), or strides across rows (needs its lines kept). Their
//! model learns the mapping from counts of these classes to a cubic tile size; this one
//! computes it: for each size vector of a grid it counts the cache lines one tile touches
//! (per buffer, the box its subscripts span over the tile, in lines along the contiguous
//! dimension), keeps the vectors whose lines fit the budget (half of one core's share of
//! the second-level cache: the rest holds the streams and what conflicts evict) and crowd no
//! slot of a page beyond its share of it ([`PAGE_SLOTS`]), and picks
//! the one of fewest cycles per iteration: the lines it loads (each tile's lines are loaded
//! once from the next level) plus, where a reduction runs along a computation's innermost
//! loop and that loop is the band's, what the tile's length does to it (a dependence chain per
//! entry, which the out-of-order window overlaps with the next only when it is short, and each
//! entry's overhead), preferring sizes that divide the trip
//! counts and, on the outermost loop of the band (the one the search runs in parallel), tile
//! counts that share evenly among the cores. The search is offered the sizes without the
//! chains ([`choose_interleaved`]): for the register tile that runs a reduction's chains at once.

use super::kinds::fitted_size;
use super::tree::Scheduled;
use crate::ir::{CompId, Program};
use crate::machine::Cache;
use std::collections::HashMap;

/// Bytes per cache line (x86).
pub const LINE_BYTES: i64 = 64;

/// Cache lines in a 4 KiB page. The L2 and larger caches are indexed by physical address: a
/// line's set is fixed by its offset in its page (its slot) and by the page frame, which the
/// kernel picks at random (4 KiB pages: what a heap buffer gets unless the program asks for
/// huge pages). So each slot has its 64th of the cache, wherever the buffers lie, and lines
/// that crowd one slot (a column of rows a multiple of 4 KiB apart: dense's `W[o][i]` along
/// `o`, rows of 8 KiB) evict each other long before the tile's lines fill the cache.
const PAGE_SLOTS: usize = 64;

/// How much more a tiling with a partial tile is taken to cost.
const PARTIAL_TILE_PENALTY: f64 = 1.1;

/// Sizes tried per loop (each also fitted to the trip count).
const GRID: [u32; 13] = [4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384];

/// What the model decided for a band: sizes (outermost first), the bytes of lines one tile
/// touches, the budget it had to fit, and the lines loaded per iteration.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TileChoice {
    pub sizes: Vec<u32>,
    pub footprint_bytes: u64,
    pub budget_bytes: u64,
    pub lines_per_iteration: f64,
}

/// The budget for a first-level tile: half of one core's share of the L2 (or of the
/// largest cache there is, where no L2 is known); 256 KiB where nothing is known.
pub fn budget(caches: &[Cache]) -> u64 {
    let share = |c: &Cache| c.bytes / c.shared_by.max(1) as u64;
    caches.iter().find(|c| c.level == 2).or(caches.last()).map_or(256 << 10, |c| share(c) / 2)
}

/// What the sizes are chosen for: the bytes one tile may touch and the cores its outermost
/// loop is shared among.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Target {
    pub budget_bytes: u64,
    pub cores: usize,
    /// Vector registers (16 or 32): which register tiles fit (`kinds::unroll`).
    pub vector_registers: u32,
    /// One core's share of the first-level data cache: what a register tile's panels must
    /// fit ([`choose_register`]).
    pub l1_bytes: u64,
    /// Bytes of the vectors LLVM vectorizes the function for: 32 (its default on x86,
    /// AVX-512 included), else what the function's `prefer-vector-width` asks and the host
    /// has ([`Target::with_vector_width`]). Which register tiles fit its registers.
    pub vector_bytes: u32,
}

/// LLVM's vector width on x86 unless a function asks for another (256 bits, AVX-512 too).
pub const DEFAULT_VECTOR_BYTES: u32 = 32;

/// One core's share of the first-level data cache; 32 KiB where sysfs does not say.
pub fn l1_bytes(caches: &[Cache]) -> u64 {
    caches.iter().find(|c| c.level == 1).map_or(32 << 10, |c| c.bytes / c.shared_by.max(1) as u64)
}

impl Target {
    /// This machine: [`budget`] of its caches, all its cores.
    pub fn machine() -> Target {
        Target {
            budget_bytes: budget(crate::machine::caches()),
            cores: crate::machine::cores(),
            vector_registers: crate::machine::vector_registers(),
            l1_bytes: l1_bytes(crate::machine::caches()),
            vector_bytes: DEFAULT_VECTOR_BYTES,
        }
    }

    /// The host a data point records (its `machine.caches`, `cores` and `isa`), to draw
    /// again the candidates it was drawn from on another host.
    pub fn recorded(caches: &[Cache], cores: usize, isa: &[String]) -> Target {
        Target {
            budget_bytes: budget(caches),
            cores: cores.max(1),
            vector_registers: crate::machine::vector_registers_of(isa),
            l1_bytes: l1_bytes(caches),
            vector_bytes: DEFAULT_VECTOR_BYTES,
        }
    }

    /// What tiling candidates are sized for on this thread: this machine, unless inside
    /// [`Target::scoped`].
    pub fn current() -> Target {
        SCOPED.with(|t| t.get()).unwrap_or_else(Target::machine)
    }

    /// [`Target::current`]'s vector registers, without building the machine's target (the
    /// register checks run for every candidate; the machine's cores are not cached).
    pub fn current_vector_registers() -> u32 {
        SCOPED.with(|t| t.get()).map_or_else(crate::machine::vector_registers, |t| t.vector_registers)
    }

    /// [`Target::current`]'s vector width in bytes (see [`Target::current_vector_registers`]).
    pub fn current_vector_bytes() -> u32 {
        SCOPED.with(|t| t.get()).map_or(DEFAULT_VECTOR_BYTES, |t| t.vector_bytes)
    }

    /// `self` for a function compiled with `prefer-vector-width=bits` (None: LLVM's default):
    /// the vectors asked for, as far as the host has them (512 bits with AVX-512's 32
    /// registers, else 256).
    pub fn with_vector_width(self, bits: Option<u32>) -> Target {
        let widest = if self.vector_registers >= 32 { 64 } else { 32 };
        Target { vector_bytes: bits.map_or(DEFAULT_VECTOR_BYTES, |b| (b / 8).clamp(16, widest)), ..self }
    }

    /// Runs `f` with candidates sized for `self` on this thread (a scope, not a parameter:
    /// the candidates of every kind take the program and tree only, and this one target is
    /// the exception that regenerating another host's data needs).
    pub fn scoped<R>(self, f: impl FnOnce() -> R) -> R {
        struct Restore(Option<Target>);
        impl Drop for Restore {
            fn drop(&mut self) {
                SCOPED.with(|t| t.set(self.0));
            }
        }
        let _restore = Restore(SCOPED.with(|t| t.replace(Some(self))));
        f()
    }
}

thread_local! {
    static SCOPED: std::cell::Cell<Option<Target>> = const { std::cell::Cell::new(None) };
}

/// How much longer than an even share the busiest core works when the `trips` iterations
/// of a loop, in tiles of `size`, are split among `cores` in contiguous blocks of tiles (as
/// OpenMP's static schedule does): 1.0 when they share evenly; 64 iterations in tiles of
/// 48 on two cores take 1.5 (one core runs 48, the other 16).
pub fn imbalance(trips: i64, size: u32, cores: usize) -> f64 {
    let (size, cores) = (size.max(1) as i64, cores.max(1) as i64);
    let tiles = (trips + size - 1) / size;
    let busiest = (((tiles + cores - 1) / cores) * size).min(trips);
    busiest as f64 * cores as f64 / trips.max(1) as f64
}

/// [`imbalance`] for a loop whose partial last tile is peeled off the parallel loop and runs
/// after it on one core, as unroll-and-jam peels a register tile's rows: the busiest core runs
/// its share of the whole tiles, then the remainder. gemm's 8x32 register tile over 1000 rows
/// ran 33.4 ms in tiles of 120 (8 whole tiles in parallel, 40 rows after: 1.04), 49.1 in tiles
/// of 256 (3 whole, 232 after: 1.49) and 63.3 in one tile of 504 (one core ran all 1000 rows:
/// 2.0) (2-core Xeon, one run, 7 timed runs).
pub fn imbalance_peeled(trips: i64, size: u32, cores: usize) -> f64 {
    let (size, cores) = (size.max(1) as i64, cores.max(1) as i64);
    let whole = trips / size;
    let busiest = ((whole + cores - 1) / cores) * size + trips % size;
    busiest as f64 * cores as f64 / trips.max(1) as f64
}

/// The model's sizes for tiling `band` (nodes of a perfectly nested chain of point loops,
/// outermost first, with constant trip counts) for `target`. None where a loop's trip count
/// is unknown or too small to tile, or a computation under the band cannot be described.
pub fn choose(program: &Program, tree: &Scheduled, band: &[usize], target: &Target) -> Option<TileChoice> {
    choose_with(&BandModel::new(program, tree, band)?, target, true)
}

/// The sizes the lines alone decide: for a register tile (unroll-and-jam of the loops
/// around a reduction, after `accumulate`), which runs many of its chains at once and wants
/// the longer tiles that load fewer lines. What the search is offered: with [`choose`]'s
/// sizes offered too, model mode kept every decision on the benchmark kernels but atax's,
/// which it made worse (benchmarks/TILE-SIZES.md).
pub fn choose_interleaved(program: &Program, tree: &Scheduled, band: &[usize], target: &Target) -> Option<TileChoice> {
    choose_with(&BandModel::new(program, tree, band)?, target, false)
}

/// How a register tile's point loops are nested inside its tile: which of the rows and
/// columns loops sweeps the other's block (the order the Tile stage's lookahead makes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointOrder {
    /// Rows outside the columns (the loops as tiled): each row sliver of `unit` rows reads
    /// the whole k x columns block of the row-invariant input.
    RowsOutside,
    /// Columns outside the rows (interchanged after tiling, BLIS's order): each column
    /// sliver reads the whole rows x k block of the column-invariant input.
    ColumnsOutside,
}

/// The share of the L1 for the block one sliver of the outer point loop sweeps, the sliver
/// and the accumulators' rows of the output: one and a half. Three quarters ruled out gemm's
/// fastest packed 6x16 tile (54 x 288 x 120: 37.6 KB of a 48 KiB L1) on the Xeon sweeps; all of
/// it held the k tiles of the Zen 4 sweep (32 KiB L1) too short: 0.85-0.98 of each register
/// grid's optimum, one of four within 5%. Scored on the recorded grids (benchmarks/TILE-SIZES.md),
/// 1.5 puts three of four within 5% on both hosts (the L2 streams the rest of a sliver's block
/// ahead of use); twice the L1 lost dense's register grid on both (its W copy of 128 x 128 floats
/// ran 2.4x slower than of 64 x 128).
pub const L1_SHARE: f64 = 1.5;

/// Cycles of entering a register tile's reduction loop, beside its accumulators' loads and
/// stores (bounds, the exit branch, the pointer updates of the unrolled body), as far as the
/// out-of-order core does not overlap them with the previous entry's multiply-adds.
const KERNEL_ENTRY_CYCLES: f64 = 2.5;

/// Cycles per accumulator vector and entry of the reduction loop: a load and a store (two
/// loads and one store issue per cycle), mostly overlapped like the entry. The weight of
/// this and [`KERNEL_ENTRY_CYCLES`] against the lines barely matters: a quarter to twice
/// these picked the same sizes on the swept grids (benchmarks/TILE-SIZES.md).
const ACCUMULATOR_CYCLES: f64 = 0.5;

/// The sizes for a register tile of `unit` (rows x columns, the unroll-and-jam factors) over
/// `band` = [rows, columns, reduction] (the point loops nested as `order`), each of the rows and
/// columns a whole number of register tiles, every size at least 32 (the lookahead's floor; the
/// rows also at the sizes that share them evenly among the cores), as
/// BLIS sizes its blocks (Low et al., "Analytical modeling is enough for high-performance BLIS",
/// TOMS 2016): the block the outer point loop's slivers sweep (the column-invariant input's rows
/// x k with the columns outside, the row-invariant one's k x columns with the rows outside) must
/// fit its share of the L1 with one sliver ([`L1_SHARE`]), the whole tile's lines in the L2 budget; among
/// those, the fewest cycles per iteration: the lines the tile loads (the output's once for all
/// the k tiles of its rows and columns), and per entry of the reduction loop its accumulators'
/// loads and stores and [`KERNEL_ENTRY_CYCLES`] (a short k tile pays them often), times the
/// costs of a partial tile and of uneven shares of the parallel rows (whose partial tile the
/// jam of the rows peels off the parallel loop: [`imbalance_peeled`]).
/// `keep` rules out sizes the caller would not take (a register tile mostly in clean-up copies).
/// None where no size fits or the band cannot be described.
///
/// Why not [`choose_interleaved`]'s sizes: those fill half of the L2 with the tile and share the
/// rows as if their partial tile ran in parallel. gemm's packed 6x16 tile ran 27-28 ms with 54
/// rows and 35-38 ms with 258 (a 2 MiB L2's choice: three whole tiles in parallel, then 226 rows
/// on one core), whatever the k tile (2-core Xeon, benchmarks/TILE-SIZES.md).
pub fn choose_register(
    program: &Program,
    tree: &Scheduled,
    band: &[usize],
    target: &Target,
    kernel: RegisterKernel,
    keep: impl Fn(&[u32]) -> bool,
) -> Option<TileChoice> {
    let model = RegisterModel::new(program, tree, band, kernel, target)?;
    let trips = &model.band.trips;
    let grid = |k: usize| -> Vec<u32> {
        let t = trips[k];
        let mut g: Vec<u32> = GRID
            .iter()
            .flat_map(|s| [*s, fitted_size(t, *s)])
            .map(|s| if k < 2 { whole_register_size(s, t, kernel.unit[k]) } else { s })
            .filter(|s| *s >= 32 && (*s as i64) < t)
            .collect();
        // The rows are the parallel loop, and the jam peels their partial last tile off it
        // ([`imbalance_peeled`]): also the largest whole register tiles that give every core
        // one or two tiles, below 32 where the unit divides no size near it (dense's 64 rows
        // as 6-row tiles: 36 and 48 leave one core 64 rows, 30 leaves it 34).
        if k == 0 {
            let unit = i64::from(kernel.unit[0]);
            for share in [target.cores as i64, 2 * target.cores as i64] {
                let size = t / share.max(1) / unit * unit;
                if size >= unit.max(8) && size < t {
                    g.push(size as u32);
                }
            }
        }
        g.sort();
        g.dedup();
        g
    };
    let grids = [grid(0), grid(1), grid(2)];
    let mut best: Option<(f64, [u32; 3], u64)> = None;
    for &rows in &grids[0] {
        for &cols in &grids[1] {
            for &k in &grids[2] {
                let sizes = [rows, cols, k];
                if !keep(&sizes) {
                    continue;
                }
                let Some(cost) = model.cost(&sizes, target) else { continue };
                let iterations = rows as f64 * cols as f64 * k as f64;
                // Ties (within 0.1%) go to the larger tile, then to the longer k and columns.
                let better = match &best {
                    None => true,
                    Some((c, s, _)) => {
                        cost.cycles < c * 0.999
                            || (cost.cycles <= c * 1.001
                                && (iterations, [k, cols, rows]) > (s.iter().map(|x| *x as f64).product(), [s[2], s[1], s[0]]))
                    }
                };
                if better {
                    best = Some((cost.cycles, sizes, cost.bytes));
                }
            }
        }
    }
    let (_, sizes, footprint_bytes) = best?;
    let lines = model.band.footprint.lines(&sizes);
    Some(TileChoice {
        footprint_bytes,
        budget_bytes: target.budget_bytes,
        lines_per_iteration: lines / sizes.iter().map(|s| *s as f64).product::<f64>(),
        sizes: sizes.to_vec(),
    })
}

/// What [`choose_register`] charges a register tile's band at `sizes` (rows, columns, k): None
/// where the tile does not fit the L2 budget or its swept block its share of the L1. For scoring the model
/// against measurements (`autosched tile-sizes --register --sizes`).
pub fn register_cost(program: &Program, tree: &Scheduled, band: &[usize], target: &Target, kernel: RegisterKernel, sizes: &[u32]) -> Option<f64> {
    let model = RegisterModel::new(program, tree, band, kernel, target)?;
    let sizes: [u32; 3] = sizes.try_into().ok()?;
    model.cost(&sizes, target).map(|c| c.cycles)
}

/// A register tile as [`choose_register`] sizes it: rows x columns (the unroll-and-jam
/// factors), the order of its point loops, and the widest element its computations store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegisterKernel {
    pub unit: [u32; 2],
    pub order: PointOrder,
    pub bytes: i64,
}

/// A register tile's band prepared for costing sizes.
struct RegisterModel {
    band: BandModel,
    kernel: RegisterKernel,
    /// Accumulator vectors of the register tile.
    accumulators: f64,
    /// Elements per accumulator vector.
    lanes: f64,
    /// Cycles per entry of the reduction loop to bring the accumulators' lines where the
    /// prefetcher does not.
    walked: f64,
}

impl RegisterModel {
    fn new(program: &Program, tree: &Scheduled, band: &[usize], kernel: RegisterKernel, target: &Target) -> Option<RegisterModel> {
        if band.len() != 3 || kernel.unit.iter().any(|u| *u == 0) {
            return None;
        }
        let bytes = kernel.bytes.max(1);
        let vector = i64::from(target.vector_bytes.max(1));
        let [rows, cols] = kernel.unit.map(i64::from);
        // With the columns outside, consecutive entries walk the output down its rows, a row
        // apart: each entry's accumulator lines come from the L2 unprefetched (with the rows
        // outside they walk along a row, which the prefetcher follows). gemm's packed 6x16
        // tile ran 4-6% slower at a k tile of 40 than of 120 with the columns outside (54 x 288
        // and 126 x 288, 2-core Xeon); with the rows outside, 2mm's and dense's fastest k tiles
        // were 25 and 32.
        let walked = match kernel.order {
            PointOrder::ColumnsOutside => LINE_CYCLES * (rows * ((cols * bytes).div_euclid(LINE_BYTES)).max(1)) as f64,
            PointOrder::RowsOutside => 0.0,
        };
        Some(RegisterModel {
            band: BandModel::new(program, tree, band)?,
            kernel,
            accumulators: (rows * ((cols * bytes + vector - 1) / vector)) as f64,
            lanes: (vector / bytes).max(1) as f64,
            walked,
        })
    }

    fn cost(&self, sizes: &[u32; 3], target: &Target) -> Option<Cost> {
        let [rows, cols, k] = *sizes;
        let unit = self.kernel.unit;
        let footprint = &self.band.footprint;
        let trips = &self.band.trips;
        let lines = footprint.lines(sizes);
        let bytes = (lines * LINE_BYTES as f64) as u64;
        if bytes > target.budget_bytes {
            return None;
        }
        let swept = match self.kernel.order {
            PointOrder::RowsOutside => [unit[0], cols, k],
            PointOrder::ColumnsOutside => [rows, unit[1], k],
        };
        if footprint.lines(&swept) * LINE_BYTES as f64 > target.l1_bytes as f64 * L1_SHARE {
            return None;
        }
        let iterations = rows as f64 * cols as f64 * k as f64;
        // Two FMA pipes; the accumulators loaded and stored once per entry of k.
        let compute = 1.0 / (2.0 * self.lanes);
        let entry = (ACCUMULATOR_CYCLES * self.accumulators + KERNEL_ENTRY_CYCLES + self.walked)
            / (unit[0] as f64 * unit[1] as f64 * k as f64);
        // The output's box does not move along k: the k tiles of one rows x columns tile (the
        // innermost tile loop) find it in the L2, loaded once for them all.
        let (moving, fixed) = footprint.lines_along(sizes, 2);
        let k_tiles = (trips[2] as f64 / k as f64).ceil().max(1.0);
        let loaded = moving + fixed / k_tiles;
        let partial = sizes.iter().zip(trips).any(|(s, t)| t % *s as i64 != 0);
        let cycles = (compute + LINE_CYCLES * loaded / iterations + entry)
            * if partial { PARTIAL_TILE_PENALTY } else { 1.0 }
            * imbalance_peeled(trips[0], rows, target.cores);
        Some(Cost { cycles, bytes })
    }
}

/// `size` made a multiple of `unit`: kept where it is one, else the multiple nearest by ratio
/// within [3/4, 3/2] of `size` that divides the loop's `trips` (whole tiles: nothing to peel),
/// else `size` rounded up (its partial last tile peeled).
pub fn whole_register_size(size: u32, trips: i64, unit: u32) -> u32 {
    let unit = unit.max(1);
    if size % unit == 0 {
        return size;
    }
    let (lo, hi) = ((3 * size).div_ceil(4), 3 * size / 2);
    (lo.div_ceil(unit)..=hi / unit)
        .map(|m| m * unit)
        .filter(|d| *d > 0 && trips % *d as i64 == 0)
        .min_by(|a, b| {
            let r = |d: &u32| (*d as f64 / size as f64).ln().abs();
            r(a).total_cmp(&r(b))
        })
        .unwrap_or(size.div_ceil(unit) * unit)
}

fn choose_with(model: &BandModel, target: &Target, chains: bool) -> Option<TileChoice> {
    // The grid and each of its sizes fitted to the trip count (a divisor near it).
    let grids: Vec<Vec<u32>> = model
        .trips
        .iter()
        .map(|t| {
            let mut g: Vec<u32> = GRID.iter().flat_map(|s| [*s, fitted_size(*t, *s)]).filter(|s| (*s as i64) < *t).collect();
            g.sort();
            g.dedup();
            g
        })
        .collect();
    if grids.iter().any(|g| g.is_empty()) {
        return None;
    }
    let mut best: Option<(f64, Vec<u32>, u64)> = None;
    let mut sizes = vec![0u32; model.trips.len()];
    let total: usize = grids.iter().map(|g| g.len()).product();
    for mut index in 0..total {
        for (k, g) in grids.iter().enumerate().rev() {
            sizes[k] = g[index % g.len()];
            index /= g.len();
        }
        let Some(cost) = model.cost(&sizes, target, chains) else { continue };
        let iterations: f64 = sizes.iter().map(|s| *s as f64).product();
        // Ties (within 0.1%) go to the larger tile, then to the larger inner sizes.
        let better = match &best {
            None => true,
            Some((c, s, _)) => {
                cost.cycles < c * 0.999
                    || (cost.cycles <= c * 1.001
                        && (iterations, sizes.iter().rev().collect::<Vec<_>>()) > (s.iter().map(|x| *x as f64).product(), s.iter().rev().collect()))
            }
        };
        // Checked last: counting the slots walks every row of the tile's boxes.
        if better && !model.footprint.crowds(&sizes, target.budget_bytes) {
            best = Some((cost.cycles, sizes.clone(), cost.bytes));
        }
    }
    let (_, sizes, bytes) = best?;
    let lines = model.footprint.lines(&sizes);
    Some(TileChoice {
        footprint_bytes: bytes,
        budget_bytes: target.budget_bytes,
        lines_per_iteration: lines / sizes.iter().map(|s| *s as f64).product::<f64>(),
        sizes,
    })
}

/// What the model charges a tiling of the band at `sizes` (outermost first): None where its
/// lines do not fit the target's budget. For evaluating the model against measurements
/// (`autosched tile-sizes --sizes`); [`choose`] takes the cheapest.
pub fn cost(program: &Program, tree: &Scheduled, band: &[usize], target: &Target, sizes: &[u32]) -> Option<f64> {
    let model = BandModel::new(program, tree, band)?;
    (sizes.len() == band.len()).then_some(())?;
    let cost = model.cost(sizes, target, true)?;
    (!model.footprint.crowds(sizes, target.budget_bytes)).then_some(cost.cycles)
}

/// Cycles to bring one line from beyond the L2 into it, per core (about 16 bytes per cycle
/// from the L3 or memory).
const LINE_CYCLES: f64 = 4.0;

/// Cycles of entering and leaving the innermost loop once (its bounds, the exit branch's
/// misprediction, the statements of the loop around it), per entry.
const ENTRY_CYCLES: f64 = 10.0;

/// Latency of the floating-point add (or store-to-load forwarding of an accumulator in
/// memory) that links one iteration of a reduction to the next: 3 to 5 cycles on x86 cores
/// since 2013.
const CHAIN_LATENCY: f64 = 4.0;

/// Iterations of a scalar reduction's body the out-of-order window holds: a reorder buffer
/// of 224 micro-ops (the smallest of the x86 cores LLVM schedules for since Skylake and Zen
/// 2; later cores hold 256-512) at about four micro-ops per iteration.
const WINDOW_ITERATIONS: f64 = 56.0;

struct Cost {
    cycles: f64,
    bytes: u64,
}

/// A band prepared for costing size vectors: its trip counts, the boxes one tile touches,
/// and the innermost loop of each computation under it where that loop is one of the band's.
struct BandModel {
    trips: Vec<i64>,
    footprint: Footprint,
    /// Per computation whose innermost loop is band position k: (k, whether the loop carries
    /// a reduction: the computation's store does not move along it; LLVM vectorizes a
    /// floating-point reduction only under reassociation, which the pass does not allow).
    innermost: Vec<(usize, bool)>,
}

impl BandModel {
    fn new(program: &Program, tree: &Scheduled, band: &[usize]) -> Option<BandModel> {
        let trips: Vec<i64> = band.iter().map(|n| tree.trip_count(program, *n)).collect::<Option<_>>()?;
        let innermost_node = *band.last()?;
        let comps = tree.comps_under(innermost_node);
        if comps.is_empty() {
            return None;
        }
        // Per computation, where each of its loops is relative to the band: a band position, a
        // loop below the band (runs fully in a tile), or above it (fixed in a tile).
        let mut roles: Vec<(CompId, Vec<Role>)> = Vec::new();
        let mut innermost = Vec::new();
        for &c in &comps {
            let comp = &program.computations[c];
            let enclosing = tree.enclosing(c);
            let holder = enclosing.first().and_then(|e| tree.node_of(*e));
            let mut r = Vec::new();
            for (col, &orig) in comp.iterators.iter().enumerate() {
                let live = tree.live(orig);
                let node = enclosing.iter().find(|e| e.loop_id == live && !e.is_tile()).and_then(|e| tree.node_of(*e))?;
                let role = match band.iter().position(|b| *b == node) {
                    Some(k) => Role::Band(k),
                    None if tree.inside(node, innermost_node) => Role::Full(program.loops[orig].trip_count.unwrap_or(1).max(1)),
                    None => Role::Fixed,
                };
                if let (Role::Band(k), Some(true)) = (role, holder.map(|h| h == node)) {
                    let carried = comp.store.matrix.iter().all(|row| row.get(col).copied().unwrap_or(0) == 0);
                    innermost.push((k, carried));
                }
                r.push(role);
            }
            roles.push((c, r));
        }
        let footprint = Footprint::new(program, &roles, band.len());
        Some(BandModel { trips, footprint, innermost })
    }

    /// Cycles per iteration of the band: the lines its tiles bring into the L2, the cycles of
    /// the computations' innermost loops at the tile's trip count, times the costs of a
    /// partial tile and of tiles shared unevenly among the cores.
    /// `chains`: whether a reduction along an innermost loop is charged as one chain per entry.
    fn cost(&self, sizes: &[u32], target: &Target, chains: bool) -> Option<Cost> {
        let lines = self.footprint.lines(sizes);
        let bytes = (lines * LINE_BYTES as f64) as u64;
        if bytes > target.budget_bytes {
            return None;
        }
        let iterations: f64 = sizes.iter().map(|s| *s as f64).product();
        // A reduction along a computation's innermost loop, when that loop is a tile's, is one
        // dependence chain per entry: the out-of-order window overlaps it with the next
        // entry's only when it is short (a long one runs at the add's latency), and each entry
        // costs its overhead. What else the loops do costs the same at any size.
        let inner: f64 = self
            .innermost
            .iter()
            .filter(|(_, carried)| *carried && chains)
            .map(|&(k, _)| {
                let t = sizes[k] as f64;
                CHAIN_LATENCY / (1.0 + WINDOW_ITERATIONS / t) + ENTRY_CYCLES / t
            })
            .sum();
        // A size that does not divide its trip count leaves a partial tile, which unroll-and-
        // jam and the vectorizer peel into a copy of the nest that runs short (before
        // 2026-12-05 they refused it): whole tiles are preferred unless partial ones cost a
        // tenth less.
        let partial = sizes.iter().zip(&self.trips).any(|(s, t)| t % *s as i64 != 0);
        // The search runs the band's outermost tile loop in parallel (where a loop above it
        // runs in parallel instead, this only rules out sizes that leave few tiles there).
        let balance = imbalance(self.trips[0], sizes[0], target.cores);
        let cycles = (LINE_CYCLES * lines / iterations + inner) * if partial { PARTIAL_TILE_PENALTY } else { 1.0 } * balance;
        Some(Cost { cycles, bytes })
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    Band(usize),
    Full(i64),
    Fixed,
}

/// The boxes one tile touches, prepared once per band: per buffer and linear part of the
/// subscripts (references that differ by a constant, a stencil's neighbours, share their
/// lines; the first such reference gives the box its span), per dimension the span's part
/// that does not depend on the sizes, its weight per band position, and the constant offsets
/// the references add.
struct Footprint {
    boxes: Vec<TileBox>,
}

struct TileBox {
    /// Elements per cache line of the buffer, bytes per element, and its shape.
    per_line: f64,
    elem_bytes: i64,
    shape: Vec<i64>,
    /// Per dimension: (span at sizes of 1, weight per band position, lowest and highest offset).
    dims: Vec<(f64, Vec<f64>, i64, i64)>,
}

impl Footprint {
    fn new(program: &Program, roles: &[(CompId, Vec<Role>)], band: usize) -> Footprint {
        let mut at: HashMap<(usize, Vec<Vec<i64>>), usize> = HashMap::new();
        let mut boxes: Vec<TileBox> = Vec::new();
        for (c, r) in roles {
            let comp = &program.computations[*c];
            for a in std::iter::once(&comp.store).chain(&comp.loads) {
                let cols = comp.iterators.len();
                let linear: Vec<Vec<i64>> = a.matrix.iter().map(|row| row[..cols.min(row.len())].to_vec()).collect();
                let offsets = a.matrix.iter().map(|row| row.get(cols).copied().unwrap_or(0));
                match at.get(&(a.buffer, linear.clone())) {
                    Some(&i) => {
                        for (have, offset) in boxes[i].dims.iter_mut().zip(offsets) {
                            have.2 = have.2.min(offset);
                            have.3 = have.3.max(offset);
                        }
                    }
                    None => {
                        // Span of a row: 1 + Σ |m| (range - 1), the range of a band loop being
                        // its size, of a loop below the band its trip count, of one above 1.
                        let dims = a
                            .matrix
                            .iter()
                            .zip(offsets)
                            .map(|(row, offset)| {
                                let mut base = 1.0;
                                let mut weights = vec![0.0; band];
                                for (m, role) in row.iter().zip(r) {
                                    let m = m.unsigned_abs() as f64;
                                    match role {
                                        Role::Band(k) => weights[*k] += m,
                                        Role::Full(t) => base += m * (*t as f64 - 1.0),
                                        Role::Fixed => {}
                                    }
                                }
                                (base, weights, offset, offset)
                            })
                            .collect();
                        let buf = &program.buffers[a.buffer];
                        at.insert((a.buffer, linear), boxes.len());
                        boxes.push(TileBox {
                            per_line: (LINE_BYTES / buf.element_type.bytes()).max(1) as f64,
                            elem_bytes: buf.element_type.bytes(),
                            shape: buf.shape.clone(),
                            dims,
                        });
                    }
                }
            }
        }
        Footprint { boxes }
    }

    /// Cache lines one tile of `sizes` touches: the box each buffer's references span over
    /// the tile, the contiguous dimension counted in lines.
    fn lines(&self, sizes: &[u32]) -> f64 {
        self.boxes.iter().map(|b| b.lines(sizes)).sum()
    }

    /// Whether one tile's lines crowd a page slot ([`PAGE_SLOTS`]) beyond its share of
    /// `budget_bytes`. Each buffer is taken to start at the same offset in a page (the measuring
    /// driver's `aligned_alloc` gives every large buffer the same one).
    fn crowds(&self, sizes: &[u32], budget_bytes: u64) -> bool {
        let share = (budget_bytes / LINE_BYTES as u64 / PAGE_SLOTS as u64) as u32;
        if self.lines(sizes) <= share as f64 {
            return false;
        }
        let mut slots = [0u32; PAGE_SLOTS];
        for b in &self.boxes {
            b.add_slot_lines(sizes, &mut slots);
        }
        slots.iter().any(|n| *n > share)
    }

    /// [`Footprint::lines`] of the boxes that move along band position `k`, and of those that
    /// do not (the same box for every tile along it: C[i][j]'s along k).
    fn lines_along(&self, sizes: &[u32], k: usize) -> (f64, f64) {
        self.boxes.iter().fold((0.0, 0.0), |(moving, fixed), b| {
            let lines = b.lines(sizes);
            if b.dims.iter().any(|(_, w, _, _)| w.get(k).is_some_and(|w| *w != 0.0)) {
                (moving + lines, fixed)
            } else {
                (moving, fixed + lines)
            }
        })
    }
}

impl TileBox {
    /// Elements per dimension this box spans over a tile of `sizes` (at most the buffer's).
    fn extents<'a>(&'a self, sizes: &'a [u32]) -> impl Iterator<Item = f64> + 'a {
        self.dims.iter().enumerate().map(move |(r, (base, weights, lo, hi))| {
            let span = base + weights.iter().zip(sizes).map(|(w, s)| w * (*s as f64 - 1.0)).sum::<f64>();
            let extent = span + (hi - lo) as f64;
            match self.shape.get(r) {
                Some(d) => extent.min((*d).max(1) as f64),
                None => extent,
            }
        })
    }

    /// The lines this box touches over a tile of `sizes`.
    fn lines(&self, sizes: &[u32]) -> f64 {
        let last = self.dims.len().saturating_sub(1);
        self.extents(sizes)
            .enumerate()
            .map(|(r, extent)| {
                if r == last {
                    // A row of `extent` elements at a random alignment: its expected lines.
                    (extent - 1.0) / self.per_line + 1.0
                } else {
                    extent
                }
            })
            .product::<f64>()
    }

    /// Adds the lines this box touches over the first tile of `sizes` to the page slot each
    /// falls in (`slots[k]`: lines at byte offset 64k to 64k + 63 of their 4 KiB page), the
    /// buffer laid out row-major from the start of a page. A scalar or a box of unknown shape
    /// adds nothing (it is left to the budget on lines).
    fn add_slot_lines(&self, sizes: &[u32], slots: &mut [u32; PAGE_SLOTS]) {
        if self.shape.is_empty() || self.shape.iter().any(|d| *d <= 0) {
            return;
        }
        let extents: Vec<i64> = self.extents(sizes).map(|e| e.ceil().max(1.0) as i64).collect();
        // Byte strides of the dimensions (row-major).
        let mut strides = vec![self.elem_bytes; self.shape.len()];
        for d in (0..self.shape.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * self.shape[d + 1];
        }
        let n = extents.len();
        let row_bytes = extents[n - 1] * self.elem_bytes;
        let mut index = vec![0i64; n - 1];
        loop {
            let start: i64 = index.iter().zip(&strides).map(|(i, s)| i * s).sum();
            let (first, end) = (start / LINE_BYTES, (start + row_bytes - 1) / LINE_BYTES);
            let count = end - first + 1;
            let whole = (count / PAGE_SLOTS as i64) as u32;
            if whole > 0 {
                slots.iter_mut().for_each(|s| *s += whole);
            }
            for line in first..first + count % PAGE_SLOTS as i64 {
                slots[(line % PAGE_SLOTS as i64) as usize] += 1;
            }
            // The next row (the outer dimensions as an odometer).
            let mut d = n - 1;
            loop {
                if d == 0 {
                    return;
                }
                d -= 1;
                index[d] += 1;
                if index[d] < extents[d] {
                    break;
                }
                index[d] = 0;
            }
        }
    }
}
