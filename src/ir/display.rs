//! A human-readable rendering of a [`Program`]: the loop tree with bounds, and each
//! computation as `buffer[subscripts] = f(loads)` with its operation counts.

use super::repr::*;
use std::fmt::Write;

/// Induction variables are named by depth, like the dimensions of an affine map: the
/// parsed IR keeps no source names, and depth names stay unambiguous within a computation.
fn iv_name(depth: usize) -> String {
    format!("d{depth}")
}

fn linear_text(terms: impl Iterator<Item = (String, i64)>, constant: i64) -> String {
    let mut out = String::new();
    for (name, coeff) in terms {
        let sign = if coeff < 0 { "-" } else { "+" };
        let mag = coeff.abs();
        let term = if mag == 1 { name } else { format!("{mag}*{name}") };
        if out.is_empty() {
            out = if coeff < 0 { format!("-{term}") } else { term };
        } else {
            let _ = write!(out, " {sign} {term}");
        }
    }
    if out.is_empty() {
        return constant.to_string();
    }
    if constant != 0 {
        let _ = write!(out, " {} {}", if constant < 0 { "-" } else { "+" }, constant.abs());
    }
    out
}

fn bound_text(p: &Program, b: &Bound) -> String {
    let terms = b
        .loops
        .iter()
        .map(|t| (iv_name(p.loops[t.of].depth), t.coeff))
        .chain(b.symbols.iter().map(|t| (format!("%arg{}", p.symbols[t.of].argument), t.coeff)));
    linear_text(terms, b.constant)
}

/// One bound: its expression, or `max(..)` / `min(..)` of several.
fn bounds_text<'a>(p: &Program, kind: &str, bounds: impl Iterator<Item = &'a Bound>) -> String {
    let parts: Vec<String> = bounds.map(|b| bound_text(p, b)).collect();
    if parts.len() == 1 {
        parts.into_iter().next().unwrap()
    } else {
        format!("{kind}({})", parts.join(", "))
    }
}

fn access_text(p: &Program, c: &Computation, a: &Access) -> String {
    let subscripts: Vec<String> = a
        .matrix
        .iter()
        .map(|row| {
            let (cols, constant) = row.split_at(row.len() - 1);
            let terms = cols
                .iter()
                .zip(&c.iterators)
                .filter(|(k, _)| **k != 0)
                .map(|(k, l)| (iv_name(p.loops[*l].depth), *k));
            linear_text(terms, constant[0])
        })
        .collect();
    format!("B{}[{}]", a.buffer, subscripts.join(", "))
}

impl Program {
    /// The program as an indented loop tree, for people.
    pub fn to_tree_string(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{self}");
        for b in &self.buffers {
            let origin = match &b.origin {
                BufferOrigin::Argument(i) => format!("argument {i}"),
                BufferOrigin::Local(what) => what.clone(),
            };
            let shape: Vec<String> = b.shape.iter().map(|d| d.to_string()).collect();
            let ty = format!("{:?}", b.element_type).to_lowercase();
            let dims = if shape.is_empty() { ty } else { format!("{}x{ty}", shape.join("x")) };
            let _ = writeln!(out, "  B{} = {}: memref<{dims}>", b.id, origin);
        }
        for nest in &self.nests {
            let _ = writeln!(out, "  nest {} at {}", nest.index, nest.location);
            self.write_loop(&mut out, nest.root, 2);
        }
        for nm in &self.not_modeled {
            let _ = writeln!(out, "  not modeled ({}): {}", nm.location, nm.reason);
        }
        out
    }

    fn write_loop(&self, out: &mut String, id: LoopId, indent: usize) {
        let l = &self.loops[id];
        let pad = "  ".repeat(indent);
        let step = if l.step == 1 { String::new() } else { format!(" step {}", l.step) };
        let trips = l.trip_count.map(|t| format!("  ({t} iterations)")).unwrap_or_default();
        let red = if l.is_reduction { "  reduction" } else { "" };
        let _ = writeln!(
            out,
            "{pad}{}: for {} in [{}, {}){step}{trips}{red}",
            l.name,
            iv_name(l.depth),
            bounds_text(self, "max", l.lowers()),
            bounds_text(self, "min", l.uppers())
        );
        for child in &l.children {
            match child {
                Child::Loop(c) => self.write_loop(out, *c, indent + 1),
                Child::Computation(c) => self.write_computation(out, *c, indent + 1),
            }
        }
    }

    fn write_computation(&self, out: &mut String, id: CompId, indent: usize) {
        let c = &self.computations[id];
        let pad = "  ".repeat(indent);
        let loads: Vec<String> = c.loads.iter().map(|a| access_text(self, c, a)).collect();
        let ops: Vec<String> =
            c.ops.iter().map(|o| format!("{} {:?}.{:?}", o.count, o.kind, o.ty).to_lowercase()).collect();
        let _ = write!(out, "{pad}{}: {} = f({})", c.name, access_text(self, c, &c.store), loads.join(", "));
        if !ops.is_empty() {
            let _ = write!(out, "  ops: {}", ops.join(", "));
        }
        if !c.reduction_loops.is_empty() {
            let names: Vec<&str> = c.reduction_loops.iter().map(|l| self.loops[*l].name.as_str()).collect();
            let _ = write!(out, "  reduces over {}", names.join(", "));
        }
        let _ = writeln!(out);
    }
}
