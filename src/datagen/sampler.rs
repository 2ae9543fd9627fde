//! Random schedules for a program, proposed in the order the beam search visits the
//! stages (fusion, interchange, tiling, unrolling, parallelization, vectorization), each
//! stage taken with some probability. Proposals are only candidates: the data generator
//! keeps those that the transformation layer accepts (the exact legality checks) and
//! drops duplicates.

use super::rng::Rng;
use crate::ir::{Child, Loop, Program};
use crate::schedule::{LoopName, Schedule, Transform};

const TILE_SIZES: [u32; 6] = [4, 8, 16, 32, 64, 128];
const UNROLL_FACTORS: [u32; 3] = [2, 4, 8];
const VECTOR_WIDTHS: [u32; 3] = [4, 8, 16];

/// A loop of the chain being scheduled: its current name and what is known of its trip count.
#[derive(Clone, Debug)]
struct ChainLoop {
    name: LoopName,
    trips: Option<i64>,
    /// Ids of outer loops its bounds depend on (non-rectangular).
    depends_on: Vec<String>,
}

/// The perfectly nested chain from a nest's root: each loop whose only child is a loop.
fn chain(program: &Program, root: usize) -> Vec<ChainLoop> {
    let mut out = Vec::new();
    let mut current = Some(root);
    while let Some(id) = current {
        let l: &Loop = &program.loops[id];
        let deps = l.bound_loops().map(|of| program.loops[of].name.clone()).collect();
        out.push(ChainLoop { name: l.name.parse().expect("ir names loops validly"), trips: l.trip_count, depends_on: deps });
        current = match l.children.as_slice() {
            [Child::Loop(c)] => Some(*c),
            _ => None,
        };
    }
    out
}

/// Innermost loops below the chain's last loop (for unrolling and vectorization in
/// imperfect nests): `(name, trip count)`.
fn innermost_loops(program: &Program, nest: usize) -> Vec<(LoopName, Option<i64>)> {
    program
        .nest_loops(nest)
        .filter(|l| !l.children.iter().any(|c| matches!(c, Child::Loop(_))))
        .map(|l| (l.name.parse().expect("valid"), l.trip_count))
        .collect()
}

fn rectangular(window: &[ChainLoop]) -> bool {
    window.iter().all(|l| !window.iter().any(|o| l.depends_on.contains(&o.name.to_string())))
}

/// One random schedule proposal for `program`.
pub fn propose(program: &Program, rng: &mut Rng) -> Schedule {
    let mut steps = Vec::new();
    if program.nests.is_empty() {
        return Schedule { steps };
    }
    let mut nest = rng.below(program.nests.len());
    // Fusion: the chosen nest with its next sibling, when their outer loops match.
    if program.nests.len() > 1 && rng.chance(0.35) {
        let first = rng.below(program.nests.len() - 1);
        let (a, b) = (chain(program, program.nests[first].root), chain(program, program.nests[first + 1].root));
        let same = a.iter().zip(&b).take_while(|(x, y)| x.trips.is_some() && x.trips == y.trips).count();
        if same > 0 {
            let depth = rng.range(1, same);
            steps.push(Transform::Fuse { first: a[0].name.clone(), second: b[0].name.clone(), depth });
            nest = first + 1;
        }
    }
    let mut ch = chain(program, program.nests[nest].root);
    // Interchange: a window of 2-3 loops of the chain, permuted.
    if ch.len() >= 2 && rng.chance(0.45) {
        let len = rng.range(2, ch.len().min(3));
        let start = rng.below(ch.len() - len + 1);
        let window: Vec<ChainLoop> = ch[start..start + len].to_vec();
        if rectangular(&window) {
            let mut perm: Vec<usize> = (0..len).collect();
            while perm.iter().enumerate().all(|(i, &p)| i == p) {
                rng.shuffle(&mut perm);
            }
            let reordered: Vec<ChainLoop> = perm.iter().map(|&p| window[p].clone()).collect();
            steps.push(Transform::Interchange { order: reordered.iter().map(|l| l.name.clone()).collect() });
            ch.splice(start..start + len, reordered);
        }
    }
    // Tiling: a window of 1-3 loops with known trip counts.
    if rng.chance(0.5) {
        let len = rng.range(1, ch.len().min(3));
        let start = rng.below(ch.len() - len + 1);
        let window: Vec<ChainLoop> = ch[start..start + len].to_vec();
        if rectangular(&window) && window.iter().all(|l| l.trips.is_some_and(|t| t >= 8)) {
            let band: Vec<(LoopName, u32)> = window
                .iter()
                .map(|l| {
                    let fits: Vec<u32> =
                        TILE_SIZES.iter().copied().filter(|&s| (s as i64) < l.trips.unwrap_or(0)).collect();
                    (l.name.clone(), *rng.pick(&fits))
                })
                .collect();
            let tiles: Vec<ChainLoop> = window
                .iter()
                .zip(&band)
                .map(|(l, (_, s))| ChainLoop { name: l.name.tile_loop(), trips: l.trips.map(|t| (t + *s as i64 - 1) / *s as i64), depends_on: vec![] })
                .collect();
            let points: Vec<ChainLoop> = window
                .iter()
                .zip(&band)
                .map(|(l, (_, s))| ChainLoop {
                    trips: l.trips.filter(|t| t % *s as i64 == 0).map(|_| *s as i64),
                    ..l.clone()
                })
                .collect();
            ch.splice(start..start + len, tiles.into_iter().chain(points));
            steps.push(Transform::Tile { band });
        }
    }
    let inner = innermost_loops(program, nest);
    let last = ch.last().expect("a chain has a loop").clone();
    let innermost_in_chain = inner.iter().any(|(n, _)| *n == last.name);
    // Unrolling: the innermost loop, or the loop above it (unroll-and-jam).
    if rng.chance(0.4) {
        let target = if ch.len() >= 2 && rng.chance(0.3) { ch[ch.len() - 2].name.clone() } else { last.name.clone() };
        steps.push(Transform::Unroll { target, factor: *rng.pick(&UNROLL_FACTORS) });
    }
    // Parallelization: the outermost loop of the chain (a tile loop after tiling).
    if rng.chance(0.5) {
        steps.push(Transform::Parallelize { target: ch[0].name.clone() });
    }
    // Vectorization: an innermost loop whose trip count the width divides.
    if rng.chance(0.45) {
        // After tiling, a point loop's trip count is its tile size when that divides.
        let trips = if innermost_in_chain { last.trips } else { None };
        let candidates: Vec<(LoopName, i64)> = if let Some(t) = trips {
            vec![(last.name.clone(), t)]
        } else {
            inner.iter().filter_map(|(n, t)| t.map(|t| (n.clone(), t))).collect()
        };
        if !candidates.is_empty() {
            let (target, t) = rng.pick(&candidates).clone();
            let widths: Vec<u32> = VECTOR_WIDTHS.iter().copied().filter(|w| t % *w as i64 == 0).collect();
            if !widths.is_empty() {
                steps.push(Transform::Vectorize { target, width: *rng.pick(&widths) });
            }
        }
    }
    Schedule { steps }
}
