//! Affine expressions flattened to linear form over loop induction variables and symbols.
//!
//! The representation only admits linear subscripts and bounds (the Tiramisu access matrix,
//! MLSys 2021 §3.2); `mod`, `floordiv` and `ceildiv` are folded when both sides are
//! constants and refused otherwise.

use super::repr::{LoopId, SymbolId};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Linear {
    pub constant: i64,
    pub loops: BTreeMap<LoopId, i64>,
    pub symbols: BTreeMap<SymbolId, i64>,
}

/// Why an expression is not linear.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NonLinear {
    Product,
    Mod,
    FloorDiv,
    CeilDiv,
    Overflow,
}

impl std::fmt::Display for NonLinear {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NonLinear::Product => "a product of two induction variables or symbols",
            NonLinear::Mod => "'mod' of a non-constant",
            NonLinear::FloorDiv => "'floordiv' of a non-constant",
            NonLinear::CeilDiv => "'ceildiv' of a non-constant",
            NonLinear::Overflow => "a constant that overflows 64 bits",
        })
    }
}

impl Linear {
    pub fn constant(c: i64) -> Self {
        Linear { constant: c, ..Default::default() }
    }

    pub fn of_loop(l: LoopId) -> Self {
        let mut out = Linear::default();
        out.loops.insert(l, 1);
        out
    }

    pub fn of_symbol(s: SymbolId) -> Self {
        let mut out = Linear::default();
        out.symbols.insert(s, 1);
        out
    }

    pub fn as_constant(&self) -> Option<i64> {
        (self.loops.is_empty() && self.symbols.is_empty()).then_some(self.constant)
    }

    pub fn add(&self, other: &Linear) -> Result<Linear, NonLinear> {
        let mut out = self.clone();
        out.constant = out.constant.checked_add(other.constant).ok_or(NonLinear::Overflow)?;
        for (k, v) in &other.loops {
            let e = out.loops.entry(*k).or_insert(0);
            *e = e.checked_add(*v).ok_or(NonLinear::Overflow)?;
        }
        for (k, v) in &other.symbols {
            let e = out.symbols.entry(*k).or_insert(0);
            *e = e.checked_add(*v).ok_or(NonLinear::Overflow)?;
        }
        out.loops.retain(|_, v| *v != 0);
        out.symbols.retain(|_, v| *v != 0);
        Ok(out)
    }

    pub fn scale(&self, k: i64) -> Result<Linear, NonLinear> {
        let mul = |v: i64| v.checked_mul(k).ok_or(NonLinear::Overflow);
        let mut out = Linear { constant: mul(self.constant)?, ..Default::default() };
        for (l, v) in &self.loops {
            out.loops.insert(*l, mul(*v)?);
        }
        for (s, v) in &self.symbols {
            out.symbols.insert(*s, mul(*v)?);
        }
        out.loops.retain(|_, v| *v != 0);
        out.symbols.retain(|_, v| *v != 0);
        Ok(out)
    }

    pub fn mul(&self, other: &Linear) -> Result<Linear, NonLinear> {
        match (self.as_constant(), other.as_constant()) {
            (Some(c), _) => other.scale(c),
            (_, Some(c)) => self.scale(c),
            _ => Err(NonLinear::Product),
        }
    }

    /// Folds `op(self, other)` when both sides are constants.
    pub fn fold(
        &self,
        other: &Linear,
        why: NonLinear,
        f: impl Fn(i64, i64) -> Option<i64>,
    ) -> Result<Linear, NonLinear> {
        match (self.as_constant(), other.as_constant()) {
            (Some(a), Some(b)) => f(a, b).map(Linear::constant).ok_or(NonLinear::Overflow),
            _ => Err(why),
        }
    }
}

/// Floor division of integers (affine `floordiv` semantics).
pub fn floor_div(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        return None;
    }
    let q = a.checked_div(b)?;
    Some(if (a % b != 0) && ((a < 0) != (b < 0)) { q - 1 } else { q })
}

/// Ceiling division of integers (affine `ceildiv` semantics).
pub fn ceil_div(a: i64, b: i64) -> Option<i64> {
    Some(-floor_div(a.checked_neg()?, b)?)
}

/// Affine `mod`: the result has the sign of the divisor's absolute value (always >= 0).
pub fn modulo(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        return None;
    }
    Some(a.checked_rem(b)?.rem_euclid(b.abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_keeps_terms_sorted_and_drops_zeros() {
        let i = Linear::of_loop(0);
        let j = Linear::of_loop(1);
        let e = i.add(&j.scale(2).unwrap()).unwrap().add(&Linear::constant(3)).unwrap();
        assert_eq!(e.constant, 3);
        assert_eq!(e.loops.iter().collect::<Vec<_>>(), vec![(&0, &1), (&1, &2)]);
        let z = e.add(&i.scale(-1).unwrap()).unwrap();
        assert!(!z.loops.contains_key(&0));
    }

    #[test]
    fn products_of_variables_are_not_linear() {
        assert_eq!(Linear::of_loop(0).mul(&Linear::of_loop(1)), Err(NonLinear::Product));
        assert_eq!(
            Linear::of_loop(0).mul(&Linear::constant(4)).unwrap().loops[&0],
            4
        );
    }

    #[test]
    fn division_semantics_match_affine() {
        assert_eq!(floor_div(-7, 2), Some(-4));
        assert_eq!(floor_div(7, 2), Some(3));
        assert_eq!(ceil_div(7, 2), Some(4));
        assert_eq!(ceil_div(-7, 2), Some(-3));
        assert_eq!(modulo(-7, 3), Some(2));
        assert_eq!(floor_div(1, 0), None);
    }
}
