//! `interchange(L0, L0.0.0, L0.0)`: reorder a perfectly nested band; the loops are listed
//! outermost first in their new order.

use super::{permutations, Memo, Names, Stage, Transform, TransformKind};
use crate::features::layout::Kind as FieldKind;
use crate::ir::Program;
use crate::schedule::tree::{LoopAt, Scheduled, TreeError};
use crate::schedule::{LoopName, ParseError, Parser};
use crate::transform::ffi::{self, Call};
use std::ffi::{c_char, CString};
use std::fmt;

/// Loop orders per state that [`Interchange::lookahead`] takes on to register tiles, at most.
const LOOKAHEAD_ORDERS: usize = 3;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Interchange {
    pub order: Vec<LoopName>,
}

impl TransformKind for Interchange {
    const NAME: &'static str = "interchange";
    /// Interchange.cpp permutes the named band in place (its dependences are the band's).
    const LOCAL: bool = true;
    const SINCE_LAYOUT: u32 = 1;
    const FEATURES: &'static [(&'static str, FieldKind)] = &[("interchanged", FieldKind::Bool)];
    const WALK_PROBABILITY: f64 = 0.45;
    const STRUCTURAL: bool = true;

    fn parse(p: &mut Parser) -> Result<Self, ParseError> {
        let at = p.pos;
        let order = p.list(|p| p.loop_name())?;
        if order.len() < 2 {
            return p.err(at, "interchange needs at least two loops");
        }
        Ok(Interchange { order })
    }

    fn write_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.order.iter().map(|l| l.to_string()).collect();
        f.write_str(&names.join(", "))
    }

    fn loops(&self) -> Vec<&LoopName> {
        self.order.iter().collect()
    }

    fn rename(&self, _names: &mut Names) -> Result<(), String> {
        Ok(())
    }

    fn reshape(&self, tree: &mut Scheduled, step: usize) -> Result<(), TreeError> {
        let mut found = Vec::new();
        for n in &self.order {
            found.push(tree.resolve(step, n)?);
        }
        let mut slots: Vec<usize> = found.iter().map(|(_, node)| *node).collect();
        slots.sort_by_key(|n| tree.depth(*n));
        for ((ent, old), slot) in found.iter().zip(&slots) {
            if old != slot {
                // The features tag the point loop, also when its tile loop moved.
                tree.set_tag(ent.at_level(0), Stage::Interchange, 1);
            }
            tree.nodes[*slot].ent = *ent;
            tree.at.insert(*ent, *slot);
        }
        Ok(())
    }

    fn features(_program: &Program, tree: &Scheduled, at: &LoopAt, set: &mut dyn FnMut(&'static str, f64)) {
        set("interchanged", tree.tag(at.point, Stage::Interchange).is_some() as u8 as f64);
    }

    fn candidates(program: &Program, tree: &Scheduled) -> Vec<Self> {
        let mut out = Vec::new();
        for chain in tree.chains() {
            for len in 2..=chain.len() {
                for start in 0..=chain.len() - len {
                    let window = &chain[start..start + len];
                    if !tree.rectangular(program, window) {
                        continue;
                    }
                    // Short windows: every order; longer ones: sink the outermost loop to the
                    // bottom or hoist the innermost to the top (bringing a contiguous
                    // dimension innermost, conv2d's w under c, r, s), not all len! orders.
                    let perms = if len <= 3 {
                        permutations(len)
                    } else {
                        vec![(1..len).chain([0]).collect(), [len - 1].into_iter().chain(0..len - 1).collect()]
                    };
                    for perm in perms.into_iter().filter(|p| p.iter().enumerate().any(|(i, x)| i != *x)) {
                        out.push(Interchange { order: perm.iter().map(|&i| tree.name(program, window[i])).collect() });
                    }
                }
            }
        }
        out
    }

    /// The state's own loop order and each legal interchange (at most
    /// [`LOOKAHEAD_ORDERS`] that have one), taken on to register tiles around an innermost
    /// reduction ([`super::accumulate::register_tile_sequences`]): the beam keeps the orders
    /// that vectorize the innermost loop, and drops those whose reduction stays innermost
    /// before a register tile would show their worth (pointwise-conv's k-h-w-c as an 8x8
    /// tile over k and w ran 30.5x the naive code, its best vectorized order 12.6x).
    fn lookahead(program: &Program, tree: &Scheduled, legal: &[Self]) -> Vec<Vec<Transform>> {
        let mut out = super::accumulate::register_tile_sequences(program, tree);
        let mut orders = (!out.is_empty()) as usize;
        for i in legal {
            if orders == LOOKAHEAD_ORDERS {
                break;
            }
            let mut child = tree.clone();
            if i.reshape(&mut child, 1).is_err() {
                continue;
            }
            let sequences = super::accumulate::register_tile_sequences(program, &child);
            orders += !sequences.is_empty() as usize;
            out.extend(sequences.into_iter().map(|seq| std::iter::once(Transform::Interchange(i.clone())).chain(seq).collect()));
        }
        out
    }

    fn apply(&self, call: &mut Call) -> i32 {
        let names: Vec<CString> = self.order.iter().map(|l| ffi::cstring(l.as_str())).collect();
        let ptrs: Vec<*const c_char> = names.iter().map(|c| c.as_ptr()).collect();
        let (report, ctx) = call.report();
        // SAFETY: the clone is live; the names outlive the call.
        unsafe { ffi::autosched_tx_interchange(call.func, ptrs.as_ptr(), ptrs.len(), report, ctx) }
    }

    /// Decided from the band's dependences, analysed once per band and state for the orders
    /// the search proposes of it: every order of two or three loops, the two rotations of
    /// longer bands (an order given is one of them; the other is computed with it under
    /// both readings). The analysis is what checking an interchange costs (a 7-deep
    /// convolution's took 0.3 s). A refusal that is not a dependence's is left to `apply`,
    /// for its reason.
    fn check_in_place(&self, call: &mut Call, memo: &mut Memo) -> Option<i32> {
        let n = self.order.len();
        let mut set: Vec<&str> = self.order.iter().map(|l| l.as_str()).collect();
        set.sort_unstable();
        let mine: Vec<usize> = self.order.iter().map(|l| set.iter().position(|s| *s == l.as_str()).unwrap()).collect();
        let known = |facts: &[i64]| facts.chunks(n + 1).find(|f| f[..n].iter().zip(&mine).all(|(a, b)| *a == *b as i64)).map(|f| f[n] as i32);
        let key = format!("interchange {}", set.join(","));
        let status = match memo.get(&key).map(|f| f.as_ref().map(|facts| known(facts))) {
            Some(Err(_)) => return None,
            Some(Ok(Some(status))) => status,
            _ => {
                let orders = if n <= 3 {
                    permutations(n)
                } else {
                    // Mine as the outermost loop sunk (the nest was its last loop first, then
                    // the others), and as the innermost hoisted (its first loop last): each
                    // reading's other rotation.
                    let sunk_nest: Vec<usize> = [mine[n - 1]].into_iter().chain(mine[..n - 1].iter().copied()).collect();
                    let hoisted_nest: Vec<usize> = mine[1..].iter().copied().chain([mine[0]]).collect();
                    let hoist = |nest: &[usize]| -> Vec<usize> { nest[n - 1..].iter().chain(&nest[..n - 1]).copied().collect() };
                    let sink = |nest: &[usize]| -> Vec<usize> { nest[1..].iter().chain(&nest[..1]).copied().collect() };
                    vec![mine.clone(), hoist(&sunk_nest), sink(&hoisted_nest)]
                };
                let verdicts = match self.orders(call, &set, &orders) {
                    Ok(v) => v,
                    Err(e) => {
                        memo.insert(key, Err(e));
                        return None;
                    }
                };
                let facts = memo.entry(key).or_insert_with(|| Ok(Vec::new())).as_mut().ok()?;
                for (o, v) in orders.iter().zip(verdicts) {
                    facts.extend(o.iter().map(|&i| i as i64).chain([v as i64]));
                }
                known(facts)?
            }
        };
        if status != ffi::AUTOSCHED_TX_OK as i32 {
            // As Interchange.cpp words it.
            let order: Vec<&str> = self.order.iter().map(|l| l.as_str()).collect();
            call.say(&format!(
                "interchange({}) would reverse a dependence (a dependence vector would become lexicographically negative)",
                order.join(", ")
            ));
        }
        Some(status)
    }
}

impl Interchange {
    /// The verdicts for `orders` (indices into `set`, the band's names) on `call.func`,
    /// unchanged: autosched_tx_interchange_orders.
    fn orders(&self, call: &mut Call, set: &[&str], orders: &[Vec<usize>]) -> Result<Vec<i32>, (i32, String)> {
        let n = set.len();
        let flat: Vec<u32> = orders.iter().flatten().map(|&i| i as u32).collect();
        let mut statuses = vec![0i32; orders.len()];
        let names: Vec<CString> = set.iter().map(|l| ffi::cstring(l)).collect();
        let ptrs: Vec<*const c_char> = names.iter().map(|c| c.as_ptr()).collect();
        let mut probe = Call::new(call.func);
        let (report, ctx) = probe.report();
        // SAFETY: the clone is live and only read; the buffers hold n names, k * n indices
        // and k statuses, and outlive the call.
        let status = unsafe {
            ffi::autosched_tx_interchange_orders(call.func, ptrs.as_ptr(), n, flat.as_ptr(), orders.len(), statuses.as_mut_ptr(), report, ctx)
        };
        if status != ffi::AUTOSCHED_TX_OK as i32 {
            return Err((status, probe.into_reason()));
        }
        Ok(statuses)
    }
}
