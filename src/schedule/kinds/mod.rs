//! The transformation kinds, one file each, and the registry that ties them together.
//!
//! A kind's file owns everything about it: its text form (arguments between the
//! parentheses), what it does to loop names ([`Names`]) and to the scheduled loop tree
//! ([`Scheduled`]), the loop features it sets, its candidates (and combinations) for the
//! search, how often the data generator's walks take it, and its one typed entry into the
//! C++ layer (legality check and application, `passes/kinds/<Kind>.cpp`). It does so by
//! implementing [`TransformKind`]; the [`registry!`] line below makes it a variant of
//! [`Transform`] and a stage of the search. A kind that misses a piece does not compile,
//! and neither does a fuzz oracle that does not model it (`fuzz::oracle` matches every
//! variant).
//!
//! Adding a kind: a file here, its C++ in `passes/kinds/` (declared in its header there;
//! the Rust bindings are generated from it), and one line in [`registry!`]'s invocation,
//! whose order is the search's stage order.

use super::tree::{LoopAt, Scheduled, TreeError};
use super::{LoopName, ParseError, Parser};
use crate::features::layout::Kind as FieldKind;
use crate::ir::Program;
use crate::transform::ffi::Call;
use std::collections::BTreeSet;
use std::fmt;
use std::hash::Hash;

/// What a kind of transformation is made of. See the module documentation.
pub trait TransformKind: Clone + fmt::Debug + PartialEq + Eq + Hash + Into<Transform> + Sized {
    /// The keyword of the text form: `tile` in `tile(L0:32)`.
    const NAME: &'static str;
    /// The loop features this kind sets, in layout order (its section of
    /// `features::layout::loop_fields`).
    const FEATURES: &'static [(&'static str, FieldKind)];
    /// The layout version that added this kind's features (`features::layout`): a model
    /// trained on an earlier layout does not see this kind, and the search does not ask it
    /// about steps of it. A new kind with features takes the next version.
    const SINCE_LAYOUT: u32;
    /// Fields a later layout version added to the kind's section (with that version), for
    /// what an older model never saw of it (a second level of tiles); placed after
    /// [`TransformKind::FEATURES`]. None by default.
    const LATER_FEATURES: (u32, &'static [(&'static str, FieldKind)]) = (0, &[]);
    /// The layout version whose features describe this step; [`TransformKind::SINCE_LAYOUT`]
    /// unless the step is one that [`TransformKind::LATER_FEATURES`] describe.
    fn layout_needed(&self) -> u32 {
        Self::SINCE_LAYOUT
    }
    /// How often a random walk of the data generator takes a step of this kind at its stage
    /// (the search visits every stage; the walk skips some, so that short schedules are
    /// common in the data, as they are among the beam's states).
    const WALK_PROBABILITY: f64;
    /// Whether the step builds the loop structure (which loops exist, how they nest) rather
    /// than refining loops in place. The search measures the best schedule of each distinct
    /// structure; the layout puts these kinds' features before the loop's final position.
    const STRUCTURAL: bool;

    /// Parses the arguments (between the parentheses).
    fn parse(p: &mut Parser) -> Result<Self, ParseError>;
    /// Writes the arguments, as [`TransformKind::parse`] reads them.
    fn write_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    /// Every loop the step names.
    fn loops(&self) -> Vec<&LoopName>;
    /// What the step does to the names of live loops; an error says why the step cannot
    /// run at this point of the schedule.
    fn rename(&self, names: &mut Names) -> Result<(), String>;
    /// What the step does to the scheduled loop tree (and the tags it leaves there).
    fn reshape(&self, tree: &mut Scheduled, step: usize) -> Result<(), TreeError>;
    /// The kind's loop features for one original loop of a computation (`at`), by name.
    fn features(program: &Program, tree: &Scheduled, at: &LoopAt, set: &mut dyn FnMut(&'static str, f64));
    /// The candidate steps of this kind for the tree after a schedule, in a deterministic
    /// order (only candidates: the search keeps those the C++ layer accepts).
    fn candidates(program: &Program, tree: &Scheduled) -> Vec<Self>;
    /// Steps of this kind taken together, made of the single steps found legal (in
    /// candidate order); only combinations of two or more steps. None by default.
    fn combinations(_program: &Program, _tree: &Scheduled, _legal: &[Self]) -> Vec<Vec<Self>> {
        Vec::new()
    }
    /// Whether [`TransformKind::combinations`] can return anything (the walk then tries
    /// every candidate, as the search does).
    const HAS_COMBINATIONS: bool = false;
    /// Whether the step's checks and its application read and change only the loops it
    /// names and what they contain (not the function's other nests): a search checks such a
    /// step, and a sequence of such steps, on a copy of the top-level nests holding those
    /// loops alone, not of the whole state (`transform::Prefix::check_keeping`). A fusion
    /// reads the nests between the two it joins.
    const LOCAL: bool = false;
    /// Sequences that begin with one of this kind's legal single steps (`legal`, in
    /// candidate order) and go on with steps of later stages, for steps whose worth shows
    /// only with those: the search checks and scores them at this stage, as children of the
    /// state. A beam that scores each stage's steps alone drops them before the stage that
    /// would show their worth (gemm's i-j-k band tiled runs no faster until `accumulate` and
    /// two unroll-and-jams make a register tile of it, and then runs 2x the best other
    /// schedule). Every step is one the later stages propose on their own, so the random
    /// walks of the data generator reach the same schedules. None by default.
    fn lookahead(_program: &Program, _tree: &Scheduled, _legal: &[Self]) -> Vec<Vec<Transform>> {
        Vec::new()
    }
    /// Checks and applies the step on the tagged clone (`call.func`): one typed call into
    /// `passes/kinds/<Kind>.cpp`, returning its status.
    fn apply(&self, call: &mut Call) -> i32;
    /// The status [`TransformKind::apply`] would return, decided without changing
    /// `call.func` from facts the kind learns once per key of its own and keeps in `memo`
    /// (the steps of one search state that differ only in parameters the facts decide share
    /// them: a band's dependences decide every tile size). None: no shortcut here; the step
    /// is applied to a copy. A shortcut must give apply's verdict and reason (tests/search.rs
    /// compares them).
    fn check_in_place(&self, _call: &mut Call, _memo: &mut Memo) -> Option<i32> {
        None
    }
    /// As [`TransformKind::apply`], on a copy of a search state made to check the step
    /// there (no shortcut decided it): facts the kind keeps in the state's `memo` may stand
    /// in for analyses of `call.func`, which is still that state's IR (the steps of a state
    /// that differ only in a parameter share one analysis: a loop's dependences decide every
    /// vector width). Same status and reason as `apply`, which is the default.
    fn apply_in_check(&self, call: &mut Call, _memo: &mut Memo) -> i32 {
        self.apply(call)
    }
    /// The status [`TransformKind::apply`] would return on `call.func` (unchanged) when its
    /// dependence verdict is known to be legal from elsewhere: only the cheap checks (the
    /// loops exist, the step's structural conditions). None: the kind has no such split,
    /// and its verdict must come from its own check.
    fn check_given_dependences(&self, _call: &mut Call) -> Option<i32> {
        None
    }
    /// As [`TransformKind::apply`], for a step already checked on this very function (or
    /// proven legal from a check): the analyses that decided the verdict are not run again.
    /// By default the same as `apply`.
    fn apply_checked(&self, call: &mut Call) -> i32 {
        self.apply(call)
    }
    /// An upstream Transform-dialect op that does exactly what `apply` would do to the
    /// tagged clone `call.func` (which the step has not changed), for the scripts of
    /// `transform::script`. None (the default): the script uses `transform.autosched.step`.
    fn upstream(&self, _call: &mut Call) -> Option<Upstream> {
        None
    }
}

/// An upstream Transform-dialect op for one step: `op` applied to a handle to every loop
/// named `target`, written with `{loop}` where the handle goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Upstream {
    pub target: String,
    pub op: String,
}

/// What [`TransformKind::check_in_place`] learned about one state, by a key of the kind's:
/// facts (numbers) that decide the steps sharing the key, or the C++ layer's refusal of them
/// all (status and reason).
pub type Memo = std::collections::HashMap<String, Result<Vec<i64>, (i32, String)>>;

/// The names live at one point of a schedule, as [`TransformKind::rename`] updates them.
#[derive(Debug)]
pub struct Names<'p> {
    pub program: &'p Program,
    /// The step being checked (1-based).
    pub step: usize,
    pub live: BTreeSet<String>,
    /// Loops distributed so far: their parts (`.d<k>`) exist, how many depends on the tree.
    pub distributed: BTreeSet<String>,
    /// Loops an earlier step consumed: (name, step, kind).
    pub gone: Vec<(String, usize, &'static str)>,
    /// The first step that copies or replaces statements (unroll, vectorize).
    pub copies_statements: Option<usize>,
}

impl Names<'_> {
    /// Marks `name` consumed by the current step of kind `kind`.
    pub fn consume(&mut self, name: &str, kind: &'static str) {
        self.live.remove(name);
        self.gone.push((name.to_string(), self.step, kind));
    }
}

/// The steps of one kind among steps of any kinds (a stage's legal steps, handed to the
/// kind's `combinations` and `lookahead`).
trait OfKind: Sized {
    fn of_kind(steps: &[Transform]) -> Vec<Self>;
}

/// The sizes a register tile's band is tiled at (the Tile stage's lookahead; `autosched
/// tile-sizes --register`).
pub use tile::{register_kernel, register_tile_sizes};

/// Declares the kinds, in the search's stage order: each line `Variant => module` makes
/// `module::Variant` (a [`TransformKind`]) a variant of [`Transform`] and of [`Stage`].
macro_rules! registry {
    ($($variant:ident => $module:ident),* $(,)?) => {
        $(mod $module; pub use $module::$variant;)*

        /// One transformation: a step of a schedule.
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum Transform {
            $($variant($variant),)*
        }

        $(impl From<$variant> for Transform {
            fn from(k: $variant) -> Transform {
                Transform::$variant(k)
            }
        })*

        /// A stage of the search: one kind of step, in registry order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Stage {
            $($variant,)*
        }

        /// The stages, in the order the search visits them.
        pub const STAGES: &[Stage] = &[$(Stage::$variant,)*];

        /// The keywords of the text form, in stage order.
        pub const NAMES: &[&str] = &[$(<$variant as TransformKind>::NAME,)*];

        /// Every kind's section of the loop features, in stage order, with whether the kind
        /// is structural and the layout version that added the section.
        pub const FEATURE_SECTIONS: &[(bool, u32, &[(&str, FieldKind)])] = &[$((
            <$variant as TransformKind>::STRUCTURAL,
            <$variant as TransformKind>::SINCE_LAYOUT,
            <$variant as TransformKind>::FEATURES,
        ), (
            <$variant as TransformKind>::STRUCTURAL,
            <$variant as TransformKind>::LATER_FEATURES.0,
            <$variant as TransformKind>::LATER_FEATURES.1,
        ),)*];

        impl Transform {
            /// The layout version a model needs to see this step.
            pub fn layout_needed(&self) -> u32 {
                match self {
                    $(Transform::$variant(k) => k.layout_needed(),)*
                }
            }

            pub fn stage(&self) -> Stage {
                match self {
                    $(Transform::$variant(_) => Stage::$variant,)*
                }
            }

            /// The keyword of the text form.
            pub fn kind(&self) -> &'static str {
                self.stage().name()
            }

            /// Every loop the step names.
            pub fn loops(&self) -> Vec<&LoopName> {
                match self {
                    $(Transform::$variant(k) => k.loops(),)*
                }
            }

            pub(crate) fn rename(&self, names: &mut Names) -> Result<(), String> {
                match self {
                    $(Transform::$variant(k) => k.rename(names),)*
                }
            }

            pub(crate) fn reshape(&self, tree: &mut Scheduled, step: usize) -> Result<(), TreeError> {
                match self {
                    $(Transform::$variant(k) => k.reshape(tree, step),)*
                }
            }

            pub(crate) fn apply(&self, call: &mut Call) -> i32 {
                match self {
                    $(Transform::$variant(k) => k.apply(call),)*
                }
            }

            pub(crate) fn check_in_place(&self, call: &mut Call, memo: &mut Memo) -> Option<i32> {
                match self {
                    $(Transform::$variant(k) => k.check_in_place(call, memo),)*
                }
            }

            pub(crate) fn apply_in_check(&self, call: &mut Call, memo: &mut Memo) -> i32 {
                match self {
                    $(Transform::$variant(k) => k.apply_in_check(call, memo),)*
                }
            }

            pub(crate) fn check_given_dependences(&self, call: &mut Call) -> Option<i32> {
                match self {
                    $(Transform::$variant(k) => k.check_given_dependences(call),)*
                }
            }

            pub(crate) fn apply_checked(&self, call: &mut Call) -> i32 {
                match self {
                    $(Transform::$variant(k) => k.apply_checked(call),)*
                }
            }

            pub(crate) fn upstream(&self, call: &mut Call) -> Option<Upstream> {
                match self {
                    $(Transform::$variant(k) => k.upstream(call),)*
                }
            }

            fn write_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $(Transform::$variant(k) => k.write_args(f),)*
                }
            }

            /// Parses the arguments of the kind named `word`; None when no kind has that name.
            pub(crate) fn parse_args(word: &str, p: &mut Parser) -> Option<Result<Transform, ParseError>> {
                $(if word == <$variant as TransformKind>::NAME {
                    return Some(<$variant as TransformKind>::parse(p).map(Transform::$variant));
                })*
                None
            }
        }

        impl Stage {
            /// The keyword of the kind.
            pub fn name(self) -> &'static str {
                match self {
                    $(Stage::$variant => <$variant as TransformKind>::NAME,)*
                }
            }

            pub fn walk_probability(self) -> f64 {
                match self {
                    $(Stage::$variant => <$variant as TransformKind>::WALK_PROBABILITY,)*
                }
            }

            /// The layout version that added this kind's features.
            pub fn since_layout(self) -> u32 {
                match self {
                    $(Stage::$variant => <$variant as TransformKind>::SINCE_LAYOUT,)*
                }
            }

            pub fn structural(self) -> bool {
                match self {
                    $(Stage::$variant => <$variant as TransformKind>::STRUCTURAL,)*
                }
            }

            pub fn local(self) -> bool {
                match self {
                    $(Stage::$variant => <$variant as TransformKind>::LOCAL,)*
                }
            }

            pub fn has_combinations(self) -> bool {
                match self {
                    $(Stage::$variant => <$variant as TransformKind>::HAS_COMBINATIONS,)*
                }
            }

            pub(crate) fn candidates(self, program: &Program, tree: &Scheduled) -> Vec<Transform> {
                match self {
                    $(Stage::$variant => {
                        <$variant as TransformKind>::candidates(program, tree).into_iter().map(Transform::$variant).collect()
                    })*
                }
            }

            pub(crate) fn combinations(self, program: &Program, tree: &Scheduled, legal: &[Transform]) -> Vec<Vec<Transform>> {
                match self {
                    $(Stage::$variant => {
                        <$variant as TransformKind>::combinations(program, tree, &<$variant as OfKind>::of_kind(legal))
                            .into_iter()
                            .map(|c| c.into_iter().map(Transform::$variant).collect())
                            .collect()
                    })*
                }
            }

            pub(crate) fn lookahead(self, program: &Program, tree: &Scheduled, legal: &[Transform]) -> Vec<Vec<Transform>> {
                match self {
                    $(Stage::$variant => {
                        <$variant as TransformKind>::lookahead(program, tree, &<$variant as OfKind>::of_kind(legal))
                    })*
                }
            }
        }

        $(impl OfKind for $variant {
            fn of_kind(steps: &[Transform]) -> Vec<Self> {
                steps
                    .iter()
                    .filter_map(|t| match t {
                        Transform::$variant(k) => Some(k.clone()),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    })
                    .collect()
            }
        })*

        /// Every kind's loop features for one original loop of a computation.
        pub(crate) fn loop_features(program: &Program, tree: &Scheduled, at: &LoopAt, set: &mut dyn FnMut(&'static str, f64)) {
            $(<$variant as TransformKind>::features(program, tree, at, set);)*
        }
    };
}

registry! {
    Distribute => distribute,
    Fuse => fuse,
    Interchange => interchange,
    Tile => tile,
    Pack => pack,
    Accumulate => accumulate,
    Unroll => unroll,
    Parallelize => parallelize,
    Vectorize => vectorize,
}

pub use tile::{fitted_size, TILE_SIZES};
pub use unroll::register_tile_unrolls;

impl fmt::Display for Transform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.kind())?;
        self.write_args(f)?;
        f.write_str(")")
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `name:number` pairs, comma separated (the form of tile, unroll and vectorize arguments).
pub(crate) fn write_pairs(f: &mut fmt::Formatter<'_>, pairs: &[(&LoopName, u32)]) -> fmt::Result {
    for (i, (l, n)) in pairs.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{l}:{n}")?;
    }
    Ok(())
}

/// Every permutation of `0..n`, sorted.
pub(crate) fn permutations(n: usize) -> Vec<Vec<usize>> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::layout;

    #[test]
    fn kinds_have_distinct_names_and_their_own_features() {
        let mut names: Vec<&str> = NAMES.to_vec();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), NAMES.len(), "two kinds share a keyword");
        let fields: Vec<&str> = layout::loop_fields().iter().map(|(n, _)| *n).collect();
        for (_, _, section) in FEATURE_SECTIONS {
            for (name, kind) in section.iter() {
                assert_eq!(fields.iter().filter(|f| *f == name).count(), 1, "{name} is not in the layout once");
                let at = fields.iter().position(|f| f == name).unwrap();
                assert_eq!(layout::loop_fields()[at].1, *kind);
            }
        }
        assert_eq!(STAGES.len(), NAMES.len());
        for (stage, name) in STAGES.iter().zip(NAMES) {
            assert_eq!(stage.name(), *name);
        }
    }

    #[test]
    fn the_registry_keeps_the_layouts_models_were_trained_on() {
        // Layout version 1 (before accumulate) is the list the first models were trained
        // on; moving features into the kinds changed none of it.
        let v1 = [
            "present", "lower", "upper", "extent", "step", "non_rectangular", "reduction", "fused", "interchanged",
            "final_depth", "innermost", "tiled", "tile_size", "tile_loop_depth", "unrolled", "unroll_factor",
            "tile_loop_unroll_factor", "parallel", "tile_loop_parallel", "vectorized", "vector_width",
        ];
        let fields: Vec<&str> = layout::loop_fields_at(1).iter().map(|(n, _)| *n).collect();
        assert_eq!(fields, v1);
        assert_eq!(layout::spec_at(1).hash, "2cb62709afa2b6a0");
        // The shipped model's layout is one the featurizer can still produce.
        let shipped: serde_json::Value = serde_json::from_str(include_str!("../../../onnx/layout.json")).unwrap();
        let hash = shipped["hash"].as_str().unwrap();
        assert!((1..=layout::LAYOUT_VERSION).any(|v| layout::spec_at(v).hash == hash), "onnx/layout.json: unknown layout {hash}");
        // Version 2 adds accumulate's field after the tile loop's.
        let v2: Vec<&str> = layout::loop_fields_at(2).iter().map(|(n, _)| *n).collect();
        assert_eq!(v2.len(), v1.len() + 1);
        assert_eq!(v2[14], "accumulated");
        // Version 3 adds the second level of tiles after the first, then pack's two fields,
        // before accumulate's.
        let v3: Vec<&str> = layout::loop_fields_at(3).iter().map(|(n, _)| *n).collect();
        assert_eq!(v3[11..19], ["tiled", "tile_size", "tile_loop_depth", "tile2_size", "tile2_loop_depth", "packed_loads", "packed_elements", "accumulated"]);
        assert_eq!(v3.len(), v2.len() + 4);
        // Version 4 appends the working set, version 5 the strides.
        let v4: Vec<&str> = layout::loop_fields_at(4).iter().map(|(n, _)| *n).collect();
        assert_eq!(v4[..v3.len()], v3[..]);
        assert_eq!(v4[v3.len()..], ["working_set_bytes", "caches_exceeded", "tile_working_set_bytes", "tile_caches_exceeded"]);
        let v5: Vec<&str> = layout::loop_fields_at(5).iter().map(|(n, _)| *n).collect();
        assert_eq!(v5[..v4.len()], v4[..]);
        assert_eq!(v5[v4.len()..], ["stride_invariant", "stride_unit", "stride_in_line", "stride_new_line", "stride_max_bytes"]);
        // Version 6 keeps the loop part and appends the host's caches to the scalars.
        assert_eq!(layout::loop_fields_at(6), layout::loop_fields_at(5));
        let (f5, f6) = (layout::fields_at(5), layout::fields_at(6));
        assert_eq!(f6[..f5.len()], f5[..]);
        let tail: Vec<&str> = f6[f5.len()..].iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(tail, ["host_l1_bytes", "host_l2_bytes", "host_l3_bytes"]);
        // Version 7 appends the reduction chain to the loop part; the scalars stay.
        let v7: Vec<&str> = layout::loop_fields_at(7).iter().map(|(n, _)| *n).collect();
        assert_eq!(v7[..v5.len()], v5[..]);
        assert_eq!(v7[v5.len()..], ["chain", "chain_length", "chain_interleave"]);
        assert_eq!(layout::scalars_at(7), layout::scalars_at(6));
        assert_eq!(layout::spec_at(6).hash, "a01c2d02095f4d34", "layout 6 is the fingerprint models shipped before 2026-12-04 late recorded: it stays");
        // Version 8 adds pack's reordered copies after its two fields, before accumulate's.
        let v8: Vec<&str> = layout::loop_fields_at(8).iter().map(|(n, _)| *n).collect();
        assert_eq!(v8.len(), v7.len() + 1);
        let at = v8.iter().position(|f| *f == "packed_reordered_loads").unwrap();
        assert_eq!(v8[at - 2..at + 2], ["packed_loads", "packed_elements", "packed_reordered_loads", "accumulated"]);
    }
}
