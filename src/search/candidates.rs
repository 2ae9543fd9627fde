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
    Distribution,
    Fusion,
    Interchange,
    Tiling,
    Unrolling,
    Parallelization,
    Vectorization,
}

/// Distribution comes first: it turns an imperfect nest into nests that the later stages can
/// interchange and tile (2mm's `C[i][j] = 0` split from its `k` loop).
pub const STAGES: [Stage; 7] = [
    Stage::Distribution,
    Stage::Fusion,
    Stage::Interchange,
    Stage::Tiling,
    Stage::Unrolling,
    Stage::Parallelization,
    Stage::Vectorization,
];

pub const TILE_SIZES: [u32; 4] = [16, 32, 64, 128];
pub const UNROLL_FACTORS: [u32; 3] = [2, 4, 8];
pub const VECTOR_WIDTHS: [u32; 3] = [4, 8, 16];

/// The name of a node of the scheduled loop tree (`.t` for a tile loop).
pub(crate) fn name(program: &Program, sched: &Scheduled, node: usize) -> LoopName {
    sched.loop_name(program, sched.nodes[node].ent).parse().expect("the representation names loops validly")
}

/// The perfectly nested chain of loops from `root` down (node indices).
fn chain_from(sched: &Scheduled, root: usize) -> Vec<usize> {
    let mut chain = vec![root];
    while let [Kid::Node(n)] = sched.nodes[chain[chain.len() - 1]].children.as_slice() {
        chain.push(*n);
    }
    chain
}

/// The perfectly nested chain of every nest, outer nests first: one from each top-level
/// loop, and one from each loop that shares its parent with another loop or a computation
/// (the sweeps under a time loop, the inner nests of an imperfect nest). Interchange,
/// tiling and parallelization work on a chain, so inner nests get their own.
fn chains(sched: &Scheduled) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut stack: Vec<usize> = sched.roots.iter().rev().copied().collect();
    while let Some(root) = stack.pop() {
        let chain = chain_from(sched, root);
        let last = chain[chain.len() - 1];
        out.push(chain);
        let inner = sched.nodes[last].children.iter().rev().filter_map(|k| match k {
            Kid::Node(n) => Some(*n),
            Kid::Comp(_) => None,
        });
        stack.extend(inner);
    }
    out
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
        !l.bound_loops().any(|of| ids.contains(&of))
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
        Stage::Distribution => {
            for (n, node) in sched.nodes.iter().enumerate() {
                let live = sched.node_of(node.ent) == Some(n);
                if live && !node.ent.tile && node.children.len() >= 2 {
                    out.push(Transform::Distribute { target: name(program, &sched, n) });
                }
            }
        }
        Stage::Fusion => {
            // Adjacent top-level nests that are still original roots.
            let roots: Vec<usize> = sched.roots.clone();
            for pair in roots.windows(2) {
                let (a, b) = (sched.nodes[pair[0]].ent, sched.nodes[pair[1]].ent);
                // Parts of one distributed loop are not fused back together.
                if a.tile || b.tile || a.loop_id == b.loop_id || program.loops[a.loop_id].parent.is_some() || program.loops[b.loop_id].parent.is_some() {
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
                for len in 2..=chain.len() {
                    for start in 0..=chain.len() - len {
                        let window = &chain[start..start + len];
                        if !rectangular(program, &sched, window) {
                            continue;
                        }
                        // Short windows: every order; longer ones: sink the outermost loop to
                        // the bottom or hoist the innermost to the top (bringing a contiguous
                        // dimension innermost, conv2d's w under c, r, s), not all len! orders.
                        let perms = if len <= 3 {
                            permutations(len)
                        } else {
                            vec![(1..len).chain([0]).collect(), [len - 1].into_iter().chain(0..len - 1).collect()]
                        };
                        for perm in perms.into_iter().filter(|p| p.iter().enumerate().any(|(i, x)| i != *x)) {
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

/// Steps of one stage taken together, from the single steps of that stage found legal after
/// `schedule` (in candidate order). One step per stage leaves all but one nest of a
/// multi-nest program untouched (the two sweeps of a stencil under its time loop); these
/// combinations give every nest the same kind of step at once:
/// - parallelization: the outermost legal loop of each nest, never one inside another;
/// - vectorization: every legal innermost loop at one width;
/// - unrolling: every legal innermost loop by one factor;
/// - distribution: a legal loop and then the loops around it, one by one up to the top
///   (each now holds several parts), which leaves perfect nests; and all of them at once.
///
/// Only combinations of two or more steps are returned; the caller checks their legality
/// as a whole.
pub fn combinations(program: &Program, schedule: &Schedule, stage: Stage, legal: &[Transform]) -> Vec<Vec<Transform>> {
    let Ok(sched) = Scheduled::new(program, schedule) else { return Vec::new() };
    let node_of = |target: &LoopName| (0..sched.nodes.len()).find(|&n| name(program, &sched, n) == *target);
    let inside = |inner: usize, outer: usize| {
        let mut p = sched.nodes[inner].parent;
        while let Some(q) = p {
            if q == outer {
                return true;
            }
            p = sched.nodes[q].parent;
        }
        false
    };
    let mut out = Vec::new();
    match stage {
        Stage::Parallelization => {
            let mut chosen: Vec<(usize, &Transform)> = Vec::new();
            for t in legal {
                let Transform::Parallelize { target } = t else { continue };
                let Some(n) = node_of(target) else { continue };
                if chosen.iter().all(|&(c, _)| c != n && !inside(n, c) && !inside(c, n)) {
                    chosen.push((n, t));
                }
            }
            if chosen.len() >= 2 {
                out.push(chosen.into_iter().map(|(_, t)| t.clone()).collect());
            }
        }
        Stage::Vectorization => {
            for w in VECTOR_WIDTHS {
                let all: Vec<Transform> =
                    legal.iter().filter(|t| matches!(t, Transform::Vectorize { width, .. } if *width == w)).cloned().collect();
                if all.len() >= 2 {
                    out.push(all);
                }
            }
        }
        Stage::Unrolling => {
            let leaves = innermost(&sched);
            for f in UNROLL_FACTORS {
                let all: Vec<Transform> = legal
                    .iter()
                    .filter(|t| match t {
                        Transform::Unroll { target, factor } => {
                            *factor == f && node_of(target).is_some_and(|n| leaves.contains(&n))
                        }
                        _ => false,
                    })
                    .cloned()
                    .collect();
                if all.len() >= 2 {
                    out.push(all);
                }
            }
        }
        Stage::Distribution => {
            // Ancestors keep their names when a loop inside them is distributed.
            let outward = |n: usize| {
                let mut chain = vec![n];
                while let Some(p) = sched.nodes[chain[chain.len() - 1]].parent {
                    if sched.nodes[p].ent.tile {
                        break;
                    }
                    chain.push(p);
                }
                chain
            };
            let step = |n: usize| Transform::Distribute { target: name(program, &sched, n) };
            let mut everything: Vec<usize> = Vec::new();
            for t in legal {
                let Transform::Distribute { target } = t else { continue };
                let Some(n) = node_of(target) else { continue };
                let chain = outward(n);
                for len in 2..=chain.len() {
                    out.push(chain[..len].iter().map(|&m| step(m)).collect());
                }
                everything.extend(chain);
            }
            // Innermost first, so that each loop holds its parts when its turn comes.
            everything.sort_by_key(|&n| std::cmp::Reverse(sched.depth(n)));
            let mut seen = std::collections::HashSet::new();
            everything.retain(|n| seen.insert(*n));
            let all: Vec<Transform> = everything.into_iter().map(step).collect();
            if all.len() >= 2 && !out.contains(&all) {
                out.push(all);
            }
        }
        Stage::Fusion | Stage::Interchange | Stage::Tiling => {}
    }
    out
}
