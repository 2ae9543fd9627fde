//! The analytic tile-size model (`schedule::tile_sizes`): sizes fit the budget, follow it,
//! prefer whole tiles, and reach the search as candidates.

use affine_autosched::ir::{self, Program};
use affine_autosched::mlir::LoadedModule;
use affine_autosched::schedule::tile_sizes::{choose, choose_interleaved, cost, imbalance, register_cost, Target, LINE_BYTES};
use affine_autosched::schedule::tree::Scheduled;
use affine_autosched::schedule::Schedule;
use affine_autosched::search::candidates::{candidates, Stage};
use std::path::PathBuf;

fn program(rel: &str) -> Program {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel);
    let m = LoadedModule::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
    ir::analyze_function(m.functions()[0]).unwrap().program
}

fn band(p: &Program, tree: &Scheduled, names: &[&str]) -> Vec<usize> {
    names.iter().map(|n| tree.node_named(p, &n.parse().unwrap()).unwrap()).collect()
}

/// `autosched tile-sizes ARGS...` run from the repository root.
fn tile_sizes_command(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_autosched"))
        .arg("tile-sizes")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

#[test]
fn gemm_tiles_fit_the_budget_and_shrink_with_it() {
    // PolyBench gemm, its i-k-j nest distributed from the beta scaling: 1000 x 1200 x 1100.
    let p = program("benchmarks/polybench/gemm.mlir");
    let s: Schedule = "distribute(L0)".parse().unwrap();
    let tree = Scheduled::new(&p, &s).unwrap();
    let b = band(&p, &tree, &["L0.d1", "L0.1", "L0.1.0"]);
    let trips = [1000i64, 1200, 1100];
    let mut last = f64::INFINITY;
    for budget in [32u64 << 10, 128 << 10, 512 << 10, 2 << 20] {
        let c = choose(&p, &tree, &b, &Target { budget_bytes: budget, cores: 1, vector_registers: 16, l1_bytes: 32 << 10, vector_bytes: 32 }).unwrap();
        assert!(c.footprint_bytes <= budget, "{c:?}");
        assert!(c.footprint_bytes >= budget / 4, "the tile uses the budget: {c:?}");
        for (s, t) in c.sizes.iter().zip(trips) {
            assert!((*s as i64) < t, "{c:?}");
        }
        // Three references of a contraction: a cube-like tile (no size 8x another).
        let (lo, hi) = (c.sizes.iter().min().unwrap(), c.sizes.iter().max().unwrap());
        assert!(hi / lo <= 8, "{c:?}");
        // More room, fewer lines per iteration.
        let volume: f64 = c.sizes.iter().map(|s| *s as f64).product();
        assert!(c.lines_per_iteration * volume * LINE_BYTES as f64 <= c.footprint_bytes as f64 + 1.0);
        assert!(c.lines_per_iteration < last, "{c:?}");
        last = c.lines_per_iteration;
    }
}

#[test]
fn whole_tiles_are_preferred_and_unknown_trip_counts_refused() {
    // Batched matmul, 256 x 256 x 256 per batch: at these budgets a whole tile (dividing
    // 256) loads at most a tenth more lines per iteration than a partial one (192), so it
    // is taken. (At 256 KiB, where 128 cubed crowds its page slots (rows of 1 KiB: four to a
    // page, the 128 floats of each at a quarter of the offsets), 64 x 128 x 192 loads a tenth
    // fewer than 64 x 128 x 128 and wins.)
    let p = program("benchmarks/polybench/batched-matmul.mlir");
    let s: Schedule = "interchange(L1.0.0.0, L1.0.0)".parse().unwrap();
    let tree = Scheduled::new(&p, &s).unwrap();
    let b = band(&p, &tree, &["L1.0", "L1.0.0.0", "L1.0.0"]);
    for budget in [64u64 << 10, 128 << 10] {
        let c = choose(&p, &tree, &b, &Target { budget_bytes: budget, cores: 1, vector_registers: 16, l1_bytes: 32 << 10, vector_bytes: 32 }).unwrap();
        assert!(c.sizes.iter().all(|s| 256 % s == 0), "{budget}: {c:?}");
    }
    // syr2k's j loop runs to i: no constant trip count.
    let tri = program("benchmarks/polybench/syr2k.mlir");
    let tree = Scheduled::new(&tri, &Schedule::default()).unwrap();
    let b = band(&tri, &tree, &["L0.1", "L0.1.0"]);
    assert!(choose(&tri, &tree, &b, &Target { budget_bytes: 512 << 10, cores: 1, vector_registers: 16, l1_bytes: 32 << 10, vector_bytes: 32 }).is_none());
}

#[test]
fn the_search_is_offered_the_models_sizes() {
    let p = program("benchmarks/polybench/gemm.mlir");
    let s: Schedule = "distribute(L0)".parse().unwrap();
    let tree = Scheduled::new(&p, &s).unwrap();
    let b = band(&p, &tree, &["L0.d1", "L0.1", "L0.1.0"]);
    let c = choose_interleaved(&p, &tree, &b, &Target::machine()).unwrap();
    assert_eq!(Some(&c), choose(&p, &tree, &b, &Target::machine()).as_ref(), "no reduction along gemm's j: one choice");
    let want = format!("tile(L0.d1:{}, L0.1:{}, L0.1.0:{})", c.sizes[0], c.sizes[1], c.sizes[2]);
    let tiles: Vec<String> = candidates(&p, &s, Stage::Tile).iter().map(|t| t.to_string()).collect();
    assert!(tiles.contains(&want), "{want} not in {tiles:?}");
    let mut unique = tiles.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), tiles.len(), "no candidate twice");
    // Inside a scope the sizes are another host's (regenerating its data); outside, this one's.
    let small = Target { budget_bytes: 16 << 10, cores: 1, vector_registers: 16, l1_bytes: 32 << 10, vector_bytes: 32 };
    let c = choose_interleaved(&p, &tree, &b, &small).unwrap();
    let want_small = format!("tile(L0.d1:{}, L0.1:{}, L0.1.0:{})", c.sizes[0], c.sizes[1], c.sizes[2]);
    assert_ne!(want_small, want, "a 16 KiB budget gives other sizes");
    let scoped: Vec<String> = small.scoped(|| candidates(&p, &s, Stage::Tile)).iter().map(|t| t.to_string()).collect();
    assert!(scoped.contains(&want_small), "{want_small} not in {scoped:?}");
    assert_eq!(Target::current(), Target::machine());
    assert!(candidates(&p, &s, Stage::Tile).iter().any(|t| t.to_string() == want));
}

#[test]
fn the_outermost_loop_is_shared_evenly_among_the_cores() {
    assert_eq!(imbalance(64, 32, 2), 1.0);
    assert_eq!(imbalance(64, 48, 2), 1.5);
    assert_eq!(imbalance(1000, 7, 1), 1.0);
    assert!((imbalance(300, 100, 2) - 4.0 / 3.0).abs() < 1e-9, "3 tiles on 2 cores");
    // A pointwise convolution, 256 output channels outermost: on one core the model may
    // leave a partial tile there; on two, whatever it picks gives both cores the same work.
    let p = program("benchmarks/dnn/pointwise-conv.mlir");
    let tree = Scheduled::new(&p, &Schedule::default()).unwrap();
    let b = band(&p, &tree, &["L1", "L1.0", "L1.0.0"]);
    for cores in [2usize, 4, 8] {
        let c = choose(&p, &tree, &b, &Target { budget_bytes: 512 << 10, cores, vector_registers: 16, l1_bytes: 32 << 10, vector_bytes: 32 }).unwrap();
        assert!(imbalance(256, c.sizes[0], cores) < 1.05, "{cores} cores: {c:?}");
    }
}

#[test]
fn a_reduction_along_the_innermost_loop_is_tiled_short() {
    // A dense layer, out[b][o] += x[b][i] * W[o][i] with i innermost: each (b, o) is one chain
    // of adds along i, which the out-of-order window overlaps with the next only when it is
    // short; the model keeps i's tile short at every budget. The same nest with o innermost
    // (interchanged: the store moves along it) has no such chain, and its tile is not held short.
    let p = program("benchmarks/dnn/dense.mlir");
    let s: Schedule = "distribute(L0.0); distribute(L0)".parse().unwrap();
    let tree = Scheduled::new(&p, &s).unwrap();
    let b = band(&p, &tree, &["L0.d1", "L0.0.d1", "L0.0.0"]);
    for budget in [128u64 << 10, 512 << 10, 2 << 20] {
        let target = Target { budget_bytes: budget, cores: 2, vector_registers: 16, l1_bytes: 32 << 10, vector_bytes: 32 };
        let c = choose(&p, &tree, &b, &target).unwrap();
        assert!(c.sizes[2] <= 64, "{budget}: {c:?}");
        assert!(c.footprint_bytes <= budget, "{c:?}");
        // A register tile interleaves the chains: the sizes the lines alone decide, longer
        // along i, and what the search is offered.
        let r = choose_interleaved(&p, &tree, &b, &target).unwrap();
        assert!(r.sizes[2] > c.sizes[2] && r.lines_per_iteration < c.lines_per_iteration, "{budget}: {c:?} {r:?}");
        let want = format!("tile(L0.d1:{}, L0.0.d1:{}, L0.0.0:{})", r.sizes[0], r.sizes[1], r.sizes[2]);
        let tiles: Vec<String> = target.scoped(|| candidates(&p, &s, Stage::Tile)).iter().map(|t| t.to_string()).collect();
        assert!(tiles.contains(&want), "{want} not in {tiles:?}");
    }
    let s: Schedule = "distribute(L0.0); distribute(L0); interchange(L0.0.0, L0.0.d1)".parse().unwrap();
    let tree = Scheduled::new(&p, &s).unwrap();
    let b = band(&p, &tree, &["L0.d1", "L0.0.0", "L0.0.d1"]);
    // (At 2 MiB: with less, W's rows crowd their page slots before o's tile reaches 64.)
    let c = choose(&p, &tree, &b, &Target { budget_bytes: 2 << 20, cores: 2, vector_registers: 16, l1_bytes: 32 << 10, vector_bytes: 32 }).unwrap();
    assert!(c.sizes[2] > 64, "{c:?}");
}

#[test]
fn rows_a_page_apart_crowd_their_page_slot() {
    // dense's x[b][i] and W[o][i] have rows of 2048 floats, 8 KiB: a tile's lines of one i
    // column all lie at the same offset of their pages, and the L2 (indexed by physical
    // address: the offset in the page, then a page frame the kernel picks) holds a 64th of
    // itself at each offset. With a 256 KiB budget that share is 64 lines: 32 + 200 rows
    // one line long (i's tile of 16 floats) crowd it, though the whole tile's 40 KB fit.
    let p = program("benchmarks/dnn/dense.mlir");
    let s: Schedule = "distribute(L0.0); distribute(L0)".parse().unwrap();
    let tree = Scheduled::new(&p, &s).unwrap();
    let b = band(&p, &tree, &["L0.d1", "L0.0.d1", "L0.0.0"]);
    let target = Target { budget_bytes: 256 << 10, cores: 2, vector_registers: 16, l1_bytes: 32 << 10, vector_bytes: 32 };
    assert_eq!(cost(&p, &tree, &b, &target, &[32, 200, 16]), None);
    assert_eq!(cost(&p, &tree, &b, &target, &[32, 125, 16]), None);
    assert!(cost(&p, &tree, &b, &target, &[32, 20, 16]).is_some());
    assert!(cost(&p, &tree, &b, &target, &[16, 20, 32]).is_some());
    // Four times the budget, four times the share: 32 + 200 rows fit it.
    assert!(cost(&p, &tree, &b, &Target { budget_bytes: 1 << 20, ..target }, &[32, 200, 16]).is_some());
    for budget in [256u64 << 10, 512 << 10, 1 << 20] {
        let t = Target { budget_bytes: budget, ..target };
        let share = budget / LINE_BYTES as u64 / 64;
        for c in [choose(&p, &tree, &b, &t).unwrap(), choose_interleaved(&p, &tree, &b, &t).unwrap()] {
            // The rows of x's and W's boxes at the first offset of i's tile.
            assert!(u64::from(c.sizes[0] + c.sizes[1]) <= share, "{budget}: {c:?}");
        }
    }
    // gemm's rows (1100 and 1200 floats) fall at every offset: the same choice with or
    // without the slots at any budget its lines fit (its tile above uses the whole budget).
    let g = program("benchmarks/polybench/gemm.mlir");
    let gs: Schedule = "distribute(L0)".parse().unwrap();
    let gtree = Scheduled::new(&g, &gs).unwrap();
    let gb = band(&g, &gtree, &["L0.d1", "L0.1", "L0.1.0"]);
    let c = choose(&g, &gtree, &gb, &target).unwrap();
    assert!(c.footprint_bytes >= (256 << 10) * 3 / 4, "{c:?}");
}

#[test]
fn the_choice_is_the_cheapest_of_what_it_charges() {
    // What `cost` (and `autosched tile-sizes --sizes`) reports is what `choose` minimizes:
    // no other fitting vector of the sizes tried costs less, and one too large to fit costs
    // nothing (None).
    let p = program("benchmarks/dnn/dense.mlir");
    let s: Schedule = "distribute(L0.0); distribute(L0)".parse().unwrap();
    let tree = Scheduled::new(&p, &s).unwrap();
    let b = band(&p, &tree, &["L0.d1", "L0.0.d1", "L0.0.0"]);
    let target = Target { budget_bytes: 256 << 10, cores: 2, vector_registers: 16, l1_bytes: 32 << 10, vector_bytes: 32 };
    let c = choose(&p, &tree, &b, &target).unwrap();
    let best = cost(&p, &tree, &b, &target, &c.sizes).unwrap();
    for sizes in [[16u32, 20, 16], [32, 40, 32], [32, 125, 256], [16, 50, 64], [32, 200, 16]] {
        if let Some(other) = cost(&p, &tree, &b, &target, &sizes) {
            assert!(best <= other * 1.001, "{:?} at {best} vs {sizes:?} at {other}", c.sizes);
        }
    }
    assert_eq!(cost(&p, &tree, &b, &target, &[63, 999, 2047]), None, "a whole layer does not fit 256 KiB");
    assert_eq!(cost(&p, &tree, &b, &target, &[32, 40]), None, "one size per loop");
    // The command prints the same.
    let out = tile_sizes_command(&[
        "benchmarks/dnn/dense.mlir",
        "--band",
        "L0.d1,L0.0.d1,L0.0.0",
        "-s",
        "distribute(L0.0); distribute(L0)",
        "--budget",
        "262144",
        "--cores",
        "2",
        "--sizes",
        "16,20,32",
        "--sizes",
        "63,999,2047",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    let want = cost(&p, &tree, &b, &target, &[16, 20, 32]).unwrap();
    assert!((lines[0]["cost"].as_f64().unwrap() - want).abs() < 1e-9 * want, "{lines:?}");
    assert!(lines[1]["cost"].is_null(), "{lines:?}");
}

#[test]
fn register_tiles_keep_the_block_their_slivers_sweep_in_l1() {
    // PolyBench gemm as the register tile's band: rows i (1000), columns j (1100), k (1200).
    // The cache tile's sizes fill half of the L2 (rows 258 on a 2 MiB L2, which ran 1.4x
    // slower than 54 as a packed 6x16 tile); the register tile's keep the block each sliver
    // of the outer point loop sweeps in its share of the L1: A's rows x k with the columns
    // outside, B's k x columns with the rows outside.
    use affine_autosched::schedule::kinds::register_tile_sizes;
    use affine_autosched::schedule::tile_sizes::PointOrder;
    let p = program("benchmarks/polybench/gemm.mlir");
    let s: Schedule = "distribute(L0); interchange(L0.1.0, L0.1)".parse().unwrap();
    let tree = Scheduled::new(&p, &s).unwrap();
    let b = band(&p, &tree, &["L0.d1", "L0.1.0", "L0.1"]);
    let nodes: [usize; 3] = b.clone().try_into().unwrap();
    let trips = [1000i64, 1100, 1200];
    for (l1, budget) in [(32u64 << 10, 512u64 << 10), (48 << 10, 1 << 20)] {
        let target = Target { budget_bytes: budget, cores: 2, vector_registers: 32, l1_bytes: l1, vector_bytes: 32 };
        let cache_tile = choose_interleaved(&p, &tree, &b, &target).unwrap();
        for (order, unit) in [(PointOrder::ColumnsOutside, [6u32, 16]), (PointOrder::RowsOutside, [8, 16])] {
            let c = register_tile_sizes(&p, &tree, nodes, &target, unit, order).unwrap();
            let [rows, cols, k] = [c.sizes[0] as u64, c.sizes[1] as u64, c.sizes[2] as u64];
            assert!(c.footprint_bytes <= budget, "{c:?}");
            assert!(c.sizes.iter().all(|s| *s >= 32) && c.sizes.iter().zip(trips).all(|(s, t)| (*s as i64) < t), "{c:?}");
            // Whole register tiles along the rows and columns.
            assert!(rows % unit[0] as u64 == 0 && cols % unit[1] as u64 == 0, "{c:?}");
            // The swept block of f32 within its share of the L1 (`tile_sizes::L1_SHARE`; its
            // lines: 4-byte elements, 16 to a line).
            let swept = match order {
                PointOrder::ColumnsOutside => rows * k.div_ceil(16) * 64,
                PointOrder::RowsOutside => k * cols.div_ceil(16) * 64,
            };
            assert!(swept as f64 <= l1 as f64 * affine_autosched::schedule::tile_sizes::L1_SHARE, "{order:?} at L1 {l1}: {c:?} sweeps {swept} bytes");
            // Smaller along the swept block's rows than the cache tile where that fills L1.
            if order == PointOrder::ColumnsOutside {
                assert!(c.sizes[0] < cache_tile.sizes[0], "{c:?} vs the cache tile {cache_tile:?}");
            }
        }
    }
    // The command prints the same sizes (`register`), and what it charges them is the least
    // of what it charges other whole register tiles that fit.
    let target = Target { budget_bytes: 1 << 20, cores: 2, vector_registers: 32, l1_bytes: 48 << 10, vector_bytes: 32 };
    let want = register_tile_sizes(&p, &tree, nodes, &target, [6, 16], PointOrder::ColumnsOutside).unwrap();
    let kernel = affine_autosched::schedule::kinds::register_kernel(&p, &tree, nodes, [6, 16], PointOrder::ColumnsOutside);
    let best = register_cost(&p, &tree, &b, &target, kernel, &want.sizes).unwrap();
    for other in [[54u32, 288, 120], [42, 288, 80], [120, 560, 48], [36, 560, 200], [258, 224, 400]] {
        if let Some(c) = register_cost(&p, &tree, &b, &target, kernel, &other) {
            assert!(best <= c * 1.001, "{:?} at {best} vs {other:?} at {c}", want.sizes);
        }
    }
    assert_eq!(register_cost(&p, &tree, &b, &target, kernel, &[258, 224, 400]), None, "A's 258 x 400 block outgrows the L1");
    // gemm's band after the steps before it, on a 1 MiB budget, 2 cores, a 48 KiB L1.
    let gemm: &[&str] = &["benchmarks/polybench/gemm.mlir", "--band", "L0.d1,L0.1.0,L0.1", "-s", "distribute(L0); interchange(L0.1.0, L0.1)"];
    let host: &[&str] = &["--budget", "1048576", "--cores", "2", "--l1", "49152", "--register", "6x16", "--columns-outside"];
    let out = tile_sizes_command(&[gemm, host].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let got: Vec<u32> = serde_json::from_value(v["register"]["sizes"].clone()).unwrap();
    assert_eq!(got, want.sizes);
    // With --sizes, the register model's charge of each (null where it does not fit).
    let chosen = want.sizes.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(",");
    let scored = tile_sizes_command(&[gemm, host, &["--sizes", "258,224,400", "--sizes", &chosen]].concat());
    assert!(scored.status.success(), "{}", String::from_utf8_lossy(&scored.stderr));
    let lines: Vec<serde_json::Value> = String::from_utf8(scored.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(lines[0]["cost"].is_null(), "{lines:?}");
    assert!((lines[1]["cost"].as_f64().unwrap() - best).abs() < 1e-12, "{lines:?}");
    // A 12x32 tile in the 512-bit vectors a function compiled with prefer-vector-width=512
    // gets on AVX-512: 24 accumulators, not 48, so each entry of k costs less; the command's
    // --prefer-vector-width sizes it so (in this machine's registers).
    let unit = [12, 32];
    let kernel = affine_autosched::schedule::kinds::register_kernel(&p, &tree, nodes, unit, PointOrder::ColumnsOutside);
    let wide = target.with_vector_width(Some(512));
    assert_eq!(wide.vector_bytes, 64);
    let sizes = [60, 576, 80];
    assert!(register_cost(&p, &tree, &b, &wide, kernel, &sizes).unwrap() < register_cost(&p, &tree, &b, &target, kernel, &sizes).unwrap());
    let here = Target { vector_registers: affine_autosched::machine::vector_registers(), ..target }.with_vector_width(Some(512));
    let want = register_tile_sizes(&p, &tree, nodes, &here, unit, PointOrder::ColumnsOutside).unwrap();
    let host512: &[&str] = &["--budget", "1048576", "--cores", "2", "--l1", "49152", "--register", "12x32", "--columns-outside", "--prefer-vector-width", "512"];
    let out = tile_sizes_command(&[gemm, host512].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(serde_json::from_value::<Vec<u32>>(v["register"]["sizes"].clone()).unwrap(), want.sizes);
    // A malformed tile is refused with the option named.
    let bad = tile_sizes_command(&[gemm, &["--register", "6by16"]].concat());
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--register 6by16"));
}

#[test]
fn a_peeled_partial_tile_runs_after_the_parallel_loop() {
    use affine_autosched::schedule::tile_sizes::imbalance_peeled;
    // 1000 rows in one tile of 504 and a peeled 496: one core runs all of them.
    assert_eq!(imbalance_peeled(1000, 504, 2), 2.0);
    // Four whole tiles of 248 shared, then 8 rows: the busiest core runs 504.
    assert!((imbalance_peeled(1000, 248, 2) - 1.008).abs() < 1e-9);
    // Three whole tiles of 256 (two on one core), then 232: 744, where `imbalance` says 512.
    assert!((imbalance_peeled(1000, 256, 2) - 1.488).abs() < 1e-9);
    assert!((imbalance(1000, 256, 2) - 1.024).abs() < 1e-9);
    // Whole tiles only: the same as `imbalance`.
    assert_eq!(imbalance_peeled(64, 32, 2), imbalance(64, 32, 2));
    assert!((imbalance_peeled(64, 30, 2) - 68.0 / 64.0).abs() < 1e-9);
}
