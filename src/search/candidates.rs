//! Candidate steps for one stage of the search, from the schedule built so far.
//!
//! Proposals follow the current loop tree (the schedule applied symbolically by
//! [`crate::features::scheduled`]); they are only candidates: the search keeps those the
//! transformation layer accepts (exact legality).

use crate::features::scheduled::{Kid, Scheduled};
use crate::ir::{Child, Program};
use crate::schedule::{LoopName, Schedule, Transform};

/// The stages, in the order the search visits them (the seeds' fixed order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Fusion,
    Interchange,
    Tiling,
    Unrolling,
    Parallelization,
    Vectorization,
}

pub const STAGES: [Stage; 6] =
    [Stage::Fusion, Stage::Interchange, Stage::Tiling, Stage::Unrolling, Stage::Parallelization, Stage::Vectorization];

pub const TILE_SIZES: [u32; 4] = [16, 32, 64, 128];
pub const UNROLL_FACTORS: [u32; 3] = [2, 4, 8];
pub const VECTOR_WIDTHS: [u32; 3] = [4, 8, 16];

fn name(program: &Program, sched: &Scheduled, node: usize) -> LoopName {
    let ent = sched.nodes[node].ent;
    let base = &program.loops[ent.loop_id].name;
    let text = if ent.tile { format!("{base}.t") } else { base.clone() };
    text.parse().expect("the representation names loops validly")
}

/// The perfectly nested chain of loops from each top-level loop (node indices).
fn chains(sched: &Scheduled) -> Vec<Vec<usize>> {
    sched
        .roots
        .iter()
        .map(|&r| {
            let mut chain = vec![r];
            loop {
                let last = chain[chain.len() - 1];
                match sched.nodes[last].children.as_slice() {
                    [Kid::Node(n)] => chain.push(*n),
                    _ => break,
                }
            }
            chain
        })
        .collect()
}

/// Loops with no loop inside (unrolling and vectorization targets).
fn innermost(sched: &Scheduled) -> Vec<usize> {
    let mut out = Vec::new();
    let mut stack: Vec<usize> = sched.roots.iter().rev().copied().collect();
    while let Some(n) = stack.pop() {
        let kids: Vec<usize> = sched.nodes[n]
            .children
            .iter()
            .filter_map(|k| match k {
                Kid::Node(c) => Some(*c),
                Kid::Comp(_) => None,
            })
            .collect();
        if kids.is_empty() {
            out.push(n);
        }
        stack.extend(kids.into_iter().rev());
    }
    out
}

/// Outer loops of two adjacent nests with the same constant trip counts.
fn fusable_depth(program: &Program, a: usize, b: usize) -> usize {
    let chain = |root: usize| {
        let mut out = vec![root];
        while let [Child::Loop(c)] = program.loops[out[out.len() - 1]].children.as_slice() {
            out.push(*c);
        }
        out
    };
    let (ca, cb) = (chain(a), chain(b));
    ca.iter()
        .zip(&cb)
        .take_while(|(x, y)| {
            let (x, y) = (&program.loops[**x], &program.loops[**y]);
            x.trip_count.is_some() && x.trip_count == y.trip_count && x.step == y.step
        })
        .count()
}

/// Whether a loop's bounds depend on another loop of `window` (original loops only).
fn rectangular(program: &Program, sched: &Scheduled, window: &[usize]) -> bool {
    let ids: Vec<usize> = window.iter().map(|n| sched.nodes[*n].ent.loop_id).collect();
    window.iter().all(|n| {
        let ent = sched.nodes[*n].ent;
        if ent.tile {
            return true;
        }
        let l = &program.loops[ent.loop_id];
        !l.lower.loops.iter().chain(l.upper.loops.iter()).any(|t| ids.contains(&t.of))
    })
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n <= 1 {
        return vec![(0..n).collect()];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, n - 1);
            out.push(q);
        }
    }
    out.sort();
    out
}

/// The candidate steps of `stage` after `schedule`, in a deterministic order.
pub fn candidates(program: &Program, schedule: &Schedule, stage: Stage) -> Vec<Transform> {
    let Ok(sched) = Scheduled::new(program, schedule) else { return Vec::new() };
    let mut out = Vec::new();
    let trips = |node: usize| -> Option<i64> {
        let ent = sched.nodes[node].ent;
        (!ent.tile).then(|| program.loops[ent.loop_id].trip_count).flatten()
    };
    match stage {
        Stage::Fusion => {
            // Adjacent top-level nests that are still original roots.
            let roots: Vec<usize> = sched.roots.clone();
            for pair in roots.windows(2) {
                let (a, b) = (sched.nodes[pair[0]].ent, sched.nodes[pair[1]].ent);
                if a.tile || b.tile || program.loops[a.loop_id].parent.is_some() || program.loops[b.loop_id].parent.is_some() {
                    continue;
                }
                for depth in 1..=fusable_depth(program, a.loop_id, b.loop_id) {
                    out.push(Transform::Fuse {
                        first: name(program, &sched, pair[0]),
                        second: name(program, &sched, pair[1]),
                        depth,
                    });
                }
            }
        }
        Stage::Interchange => {
            for chain in chains(&sched) {
                for len in 2..=3.min(chain.len()) {
                    for start in 0..=chain.len() - len {
                        let window = &chain[start..start + len];
                        if !rectangular(program, &sched, window) {
                            continue;
                        }
                        for perm in permutations(len).into_iter().filter(|p| p.iter().enumerate().any(|(i, x)| i != *x)) {
                            out.push(Transform::Interchange {
                                order: perm.iter().map(|&i| name(program, &sched, window[i])).collect(),
                            });
                        }
                    }
                }
            }
        }
        Stage::Tiling => {
            for chain in chains(&sched) {
                for len in 1..=3.min(chain.len()) {
                    for start in 0..=chain.len() - len {
                        let window = &chain[start..start + len];
                        if !rectangular(program, &sched, window) || window.iter().any(|n| sched.nodes[*n].ent.tile) {
                            continue;
                        }
                        for size in TILE_SIZES {
                            if window.iter().all(|n| trips(*n).is_some_and(|t| t > size as i64)) {
                                out.push(Transform::Tile {
                                    band: window.iter().map(|n| (name(program, &sched, *n), size)).collect(),
                                });
                            }
                        }
                    }
                }
            }
        }
        Stage::Unrolling => {
            for n in innermost(&sched) {
                let mut targets = vec![n];
                if let Some(p) = sched.nodes[n].parent {
                    targets.push(p);
                }
                for t in targets {
                    for factor in UNROLL_FACTORS {
                        out.push(Transform::Unroll { target: name(program, &sched, t), factor });
                    }
                }
            }
        }
        Stage::Parallelization => {
            for chain in chains(&sched) {
                for n in chain.iter().take(2) {
                    out.push(Transform::Parallelize { target: name(program, &sched, *n) });
                }
            }
        }
        Stage::Vectorization => {
            for n in innermost(&sched) {
                for width in VECTOR_WIDTHS {
                    out.push(Transform::Vectorize { target: name(program, &sched, n), width });
                }
            }
        }
    }
    out.dedup();
    out
}
