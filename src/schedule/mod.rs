//! `schedule`: an ordered list of loop transformations over one program, and its text form.
//! Each kind of transformation is one file of [`kinds`] (its text form, what it does to
//! names and to the scheduled tree [`tree`], its features, candidates and C++ entry).
//!
//! Loops are named as the representation names them (`L0`, `L0.1.0`, ...: nest index, then
//! the position among loop children). Tiling adds a tile-space loop above each tiled loop,
//! named after it with `.t` (tiling `L0.0` creates `L0.0.t`); the tiled loop keeps its name
//! and becomes the intra-tile loop. Distributing a loop replaces it by one loop per child
//! (loop or computation, in order), named `.d0`, `.d1`, ... after it (distributing `L0.0`
//! creates `L0.0.d0`, `L0.0.d1`; `L0.0` is gone). A name denotes every loop derived from
//! that loop (an unrolled loop's clean-up copy keeps the name), and a step applies to all
//! of them.
//!
//! Text form (steps separated by `;`, whitespace free):
//!
//! ```text
//! distribute(L0.0)                 split L0.0 into one loop per child (L0.0.d0, L0.0.d1, ...)
//! fuse(L0, L1, 2)                  fuse nest L0 into the next sibling nest L1 over 2 loops
//!                                  (the fused loops keep L1's names)
//! interchange(L0, L0.0.0, L0.0)    reorder a perfectly nested band: these loops, outermost first
//! tile(L0:32, L0.0:64)             tile a band of 1 to 3 loops, a size per loop
//! tile(L0.t:4, L0.0.t:2)           tile the tile loops again (tiles of 4x32 by 2x64), once
//! unroll(L0.0.0:4)                 unroll by 4 (unroll-and-jam when the loop is not innermost)
//! parallelize(L0)                  run the iterations of L0 in parallel (OpenMP)
//! vectorize(L0.0.0:8)              vectorize an innermost loop with 8 lanes
//! accumulate(L0.0.0)               keep each element loaded and stored in L0.0.0 (C[i][j] in
//!                                  the k loop) in a register: loaded before, stored after
//! pack(L0.0, %arg1)                copy what L0.0 reads of argument 1 into a local buffer
//!                                  before it, and read the copy
//! ```

pub mod kinds;
pub mod tile_sizes;
pub mod tree;

pub use kinds::{
    Accumulate, Distribute, Fuse, Interchange, Pack, Parallelize, Stage, Tile, Transform, TransformKind, Unroll, Vectorize,
    STAGES,
};
use std::fmt;
use std::str::FromStr;

/// Whether `schedule` unrolls or vectorizes a tiled loop whose tile size does not divide its
/// trip count: a step that peels the partial last tile first (passes/kinds/Unroll.cpp and
/// Vectorize.cpp). False where the schedule cannot be modeled.
pub fn peels_partial_tiles(program: &crate::ir::Program, schedule: &Schedule) -> bool {
    let Ok(tree) = tree::Scheduled::new(program, schedule) else { return false };
    schedule.steps.iter().any(|step| {
        let target = match step {
            Transform::Unroll(u) => &u.target,
            Transform::Vectorize(v) => &v.target,
            _ => return false,
        };
        let Some(node) = tree.node_named(program, target) else { return false };
        let ent = tree.nodes[node].ent;
        match (tree.tag(ent, Stage::Tile), tree.trip_count(program, node)) {
            (Some(size), Some(trips)) if !ent.is_tile() => trips % size as i64 != 0,
            _ => false,
        }
    })
}

/// A loop name: `L<nest>` followed by `.<child>` path components and `.t` tile markers.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoopName(String);

impl LoopName {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The tile-space loop that tiling this loop creates.
    pub fn tile_loop(&self) -> LoopName {
        LoopName(format!("{}.t", self.0))
    }

    /// The `k`-th loop that distributing this loop creates.
    pub fn part(&self, k: usize) -> LoopName {
        LoopName(format!("{}.d{k}", self.0))
    }

    /// The loop this one is a part of, if it was made by distribution (`L0.0.d1` -> `L0.0`).
    pub fn distributed_from(&self) -> Option<LoopName> {
        let (base, last) = self.0.rsplit_once('.')?;
        let k = last.strip_prefix('d')?;
        (!k.is_empty() && k.bytes().all(|b| b.is_ascii_digit())).then(|| LoopName(base.to_string()))
    }

    /// Index of the nest this loop comes from.
    pub fn nest(&self) -> usize {
        self.0[1..].split('.').next().and_then(|n| n.parse().ok()).unwrap_or(0)
    }

    fn is_valid(s: &str) -> bool {
        let Some(rest) = s.strip_prefix('L') else { return false };
        let mut parts = rest.split('.');
        let first_ok = parts.next().is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
        first_ok && parts.all(|p| p == "t" || digits(p) || p.strip_prefix('d').is_some_and(digits))
    }
}

impl FromStr for LoopName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if LoopName::is_valid(s) {
            Ok(LoopName(s.to_string()))
        } else {
            Err(format!("'{s}' is not a loop name (expected e.g. L0, L0.1, L0.0.t, L0.0.d1)"))
        }
    }
}

impl fmt::Display for LoopName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The version of the schedule language: what a schedule's text means. The tuning records
/// keep it with every schedule and apply only schedules of the current version. Bump it
/// when the text or the meaning of an existing step changes (loop naming, argument order, a
/// kind's semantics); adding a kind leaves old schedules meaning what they meant.
pub const LANGUAGE_VERSION: u32 = 1;

/// Limits on parameters: what the transformation layer accepts.
pub const MAX_TILE_BAND: usize = 3;
/// Levels of tiles: a loop, its tile loop (`L0.t`) and that one's (`L0.t.t`, tiling the
/// tile loop again: L1 and L2 tiles).
pub const MAX_TILE_LEVELS: u8 = 2;
pub const MAX_TILE_SIZE: u32 = 4096;
pub const MAX_UNROLL_FACTOR: u32 = 64;
pub const VECTOR_WIDTHS: [u32; 5] = [2, 4, 8, 16, 32];

/// An ordered list of transformations; the empty schedule is the identity.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Schedule {
    pub steps: Vec<Transform>,
}

impl Schedule {
    pub fn is_identity(&self) -> bool {
        self.steps.is_empty()
    }

    /// The steps on the busiest loop nest (a step counts for each nest it names a loop of):
    /// what `max-depth` bounds. A bound on all steps together would leave a program of
    /// several nests a fraction of a one-nest program's schedule per nest (2mm's two
    /// products need a register tile each, 7 steps apiece).
    pub fn depth(&self) -> usize {
        depth_of(&self.steps, &[])
    }

    /// [`Schedule::depth`] with `more` steps added (the search asks it of every candidate).
    pub fn depth_with(&self, more: &[Transform]) -> usize {
        depth_of(&self.steps, more)
    }
}

fn depth_of(steps: &[Transform], more: &[Transform]) -> usize {
    let mut per_nest: std::collections::BTreeMap<usize, usize> = Default::default();
    for step in steps.iter().chain(more) {
        let mut nests: Vec<usize> = step.loops().iter().map(|l| l.nest()).collect();
        nests.sort_unstable();
        nests.dedup();
        for n in nests {
            *per_nest.entry(n).or_default() += 1;
        }
    }
    per_nest.values().copied().max().unwrap_or(0)
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let steps: Vec<String> = self.steps.iter().map(|s| s.to_string()).collect();
        f.write_str(&steps.join("; "))
    }
}

/// A schedule as the `schedule=` option and `--schedule` take it: optionally aimed at one
/// function with a `@name:` prefix (`@gemm: tile(L0:32, L0.0:32)`); without it, it applies
/// to every function the pass runs on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScheduleSpec {
    pub function: Option<String>,
    pub schedule: Schedule,
}

impl ScheduleSpec {
    pub fn applies_to(&self, function: &str) -> bool {
        self.function.as_deref().is_none_or(|f| f == function)
    }
}

impl FromStr for ScheduleSpec {
    type Err = ParseError;
    fn from_str(text: &str) -> Result<Self, ParseError> {
        let trimmed = text.trim_start();
        let Some(rest) = trimmed.strip_prefix('@') else {
            return Ok(ScheduleSpec { function: None, schedule: text.parse()? });
        };
        let offset = text.len() - rest.len();
        // A symbol name: letters, digits and _ . $ - (MLIR's bare identifiers).
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '-')))
            .unwrap_or(rest.len());
        let name = &rest[..name_len];
        if name.is_empty() {
            return Err(ParseError { column: offset + 1, message: "expected a function name after '@'".into() });
        }
        let after = &rest[name_len..];
        let Some(body) = after.trim_start().strip_prefix(':') else {
            let column = offset + name_len + (after.len() - after.trim_start().len()) + 1;
            return Err(ParseError { column, message: format!("expected ':' after the function name @{name}") });
        };
        let body_offset = text.len() - body.len();
        let schedule = body.parse::<Schedule>().map_err(|e| ParseError {
            column: e.column + body_offset,
            message: e.message,
        })?;
        Ok(ScheduleSpec { function: Some(name.to_string()), schedule })
    }
}

impl fmt::Display for ScheduleSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.function {
            Some(name) => write!(f, "@{name}: {}", self.schedule),
            None => write!(f, "{}", self.schedule),
        }
    }
}

/// A parse error: where (1-based column in the schedule text) and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("schedule:{column}: {message}")]
pub struct ParseError {
    pub column: usize,
    pub message: String,
}

impl FromStr for Schedule {
    type Err = ParseError;
    fn from_str(text: &str) -> Result<Self, ParseError> {
        Parser { text, pos: 0 }.schedule()
    }
}

/// The text form's reader; kinds parse their arguments with its methods.
pub struct Parser<'a> {
    text: &'a str,
    pub(crate) pos: usize,
}

impl Parser<'_> {
    pub(crate) fn err<T>(&self, at: usize, message: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError { column: self.text[..at].chars().count() + 1, message: message.into() })
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.text[self.pos..].chars().next() {
            if c.is_whitespace() {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.text[self.pos..].chars().next()
    }

    pub(crate) fn expect(&mut self, c: char, what: &str) -> Result<(), ParseError> {
        match self.peek() {
            Some(got) if got == c => {
                self.pos += c.len_utf8();
                Ok(())
            }
            Some(got) => self.err(self.pos, format!("expected '{c}' {what}, found '{got}'")),
            None => self.err(self.pos, format!("expected '{c}' {what}, found the end")),
        }
    }

    /// A run of characters that may form a word, a name or a number.
    fn token(&mut self) -> (usize, &str) {
        self.skip_ws();
        let start = self.pos;
        let len = self.text[start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-'))
            .unwrap_or(self.text.len() - start);
        self.pos += len;
        (start, &self.text[start..start + len])
    }

    pub(crate) fn loop_name(&mut self) -> Result<LoopName, ParseError> {
        let (at, tok) = self.token();
        let tok = tok.to_string();
        if tok.is_empty() {
            return match self.peek() {
                Some(c) => self.err(at, format!("expected a loop name, found '{c}'")),
                None => self.err(at, "expected a loop name, found the end"),
            };
        }
        tok.parse().or_else(|e: String| self.err(at, e))
    }

    /// The next word (letters, digits, `.`, `_`, `-`), possibly empty.
    pub(crate) fn word(&mut self) -> String {
        self.token().1.to_string()
    }

    pub(crate) fn number(&mut self, what: &str, min: u64, max: u64) -> Result<u64, ParseError> {
        let (at, tok) = self.token();
        let tok = tok.to_string();
        match tok.parse::<u64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(n),
            Ok(n) => self.err(at, format!("{what} must be in [{min}, {max}], got {n}")),
            Err(_) if tok.is_empty() => self.err(at, format!("expected {what}")),
            Err(_) => self.err(at, format!("expected {what}, found '{tok}'")),
        }
    }

    /// `name:number`
    pub(crate) fn loop_with(&mut self, what: &str, min: u64, max: u64) -> Result<(LoopName, u32), ParseError> {
        let name = self.loop_name()?;
        self.expect(':', &format!("and {what} after {name}"))?;
        let n = self.number(what, min, max)?;
        Ok((name, n as u32))
    }

    pub(crate) fn list<T>(&mut self, mut item: impl FnMut(&mut Self) -> Result<T, ParseError>) -> Result<Vec<T>, ParseError> {
        let mut out = vec![item(self)?];
        while self.peek() == Some(',') {
            self.pos += 1;
            out.push(item(self)?);
        }
        Ok(out)
    }

    fn step(&mut self) -> Result<Transform, ParseError> {
        let (at, word) = self.token();
        let word = word.to_string();
        if word.is_empty() {
            return self.err(at, "expected a transformation");
        }
        if !kinds::NAMES.contains(&word.as_str()) {
            let (last, rest) = kinds::NAMES.split_last().expect("kinds are registered");
            let known = format!("{} or {last}", rest.join(", "));
            return self.err(at, format!("unknown transformation '{word}' (expected {known})"));
        }
        self.expect('(', &format!("after '{word}'"))?;
        let args_at = self.pos;
        let t = Transform::parse_args(&word, self).expect("a registered kind")?;
        self.expect(')', &format!("to close {word}(...)"))?;
        // A loop named twice in one step is a mistake, not a request.
        let names = t.loops();
        for (i, n) in names.iter().enumerate() {
            if names[..i].contains(n) {
                return self.err(args_at, format!("{n} is named twice in {word}"));
            }
        }
        Ok(t)
    }

    fn schedule(mut self) -> Result<Schedule, ParseError> {
        let mut steps = Vec::new();
        loop {
            match self.peek() {
                None => break,
                Some(';') => {
                    self.pos += 1;
                    continue;
                }
                Some(_) => {}
            }
            steps.push(self.step()?);
            match self.peek() {
                None | Some(';') => {}
                Some(c) => return self.err(self.pos, format!("expected ';' between steps, found '{c}'")),
            }
        }
        Ok(Schedule { steps })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(s: &str) -> LoopName {
        s.parse().unwrap()
    }

    #[test]
    fn every_kind_round_trips() {
        let text = "fuse(L0, L1, 2); interchange(L0, L0.0.0, L0.0); tile(L0:32, L0.0:64, L0.0.0:16); \
                    unroll(L0.0.0:4); parallelize(L0.t); vectorize(L0.0.0:8); distribute(L1.0); \
                    accumulate(L0.0.0); pack(L0.0.t, %arg12); pack(L0, %arg2, [1, 0])";
        let s: Schedule = text.parse().unwrap();
        assert_eq!(s.steps.len(), 10);
        assert_eq!(s.steps[8], Transform::Pack(Pack::plain(l("L0.0.t"), 12)));
        assert_eq!(s.steps[9], Transform::Pack(Pack { target: l("L0"), argument: 2, order: vec![1, 0] }));
        assert_eq!(s.to_string(), text);
        assert_eq!(s.to_string().parse::<Schedule>().unwrap(), s);
        assert_eq!(
            s.steps[2],
            Transform::Tile(Tile { band: vec![(l("L0"), 32), (l("L0.0"), 64), (l("L0.0.0"), 16)] })
        );
    }

    #[test]
    fn whitespace_and_separators_are_free() {
        let a: Schedule = " tile( L0 : 32 ,L0.0:32 ) ;;unroll(L0.0:2);".parse().unwrap();
        let b: Schedule = "tile(L0:32, L0.0:32); unroll(L0.0:2)".parse().unwrap();
        assert_eq!(a, b);
        assert!("".parse::<Schedule>().unwrap().is_identity());
        assert!("  ; ".parse::<Schedule>().unwrap().is_identity());
    }

    fn error(text: &str) -> ParseError {
        text.parse::<Schedule>().unwrap_err()
    }

    #[test]
    fn errors_say_where_and_why() {
        let e = error("tile(L0:32); skew(L0)");
        assert_eq!(e.column, 14);
        assert!(e.message.contains("unknown transformation 'skew'"), "{e}");
        let e = error("tile(L0 32)");
        assert_eq!((e.column, e.message.contains("expected ':'")), (9, true), "{e}");
        let e = error("unroll(L0:1)");
        assert!(e.message.contains("unroll factor must be in [2, 64], got 1"), "{e}");
        let e = error("vectorize(L0:6)");
        assert!(e.message.contains("vector width must be one of"), "{e}");
        let e = error("tile(L0:8, L0.0:8, L0.0.0:8, L0.0.0.0:8)");
        assert!(e.message.contains("1 to 3 loops"), "{e}");
        let e = error("interchange(L0)");
        assert!(e.message.contains("at least two loops"), "{e}");
        let e = error("interchange(L0, L0)");
        assert!(e.message.contains("named twice"), "{e}");
        let e = error("parallelize(X0)");
        assert!(e.message.contains("'X0' is not a loop name"), "{e}");
        let e = error("parallelize(L0) vectorize(L0:8)");
        assert!(e.message.contains("expected ';' between steps"), "{e}");
        let e = error("parallelize(L0");
        assert!(e.message.contains("found the end"), "{e}");
        let e = error("pack(L0, %A)");
        assert!(e.message.contains("expected a function argument as %arg<N>"), "{e}");
        assert_eq!(e.column, 11, "{e}");
        let e = error("pack(L0)");
        assert!(e.message.contains("expected ',' and the argument to pack after L0"), "{e}");
        let e = error("pack(L0, %arg1, [1, 1])");
        assert!(e.message.contains("not a permutation of 0..2"), "{e}");
        let e = error("pack(L0, %arg1, 1)");
        assert!(e.message.contains("expected '[' before the copy's order"), "{e}");
        // The identity order is the plain copy, and is written as one.
        let s: Schedule = "pack(L0, %arg1, [0, 1])".parse().unwrap();
        assert_eq!(s.to_string(), "pack(L0, %arg1)");
        assert_eq!(e.to_string(), format!("schedule:{}: {}", e.column, e.message));
    }

    #[test]
    fn function_prefix() {
        let s: ScheduleSpec = "@gemm: tile(L0:32)".parse().unwrap();
        assert_eq!(s.function.as_deref(), Some("gemm"));
        assert!(s.applies_to("gemm") && !s.applies_to("other"));
        assert_eq!(s.to_string().parse::<ScheduleSpec>().unwrap(), s);
        let all: ScheduleSpec = "unroll(L0:2)".parse().unwrap();
        assert!(all.applies_to("anything"));
        let e = "@gemm: tile(L0 32)".parse::<ScheduleSpec>().unwrap_err();
        assert_eq!(e.column, 16, "{e}");
        assert!("@gemm tile(L0:32)".parse::<ScheduleSpec>().unwrap_err().message.contains("expected ':'"));
    }

    #[test]
    fn loop_names() {
        for ok in ["L0", "L12.3.0", "L0.0.t", "L1.t.t", "L0.0.d1", "L0.d0.0.d12.t"] {
            assert!(ok.parse::<LoopName>().is_ok(), "{ok}");
        }
        for bad in ["L", "0", "L0.", "L0..1", "L0.x", "l0", "L-1", "L0.d", "L0.dx", "Ld0"] {
            assert!(bad.parse::<LoopName>().is_err(), "{bad}");
        }
        assert_eq!(l("L3.0.t").nest(), 3);
        assert_eq!(l("L0.1").tile_loop(), l("L0.1.t"));
        assert_eq!(l("L0.1").part(2), l("L0.1.d2"));
        assert_eq!(l("L0.1.d2").distributed_from(), Some(l("L0.1")));
        assert_eq!(l("L0.1").distributed_from(), None);
        assert_eq!(l("L0.d1.0").distributed_from(), None);
    }
}
