//! The data generator: programs verify, are fully modeled and cover every class; sampled
//! schedules are legal and round-trip; end-to-end smoke with a kill and a resume.

use affine_autosched::datagen::{self, programs, sampler, rng::Rng};
use affine_autosched::ir;
use affine_autosched::limits::{MAX_COMPUTATIONS, MAX_DEPTH};
use affine_autosched::measure;
use affine_autosched::mlir::LoadedModule;
use affine_autosched::schedule::{tile_sizes, Schedule, Transform};
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::time::{Duration, Instant};

#[test]
fn programs_verify_are_modeled_and_cover_every_class() {
    let mut classes = BTreeMap::new();
    for index in 0..300 {
        let p = programs::generate(11, index);
        assert_eq!(p, programs::generate(11, index), "deterministic");
        let m = LoadedModule::from_source(&p.mlir).unwrap_or_else(|e| panic!("{}: {e}\n{}", p.id, p.mlir));
        let f = m.functions()[0];
        let prog = ir::analyze_function(f).unwrap().program;
        assert!(prog.not_modeled.is_empty(), "{}: {:?}", p.id, prog.not_modeled);
        assert!(!prog.nests.is_empty());
        assert!(prog.loops.iter().all(|l| l.depth < MAX_DEPTH), "{}", p.id);
        assert!(prog.computations.len() <= MAX_COMPUTATIONS, "{}", p.id);
        measure::Signature::of(f).unwrap_or_else(|e| panic!("{}: {e}", p.id));
        *classes.entry(p.class).or_insert(0) += 1;
    }
    assert_eq!(classes.len(), programs::CLASSES.len(), "{classes:?}");
}

/// Bytes of all of a program's buffers.
fn working_set(prog: &ir::Program) -> u64 {
    prog.buffers.iter().map(|b| b.shape.iter().product::<i64>().max(1) as u64 * if b.element_type == ir::ElemType::F64 { 8 } else { 4 }).sum()
}

/// Real-size programs: valid, modeled, every class, working sets under the limit and from
/// cache-sized to far beyond the last-level cache, names apart from the toy ones.
#[test]
fn real_size_programs_are_valid_and_span_the_caches() {
    let mut classes = BTreeMap::new();
    let mut sets = Vec::new();
    for index in 0..300 {
        let p = programs::generate_sized(11, index, programs::Sizes::Real);
        assert_eq!(p, programs::generate_sized(11, index, programs::Sizes::Real), "deterministic");
        assert!(p.id.starts_with("r11-"), "{}", p.id);
        let m = LoadedModule::from_source(&p.mlir).unwrap_or_else(|e| panic!("{}: {e}\n{}", p.id, p.mlir));
        let f = m.functions()[0];
        let prog = ir::analyze_function(f).unwrap().program;
        assert!(prog.not_modeled.is_empty(), "{}: {:?}", p.id, prog.not_modeled);
        assert!(prog.loops.iter().all(|l| l.depth < MAX_DEPTH), "{}", p.id);
        assert!(prog.computations.len() <= MAX_COMPUTATIONS, "{}", p.id);
        let sig = measure::Signature::of(f).unwrap_or_else(|e| panic!("{}: {e}", p.id));
        let bytes = working_set(&prog);
        assert!(bytes <= programs::MAX_WORKING_SET, "{}: {bytes} bytes", p.id);
        assert!(!sig.args.is_empty());
        sets.push(bytes);
        *classes.entry(p.class).or_insert(0) += 1;
    }
    assert_eq!(classes.len(), programs::REAL_CLASSES.len(), "{classes:?}");
    sets.sort_unstable();
    let (small, large) = (sets[sets.len() / 20], sets[sets.len() * 19 / 20]);
    assert!(small < 256 << 10 && large > 64 << 20, "5th percentile {small} B, 95th {large} B");
}

/// Cache-resident programs: valid, modeled, every real class, working sets under their own
/// limit and spread from the L1 to the last-level cache (most of them in the L2 or the L3),
/// named apart from the real-size ones, a class's own stream too; their ids name their profile.
#[test]
fn resident_programs_are_valid_and_stay_in_the_caches() {
    let mut classes = BTreeMap::new();
    let mut sets = Vec::new();
    for index in 0..300 {
        let p = programs::generate_sized(4, index, programs::Sizes::Resident);
        assert_eq!(p, programs::generate_sized(4, index, programs::Sizes::Resident), "deterministic");
        assert!(p.id.starts_with("c4-"), "{}", p.id);
        assert_eq!(programs::Sizes::of_id(&p.id), Some(programs::Sizes::Resident));
        let m = LoadedModule::from_source(&p.mlir).unwrap_or_else(|e| panic!("{}: {e}\n{}", p.id, p.mlir));
        let f = m.functions()[0];
        let prog = ir::analyze_function(f).unwrap().program;
        assert!(prog.not_modeled.is_empty(), "{}: {:?}", p.id, prog.not_modeled);
        measure::Signature::of(f).unwrap_or_else(|e| panic!("{}: {e}", p.id));
        let bytes = working_set(&prog);
        assert!(bytes <= programs::MAX_RESIDENT_WORKING_SET, "{}: {bytes} bytes", p.id);
        sets.push(bytes);
        *classes.entry(p.class).or_insert(0) += 1;
    }
    assert_eq!(classes.len(), programs::REAL_CLASSES.len(), "{classes:?}");
    sets.sort_unstable();
    let (small, median) = (sets[sets.len() / 20], sets[sets.len() / 2]);
    assert!(small < 64 << 10 && (256 << 10..8 << 20).contains(&median), "5th percentile {small} B, median {median} B");
    let own = programs::generate_class(4, 3, programs::Sizes::Resident, Some(programs::ProgramClass::Normalization));
    assert_eq!(own.id, "c4-normalization-p3");
    assert_ne!(programs::stream_salt(&own), 0);
    assert_ne!(own.mlir, programs::generate_class(4, 3, programs::Sizes::Real, Some(programs::ProgramClass::Normalization)).mlir);
    assert_eq!(programs::Sizes::of_id("r2-contraction-p5"), Some(programs::Sizes::Real));
    assert_eq!(programs::Sizes::of_id("s1-p0"), Some(programs::Sizes::Toy));
    assert_eq!(programs::Sizes::of_id("remeasured"), None);
}

/// Every one of the 300 programs compiles and runs (once, as the identity of a batch).
#[test]
fn every_program_runs() {
    let cfg = measure::MeasureConfig { reps: 1, warmup: 0, threads: 1, ..Default::default() };
    let next = std::sync::atomic::AtomicU64::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if index >= 300 {
                    break;
                }
                let p = programs::generate(11, index);
                let result = (|| -> Result<(), String> {
                    let text = datagen::batch_module(&p, &[]).map_err(|e| e.to_string())?;
                    let m = LoadedModule::from_source(&p.mlir).map_err(|e| e.to_string())?;
                    let sig = measure::Signature::of(m.functions()[0]).map_err(|e| e.to_string())?;
                    let entry = measure::Entry { label: "v0".into(), library: 0, function: "v0".into() };
                    measure::measure_entries(&[measure::Library::Mlir(text.as_str())], &[entry], &sig, &cfg).map_err(|e| e.to_string())?;
                    Ok(())
                })();
                if let Err(e) = result {
                    failures.lock().unwrap().push(format!("{}: {e}", p.id));
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn sampled_schedules_are_legal_and_round_trip() {
    let mut accepted = 0;
    for index in 0..40 {
        let p = programs::generate(5, index);
        let batch = datagen::build_batch(&p, 6, 2).unwrap();
        for s in &batch.schedules {
            let back: Schedule = s.to_string().parse().unwrap();
            assert_eq!(&back, s);
            // Legal: it applies on its own to a fresh copy of the program.
            datagen::batch_module(&p, std::slice::from_ref(s)).unwrap();
        }
        let texts: BTreeSet<String> = batch.schedules.iter().map(|s| s.to_string()).collect();
        assert_eq!(texts.len(), batch.schedules.len(), "deduplicated");
        assert!(batch.schedules.iter().all(|s| !s.is_identity()));
        accepted += batch.schedules.len();
    }
    assert!(accepted > 100, "only {accepted} schedules accepted");
}

/// A batch is compiled as one module per core: each function lands in exactly one part,
/// the one its number says, and every part verifies on its own.
#[test]
fn a_batch_splits_into_modules_by_variant_number() {
    let p = programs::generate(5, 3);
    let batch = datagen::build_batch(&p, 6, 2).unwrap();
    let n = batch.schedules.len() + 1;
    assert!(n >= 4, "{n} variants");
    assert_eq!(datagen::split_module(&batch.mlir, 1).unwrap(), vec![batch.mlir.clone()]);
    let parts = datagen::split_module(&batch.mlir, 3).unwrap();
    let mut seen = BTreeSet::new();
    for (k, text) in parts.iter().enumerate() {
        let module = LoadedModule::from_source(text).unwrap();
        for f in module.functions() {
            let name = f.string_attr("sym_name").unwrap();
            let v: usize = name.strip_prefix('v').unwrap().parse().unwrap();
            assert_eq!(v % 3, k, "{name} in part {k}");
            assert!(seen.insert(v), "{name} twice");
        }
    }
    assert_eq!(seen, (0..n).collect::<BTreeSet<_>>());
}

/// The data's schedules are walks through the search's own space: each step is one the
/// search proposes at that point, stages come in the search's order, and on small programs
/// every kind of step the search can take is reached.
#[test]
fn sampler_walks_the_search_space() {
    use affine_autosched::search::candidates::{candidates, combinations, STAGES};
    use affine_autosched::schedule::Transform;
    // Where the walk's steps come from, as the search would make them: a single candidate
    // of a stage, or a whole combination of a stage (made, as in the search, of that stage's
    // legal candidates in their order): the stage and how many steps from the first of
    // `rest` it made.
    let single = |program: &ir::Program, prefix: &Schedule, t: &Transform| {
        STAGES.iter().position(|st| candidates(program, prefix, *st).contains(t))
    };
    let combination = |func, program: &ir::Program, prefix: &Schedule, rest: &[Transform]| -> Option<(usize, usize)> {
        let checker = affine_autosched::transform::Prefix::new(func, prefix).ok()?;
        STAGES.iter().enumerate().filter(|(_, st)| st.has_combinations()).find_map(|(i, st)| {
            let legal: Vec<Transform> = candidates(program, prefix, *st)
                .into_iter()
                .filter(|t| checker.check(std::slice::from_ref(t)).is_ok())
                .collect();
            combinations(program, prefix, *st, &legal).into_iter().find(|c| rest.starts_with(c)).map(|c| (i, c.len()))
        })
    };
    let mut kinds_seen = BTreeSet::new();
    let mut kinds_possible = BTreeSet::new();
    for i in 0..6 {
        let p = programs::generate(5, i);
        let m = LoadedModule::from_source(&p.mlir).unwrap();
        let func = m.functions()[0];
        let prog = ir::analyze_function(func).unwrap().program;
        // What the search could take first, stage by stage: the kinds to reach.
        let prefix = affine_autosched::transform::Prefix::new(func, &Schedule::default()).unwrap();
        for &st in STAGES {
            if let Some(t) = candidates(&prog, &Schedule::default(), st).into_iter().find(|t| prefix.check(std::slice::from_ref(t)).is_ok()) {
                kinds_possible.insert(t.kind());
            }
        }
        let mut rng = Rng::new(9 + i);
        for n in 0..40 {
            let kind = if n % 2 == 0 { sampler::Walk::Short } else { sampler::Walk::Long };
            let s = sampler::walk(func, &prog, &mut rng, 12, kind);
            assert!(s.steps.len() <= 12);
            // Steps are read as single candidates where they are; a step that is not is the
            // rest of a combination begun at it or at the step before (a second level of
            // tiles after its first).
            let (mut k, mut last_stage) = (0usize, 0usize);
            let mut previous: Option<(usize, usize)> = None; // (position, stage before it)
            while k < s.steps.len() {
                let prefix = Schedule { steps: s.steps[..k].to_vec() };
                if let Some(st) = single(&prog, &prefix, &s.steps[k]) {
                    assert!(st >= last_stage, "{s}: stages out of the search's order");
                    previous = Some((k, last_stage));
                    (k, last_stage) = (k + 1, st);
                    continue;
                }
                let here = combination(func, &prog, &prefix, &s.steps[k..]).map(|(st, n)| (k, last_stage, st, n));
                let before = previous.and_then(|(pk, ls)| {
                    let p = Schedule { steps: s.steps[..pk].to_vec() };
                    combination(func, &prog, &p, &s.steps[pk..]).filter(|(_, n)| pk + n > k).map(|(st, n)| (pk, ls, st, n))
                });
                let (at, stage_before, st, n) = here
                    .or(before)
                    .unwrap_or_else(|| panic!("{s}: {} is no candidate or combination of the search after its first {k} steps", s.steps[k]));
                assert!(st >= stage_before, "{s}: stages out of the search's order");
                previous = None;
                (k, last_stage) = (at + n, st);
            }
            for t in &s.steps {
                kinds_seen.insert(t.kind());
            }
            // Legal as a whole.
            datagen::batch_module(&p, std::slice::from_ref(&s)).unwrap();
        }
    }
    assert!(kinds_possible.len() >= 4, "{kinds_possible:?}");
    assert!(kinds_seen.is_superset(&kinds_possible), "reached {kinds_seen:?} of {kinds_possible:?}");
}

/// A program of a class's own stream parses, is modeled whole, stays under the working-set
/// limit and can be run (its signature is one the measuring driver takes): its representation.
fn valid_real_program(p: &programs::GeneratedProgram) -> ir::Program {
    let m = LoadedModule::from_source(&p.mlir).unwrap_or_else(|e| panic!("{}: {e}\n{}", p.id, p.mlir));
    let f = m.functions()[0];
    let prog = ir::analyze_function(f).unwrap().program;
    assert!(prog.not_modeled.is_empty(), "{}: {:?}", p.id, prog.not_modeled);
    assert!(prog.computations.iter().all(|c| c.iterators.len() <= MAX_DEPTH), "{}: deeper than the model takes", p.id);
    let bytes = working_set(&prog);
    assert!(bytes <= programs::MAX_WORKING_SET, "{}: {bytes} bytes", p.id);
    measure::Signature::of(f).unwrap_or_else(|e| panic!("{}: {e}", p.id));
    prog
}

/// Wide programs (drawn only with a class given, from that class's own stream): valid,
/// modeled, wider than the other classes' limit, under the working-set limit.
#[test]
fn wide_programs_are_valid_pipelines_of_many_statements() {
    let mut widths = Vec::new();
    for index in 0..60 {
        let p = programs::generate_class(7, index, programs::Sizes::Real, Some(programs::ProgramClass::Wide));
        assert_eq!(p, programs::generate_class(7, index, programs::Sizes::Real, Some(programs::ProgramClass::Wide)));
        assert_eq!(p.id, format!("r7-wide-p{index}"));
        assert_eq!(p.class, programs::ProgramClass::Wide);
        let prog = valid_real_program(&p);
        assert!(prog.loops.iter().all(|l| l.depth < MAX_DEPTH), "{}", p.id);
        widths.push(prog.computations.len());
    }
    assert!(widths.iter().all(|&w| (5..=18).contains(&w)), "{widths:?}");
    assert!(widths.iter().filter(|&&w| w >= 8).count() >= 10, "{widths:?}");
    // A class's own stream is not the mixed one.
    let mixed = programs::generate_sized(7, 3, programs::Sizes::Real);
    assert_eq!(mixed.id, "r7-p3");
    assert_ne!(programs::stream_salt(&programs::generate_class(7, 3, programs::Sizes::Real, Some(programs::ProgramClass::Wide))), 0);
    assert_eq!(programs::stream_salt(&mixed), 0);
}

/// Linear programs (drawn only on request): valid, modeled, under the working-set limit, and
/// with both layouts of each operand drawn: the transposed weight (`W[j][k]`, what the
/// contraction class never makes) in a good share of them.
#[test]
fn linear_programs_store_their_operands_either_way() {
    let (mut transposed_w, mut transposed_a, mut imperfect) = (0, 0, 0);
    for index in 0..80 {
        let p = programs::generate_class(5, index, programs::Sizes::Real, Some(programs::ProgramClass::Linear));
        assert_eq!(p, programs::generate_class(5, index, programs::Sizes::Real, Some(programs::ProgramClass::Linear)));
        assert_eq!(p.id, format!("r5-linear-p{index}"));
        let prog = valid_real_program(&p);
        // The product's statement reads %b0 (A) and %b1 (W): which loop indexes W's last
        // dimension tells the layout (the output's column loop j indexes C's last one).
        let line = |buf: &str| p.mlir.lines().find(|l| l.contains(&format!("affine.load %{buf}["))).unwrap().to_string();
        let subs = |l: &str| l[l.find('[').unwrap() + 1..l.find(']').unwrap()].split(", ").map(str::to_string).collect::<Vec<_>>();
        let c_store = p.mlir.lines().filter(|l| l.contains("affine.store") && l.contains("%b2[")).last().unwrap().to_string();
        let (j, w) = (subs(&c_store)[1].clone(), subs(&line("b1")));
        transposed_w += (w[0] == j) as usize;
        let i = subs(&c_store)[0].clone();
        transposed_a += (subs(&line("b0"))[1] == i) as usize;
        // Initialized inside the nest: a statement's loop also holds a loop.
        imperfect += prog.computations.iter().any(|c| prog.loops.iter().any(|l| l.id == c.parent && l.children.iter().any(|ch| matches!(ch, ir::Child::Loop(_))))) as usize;
    }
    assert!((30..=65).contains(&transposed_w), "{transposed_w} of 80 with W[j][k]");
    assert!((10..=40).contains(&transposed_a), "{transposed_a} of 80 with A[k][i]");
    assert!(imperfect >= 10, "{imperfect} of 80 initialized inside the nest");
    let mixed = programs::generate_sized(5, 3, programs::Sizes::Real);
    assert_ne!(mixed.class, programs::ProgramClass::Linear);
}

/// Temporary programs (drawn only on request): valid, modeled, under the working-set limit,
/// and what no other class makes in a good share of them: a reduction innermost whose store
/// is invariant in the outer loops (doitgen's `sum[p]`), besides the other inner order.
#[test]
fn temporary_programs_reuse_a_buffer_across_their_outer_loops() {
    let (mut doitgen_like, mut p_innermost, mut in_place) = (0, 0, 0);
    for index in 0..80 {
        let p = programs::generate_class(5, index, programs::Sizes::Real, Some(programs::ProgramClass::Temporary));
        assert_eq!(p, programs::generate_class(5, index, programs::Sizes::Real, Some(programs::ProgramClass::Temporary)));
        assert_eq!(p.id, format!("r5-temporary-p{index}"));
        let prog = valid_real_program(&p);
        // The product: the computation with a multiply. Its store moves along which loops?
        let product = prog.computations.iter().find(|c| c.loads.len() == 3).unwrap_or_else(|| panic!("{}: no product", p.id));
        let n = product.iterators.len();
        let moves: Vec<bool> = (0..n).map(|k| product.store.matrix.iter().any(|row| row[k] != 0)).collect();
        assert!(!moves[0], "{}: the temporary does not move along the outermost loop", p.id);
        if !moves[n - 1] {
            doitgen_like += 1;
        } else {
            p_innermost += 1;
        }
        // Written back into the product's input (A[o..][s] read, A[o..][p] written).
        in_place += (prog.buffers.len() == 3) as usize;
    }
    assert!(doitgen_like >= 30, "{doitgen_like} of 80 with the reduction innermost");
    assert!(p_innermost >= 15, "{p_innermost} of 80 with the temporary's loop innermost");
    assert!((20..=60).contains(&in_place), "{in_place} of 80 written back in place");
    let mixed = programs::generate_sized(5, 3, programs::Sizes::Real);
    assert_ne!(mixed.class, programs::ProgramClass::Temporary);
}

/// Rank-update programs (drawn only on request): valid, modeled, under the working-set limit,
/// and what the triangular class never makes in a good share of them: a reduction longer
/// than 256 iterations (the triangular class's cap) under a triangular loop, innermost or
/// not; trmm-like ones (the reduction's own bounds triangular) and two-product ones too.
#[test]
fn rank_update_programs_reduce_along_long_loops_under_a_triangle() {
    let (mut long, mut k_innermost, mut trmm_like, mut two_products, mut upper) = (0, 0, 0, 0, 0);
    for index in 0..80 {
        let p = programs::generate_class(5, index, programs::Sizes::Real, Some(programs::ProgramClass::RankUpdate));
        assert_eq!(p, programs::generate_class(5, index, programs::Sizes::Real, Some(programs::ProgramClass::RankUpdate)));
        assert_eq!(p.id, format!("r5-rank_update-p{index}"));
        assert_eq!(p.class, programs::ProgramClass::RankUpdate);
        let prog = valid_real_program(&p);
        assert!(prog.loops.iter().any(|l| l.is_non_rectangular()), "{}: no triangular loop", p.id);
        // The update: the computation that reads the most.
        let update = prog.computations.iter().max_by_key(|c| c.loads.len()).unwrap();
        assert!(update.loads.len() >= 3, "{}: no product", p.id);
        let n = update.iterators.len();
        assert_eq!(n, 3, "{}", p.id);
        // The reduction loop: the one the store does not move along.
        let k = (0..n).find(|&d| update.store.matrix.iter().all(|row| row[d] == 0)).unwrap_or_else(|| panic!("{}: no reduction", p.id));
        let kl = &prog.loops[update.iterators[k]];
        if kl.is_non_rectangular() {
            trmm_like += 1;
        }
        long += kl.trip_count.is_some_and(|t| t > 256) as usize;
        k_innermost += (k == n - 1) as usize;
        two_products += (update.loads.len() >= 5) as usize;
        upper += p.mlir.contains("affine_map<(d0) -> (d0)>") as usize;
    }
    assert!(long >= 30, "{long} of 80 reduce along more than 256 iterations");
    assert!((15..=60).contains(&k_innermost), "{k_innermost} of 80 with the reduction innermost");
    assert!((8..=35).contains(&trmm_like), "{trmm_like} of 80 trmm-like");
    assert!((8..=40).contains(&two_products), "{two_products} of 80 with two products");
    assert!(upper >= 10, "{upper} of 80 over the upper triangle");
    let mixed = programs::generate_sized(5, 3, programs::Sizes::Real);
    assert_ne!(mixed.class, programs::ProgramClass::RankUpdate);
}

/// DNN layers (drawn only on request): valid, modeled, under the working-set limit, and the
/// forms a framework's lowering emits that the bare convolutions never have, each in a good
/// share: the output initialized in a sibling nest first (zero or a bias), a batch loop around
/// the convolution, a ReLU nest after it; the convolution's reduction in every one.
#[test]
fn dnn_layers_initialize_their_output_in_a_nest_of_its_own() {
    let (mut init, mut bias, mut batched, mut relu) = (0, 0, 0, 0);
    for index in 0..80 {
        let p = programs::generate_class(5, index, programs::Sizes::Real, Some(programs::ProgramClass::DnnLayer));
        assert_eq!(p, programs::generate_class(5, index, programs::Sizes::Real, Some(programs::ProgramClass::DnnLayer)));
        assert_eq!(p.id, format!("r5-dnn_layer-p{index}"));
        let prog = valid_real_program(&p);
        // The convolution: the computation that reads the most, a reduction over its
        // channels or window.
        let conv = prog.computations.iter().max_by_key(|c| c.loads.len()).unwrap();
        assert!(conv.loads.len() >= 3 && !conv.reduction_loops.is_empty(), "{}: no convolution", p.id);
        let first = &prog.computations[0];
        if first.id != conv.id && first.loads.len() <= 1 && first.store.buffer == conv.store.buffer {
            init += 1;
            bias += (first.loads.len() == 1) as usize;
        }
        // The output of a batch is 4-D (image, channel, row, column).
        batched += (conv.store.matrix.len() == 4) as usize;
        relu += (p.mlir.contains("arith.maximum") || p.mlir.contains("arith.maxsi")) as usize;
    }
    assert!((50..=80).contains(&init), "{init} of 80 initialize their output first");
    assert!((10..=40).contains(&bias), "{bias} of 80 from a bias");
    assert!((10..=50).contains(&batched), "{batched} of 80 over a batch");
    assert!((10..=40).contains(&relu), "{relu} of 80 with a ReLU");
    let mixed = programs::generate_sized(5, 3, programs::Sizes::Real);
    assert_ne!(mixed.class, programs::ProgramClass::DnnLayer);
}

/// The committed data's programs are what the generator makes of their seed and index (and
/// class, for a class's own stream): a change to the generator must leave the streams the
/// data came from as they were. The chunks' schedules drawn from the search's space as it is
/// (`sampler::SPACE`, recorded with each point) are also what the sampler draws for them;
/// those drawn from earlier spaces (the first dataset's, and every chunk's before the
/// every-band register tiles and per-nest depth of 2026-11-29, recorded as space 0) are not
/// checked: the search's space changed under them, as it should.
#[test]
fn the_committed_datas_programs_and_schedules_are_regenerated_exactly() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx/data/real");
    let mut chunks: Vec<_> = std::fs::read_dir(root.join("incoming"))
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.to_string_lossy().ends_with(".jsonl.gz")).collect())
        .unwrap_or_default();
    chunks.sort();
    let mut checked = 0;
    for (path, programs_wanted, schedules_wanted) in
        std::iter::once((root.join("dataset.jsonl.gz"), 40, 0)).chain(chunks.into_iter().map(|c| (c, 4, 2)))
    {
        // Schedules are checked on the first programs whose batch kept nearly all of its 16
        // (a batch loses those that compile too slowly: r2-matmul_chain-p150 kept 10).
        let mut schedules_checked = 0;
        let mut points: BTreeMap<String, (serde_json::Value, BTreeSet<String>)> = BTreeMap::new();
        let mut order = Vec::new();
        datagen::for_each_line(&path, |line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let id = v["program_id"].as_str().unwrap().to_string();
            if !points.contains_key(&id) {
                if order.len() >= programs_wanted {
                    return;
                }
                order.push(id.clone());
            }
            let schedule = v["schedule"].as_str().unwrap().to_string();
            points.entry(id).or_insert_with(|| (v.clone(), BTreeSet::new())).1.insert(schedule);
        })
        .unwrap();
        assert_eq!(order.len(), programs_wanted, "{}", path.display());
        for id in &order {
            let (v, schedules) = &points[id];
            let class: programs::ProgramClass = serde_json::from_value(v["class"].clone()).unwrap();
            let (seed, index) = (v["seed"].as_u64().unwrap(), v["index"].as_u64().unwrap());
            let own = id.contains(&format!("-{}-", class.name()));
            let sizes = programs::Sizes::of_id(id).unwrap_or_else(|| panic!("{id}: no size profile"));
            let p = programs::generate_class(seed, index, sizes, own.then_some(class));
            assert_eq!(&p.id, id);
            assert_eq!(p.mlir, v["mlir"].as_str().unwrap(), "{id}");
            let drawn_now = v["space"].as_u64() == Some(u64::from(affine_autosched::datagen::sampler::SPACE));
            let whole = schedules.iter().filter(|s| !s.is_empty()).count() + 2 >= 16;
            if schedules_checked < schedules_wanted && drawn_now && whole {
                schedules_checked += 1;
                // Every stored schedule is one the sampler draws again, short walks only (the
                // first dataset) or half long ones (the chunks); a few it draws may be missing
                // from the data (dropped when they compiled too slowly).
                // Tile sizes are drawn for the caches and cores of the host that measured.
                // Register tiles were jammed columns first until 2026-11-27, rows first since: a
                // clean-up loop of the columns no longer stops the rows' jam, so more tiles are
                // legal and a walk may draw another tile of the same loops. Consecutive unrolls
                // compare by their loops alone, as a set.
                let stored: BTreeSet<String> = schedules.iter().filter(|s| !s.is_empty()).map(|s| unrolls_sorted(s)).collect();
                let caches: Vec<affine_autosched::machine::Cache> = serde_json::from_value(v["machine"]["caches"].clone()).unwrap();
                let isa: Vec<String> = serde_json::from_value(v["machine"]["isa"].clone()).unwrap();
                let host = tile_sizes::Target::recorded(&caches, v["machine"]["cores"].as_u64().unwrap() as usize, &isa);
                // (long, lookahead) walks and neighbours: the first dataset, the long/wide/linear
                // chunks, the tiles chunks, the *_parallel and *_register chunks.
                let none = datagen::Neighbours::default();
                let parallel = datagen::Neighbours { parallel: 8, register: 0 };
                let register = datagen::Neighbours { parallel: 0, register: 8 };
                let plans = [(0, 0, none), (8, 0, none), (4, 8, none), (4, 8, parallel), (4, 8, register)];
                let again = plans.iter().find_map(|&(long, lookahead, neighbours)| {
                    let drawn: BTreeSet<String> = host
                        .scoped(|| datagen::build_batch_with_neighbours(&p, 16, long, lookahead, neighbours))
                        .unwrap()
                        .schedules
                        .iter()
                        .map(|s| unrolls_sorted(&s.to_string()))
                        .collect();
                    (stored.is_subset(&drawn) && stored.len() + 2 >= drawn.len()).then_some(drawn.len())
                });
                assert!(again.is_some(), "{id}: its {} schedules are not what the sampler draws", stored.len());
            }
            checked += 1;
        }
    }
    assert!(checked >= 40);
}

/// A schedule's text with each run of two or more consecutive unroll steps reduced to their
/// loops, sorted (a lone unroll keeps its factor).
fn unrolls_sorted(schedule: &str) -> String {
    fn flush(run: &mut Vec<&str>, out: &mut Vec<String>) {
        let mut loops: Vec<String> = run
            .iter()
            .map(|s| if run.len() > 1 { s.rsplit_once(':').map_or(*s, |(target, _)| target) } else { s }.to_string())
            .collect();
        loops.sort();
        out.append(&mut loops);
        run.clear();
    }
    let (mut out, mut run) = (Vec::new(), Vec::new());
    for step in schedule.split("; ") {
        if step.starts_with("unroll(") {
            run.push(step);
            continue;
        }
        flush(&mut run, &mut out);
        out.push(step.to_string());
    }
    flush(&mut run, &mut out);
    out.join("; ")
}

/// Long walks take a step at nearly every stage: on the same programs their schedules are
/// longer than short walks' and more often as long as the search's final ones. The short
/// schedules of a batch do not depend on how many long ones it holds (data generated before
/// long walks existed is reproduced with none).
#[test]
fn long_walks_make_long_schedules_and_leave_the_short_ones_as_they_were() {
    let (mut short, mut long) = (Vec::new(), Vec::new());
    for i in 0..8 {
        let p = programs::generate_sized(3, i, programs::Sizes::Real);
        let m = LoadedModule::from_source(&p.mlir).unwrap();
        let func = m.functions()[0];
        let prog = ir::analyze_function(func).unwrap().program;
        let mut rng = Rng::new(40 + i);
        for _ in 0..10 {
            short.push(sampler::walk(func, &prog, &mut rng, 12, sampler::Walk::Short).steps.len());
            long.push(sampler::walk(func, &prog, &mut rng, 12, sampler::Walk::Long).steps.len());
        }
    }
    let mean = |v: &[usize]| v.iter().sum::<usize>() as f64 / v.len() as f64;
    let at_least = |v: &[usize], n: usize| v.iter().filter(|&&k| k >= n).count();
    assert!(mean(&long) > mean(&short) + 1.0, "long {long:?} short {short:?}");
    assert!(at_least(&long, 5) > 2 * at_least(&short, 5).max(1), "long {long:?} short {short:?}");
    for i in 0..4 {
        let p = programs::generate(5, i);
        let plain = datagen::build_batch(&p, 6, 0).unwrap();
        let mixed = datagen::build_batch(&p, 6, 3).unwrap();
        assert!(mixed.schedules.len() > 3, "{}: {} schedules", p.id, mixed.schedules.len());
        let n = plain.schedules.len().min(3);
        assert_eq!(mixed.schedules[..n], plain.schedules[..n], "{}", p.id);
    }
}

#[test]
fn lookahead_walks_make_the_register_tiles_the_search_proposes() {
    // On contraction programs, lookahead walks take the Tile stage's lookahead sequences (a
    // band tiled, accumulating, unrolled and jammed into a register tile, packed or not)
    // where the walk so far left such a band (i-j-k order, whole tiles): legal as a whole,
    // they build, and they hold several times the register tiles of long walks, which reach
    // one only through three stages' choices in a row. With no lookahead walks a batch is
    // build_batch's.
    let register_tile = |s: &Schedule| {
        let text = s.to_string();
        (text.contains("accumulate(") && text.matches("unroll(").count() >= 2, text.contains("pack("))
    };
    // The tile sizes drawn depend on the caches, cores and vector registers: those of a fixed
    // host (2 cores, L2 1 MiB each, L3 32 MiB, AVX2), so that the counts are the same on
    // every machine.
    use affine_autosched::machine::Cache;
    let caches = [
        Cache { level: 1, bytes: 48 << 10, shared_by: 1 },
        Cache { level: 2, bytes: 1 << 20, shared_by: 1 },
        Cache { level: 3, bytes: 32 << 20, shared_by: 2 },
    ];
    let (ahead, packed, long) = tile_sizes::Target::recorded(&caches, 2, &[]).scoped(|| {
        let (mut ahead, mut packed, mut long) = (0, 0, 0);
        for i in 0..12 {
            let p = programs::generate_class(5, i, programs::Sizes::Real, Some(programs::ProgramClass::Contraction));
            for s in &datagen::build_batch_with_lookahead(&p, 6, 0, 6).unwrap().schedules {
                let (tile, pack) = register_tile(s);
                ahead += tile as usize;
                packed += (tile && pack) as usize;
                datagen::batch_module(&p, std::slice::from_ref(s)).unwrap();
            }
            let plain = datagen::build_batch(&p, 6, 6).unwrap();
            long += plain.schedules.iter().filter(|s| register_tile(s).0).count();
            assert_eq!(datagen::build_batch_with_lookahead(&p, 6, 6, 0).unwrap().schedules, plain.schedules, "{}", p.id);
        }
        (ahead, packed, long)
    });
    eprintln!("register tiles in 72 walks: {ahead} lookahead ({packed} packed), {long} long");
    assert!(ahead >= 3 * long.max(1) && packed > 0, "register tiles in 72 walks: {ahead} lookahead ({packed} packed), {long} long");
}

/// The schedules `more` adds after `plain`'s, checked as every kind of neighbour must be: the
/// batch without them comes first unchanged, at most `at_most` are added, no schedule twice,
/// each builds.
fn added_neighbours<'a>(p: &programs::GeneratedProgram, plain: &datagen::Batch, more: &'a datagen::Batch, at_most: usize) -> &'a [Schedule] {
    let n = plain.schedules.len();
    assert_eq!(more.schedules[..n], plain.schedules[..], "{}", p.id);
    let extra = &more.schedules[n..];
    assert!(extra.len() <= at_most, "{}: {} neighbours", p.id, extra.len());
    let texts: std::collections::HashSet<String> = more.schedules.iter().map(|s| s.to_string()).collect();
    assert_eq!(texts.len(), more.schedules.len(), "{}: a schedule twice", p.id);
    for s in extra {
        datagen::batch_module(p, std::slice::from_ref(s)).unwrap();
    }
    extra
}

#[test]
fn parallel_neighbours_differ_from_a_drawn_schedule_only_in_its_parallel_loops() {
    // The batch with neighbours is the batch without them, then schedules each of which is a
    // drawn one with other Parallelize steps (and the same steps otherwise, in order), none
    // twice, at most the number asked for; each builds. On DNN layers (register tiles, batch
    // loops) there are some.
    let without_parallel = |s: &Schedule| -> Vec<String> {
        s.steps.iter().filter(|t| !t.to_string().starts_with("parallelize(")).map(|t| t.to_string()).collect()
    };
    let mut total = 0;
    for i in 0..6 {
        let p = programs::generate_class(7, i, programs::Sizes::Real, Some(programs::ProgramClass::DnnLayer));
        let plain = datagen::build_batch_with_lookahead(&p, 6, 1, 3).unwrap();
        let more = datagen::build_batch_with_neighbours(&p, 6, 1, 3, datagen::Neighbours { parallel: 5, register: 0 }).unwrap();
        let extra = added_neighbours(&p, &plain, &more, 5);
        for s in extra {
            assert!(
                plain.schedules.iter().any(|b| without_parallel(b) == without_parallel(s) && b != s),
                "{}: {s} is no drawn schedule's parallel neighbour",
                p.id
            );
        }
        total += extra.len();
    }
    eprintln!("{total} neighbours in 6 DNN layers");
    assert!(total >= 6, "{total} neighbours in 6 DNN layers");
}

#[test]
fn register_tile_neighbours_replace_a_drawn_schedules_unrolls_by_a_register_tile() {
    // Each is a drawn schedule whose unroll steps in the tile's nest are replaced by one
    // register tile (two unroll-and-jams), every other step kept in order, after the parallel
    // neighbours asked for, none twice; each builds. DNN layers drawn as the data is (16 schedules, 8 lookahead
    // walks) have accumulating loops around which the Unroll stage offers register tiles.
    let others = |s: &Schedule| -> Vec<String> {
        s.steps.iter().filter(|t| !matches!(t, Transform::Unroll(_))).map(|t| t.to_string()).collect()
    };
    let unrolls = |b: &Schedule| {
        let mut v: Vec<String> = b.steps.iter().filter(|t| matches!(t, Transform::Unroll(_))).map(|t| t.to_string()).collect();
        v.sort();
        v
    };
    let mut total = 0;
    for i in 0..4 {
        let p = programs::generate_class(7, i, programs::Sizes::Real, Some(programs::ProgramClass::DnnLayer));
        let plain = datagen::build_batch_with_neighbours(&p, 16, 4, 8, datagen::Neighbours { parallel: 2, register: 0 }).unwrap();
        let more = datagen::build_batch_with_neighbours(&p, 16, 4, 8, datagen::Neighbours { parallel: 2, register: 4 }).unwrap();
        let extra = added_neighbours(&p, &plain, &more, 4);
        for s in extra {
            assert!(s.steps.iter().filter(|t| matches!(t, Transform::Unroll(_))).count() >= 2, "{}: {s}", p.id);
            assert!(
                plain.schedules.iter().any(|b| others(b) == others(s) && unrolls(b) != unrolls(s)),
                "{}: {s} is no drawn schedule's neighbour",
                p.id
            );
        }
        total += extra.len();
    }
    eprintln!("{total} register tile neighbours in 4 DNN layers");
    assert!(total >= 6, "{total} register tile neighbours in 4 DNN layers");
}

fn points(dir: &std::path::Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let path = dir.join("shard-0-of-1.jsonl");
    if path.exists() {
        datagen::for_each_line(&path, |l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            out.push((v["program_id"].as_str().unwrap().to_string(), v["schedule"].as_str().unwrap().to_string()));
        })
        .unwrap();
    }
    out
}

#[test]
fn datagen_end_to_end_with_a_kill_and_a_resume() {
    let dir = std::env::temp_dir().join(format!("autosched-datagen-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let args = |out: &std::path::Path| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_autosched"));
        c.args(["datagen", "--seed", "2", "--programs", "6", "--schedules-per-program", "3", "--reps", "2", "--quiet", "--no-quiet-wait", "--sizes", "toy"])
            .arg("--out")
            .arg(out);
        c
    };
    // Kill the first run once it has written its first program.
    let mut child = args(&dir).spawn().unwrap();
    let start = Instant::now();
    while points(&dir).is_empty() && start.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    let before = points(&dir);
    assert!(!before.is_empty());
    // A torn write, as a kill in the middle of an append would leave.
    let shard = dir.join("shard-0-of-1.jsonl");
    let mut text = std::fs::read_to_string(&shard).unwrap();
    text.push_str("{\"program_id\": \"s2-p9\", \"sched");
    std::fs::write(&shard, text).unwrap();
    assert!(args(&dir).status().unwrap().success());
    let after = points(&dir);
    // Every point says which version of the search's space its walk was drawn from.
    let spaces: BTreeSet<Option<u64>> = std::fs::read_to_string(&shard)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| v["space"].as_u64())
        .collect();
    assert_eq!(spaces, BTreeSet::from([Some(u64::from(datagen::sampler::SPACE))]));
    let unique: BTreeSet<_> = after.iter().cloned().collect();
    assert_eq!(unique.len(), after.len(), "no duplicate after resume");
    assert!(before.iter().all(|p| unique.contains(p)), "nothing lost");
    let failed = dir.join("shard-0-of-1.failed.jsonl");
    let failed_ids: BTreeSet<String> = if failed.exists() {
        std::fs::read_to_string(&failed).unwrap().lines().map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["program_id"].as_str().unwrap().to_string()
        }).collect()
    } else {
        BTreeSet::new()
    };
    let programs: BTreeSet<String> = after.iter().map(|(p, _)| p.clone()).collect();
    for i in 0..6 {
        let id = format!("s2-p{i}");
        assert!(programs.contains(&id) || failed_ids.contains(&id), "{id} neither measured nor failed");
    }
    // Every program has its identity point, with speedup 1.
    for id in &programs {
        assert!(after.contains(&(id.clone(), String::new())), "{id} lacks its identity");
    }
    // Merging twice the same shard drops the duplicates.
    let merged = dir.join("merged.jsonl.gz");
    let (n, dups) = datagen::merge(&[dir.clone(), shard.clone()], &merged).unwrap();
    assert_eq!((n, dups), (after.len(), after.len()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn remeasure_measures_a_kinds_points_again_and_a_merge_replaces_them() {
    let dir = std::env::temp_dir().join(format!("autosched-remeasure-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let run = |extra: &[&str], out: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_autosched"))
            .args(["datagen", "--seed", "3", "--schedules-per-program", "4", "--reps", "2", "--quiet", "--no-quiet-wait", "--sizes", "toy"])
            .args(extra)
            .arg("--out")
            .arg(out)
            .output()
            .unwrap()
    };
    let first = dir.join("first");
    assert!(run(&["--programs", "4"], &first).status.success());
    let old = dir.join("old.jsonl.gz");
    datagen::merge(&[first.clone()], &old).unwrap();
    let before = points(&first);
    // A kind some points hold, and the points that hold it.
    let kind_of = |s: &str| s.split('(').next().unwrap_or("").trim().to_string();
    let kind = before.iter().find(|(_, s)| !s.is_empty()).map(|(_, s)| kind_of(s)).expect("a schedule");
    let holds = |s: &str| s.split(';').any(|step| kind_of(step) == kind);
    let wanted: BTreeSet<(String, String)> = before.iter().filter(|(_, s)| holds(s)).cloned().collect();
    let again = dir.join("again");
    let out = run(&["--remeasure", old.to_str().unwrap(), "--kind", &kind], &again);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let after = points(&again);
    // Exactly those points, each program with its identity measured in the same batch.
    let measured: BTreeSet<(String, String)> = after.iter().filter(|(_, s)| !s.is_empty()).cloned().collect();
    assert_eq!(measured, wanted, "{kind}");
    let programs: BTreeSet<&String> = wanted.iter().map(|(p, _)| p).collect();
    for p in &programs {
        assert!(after.contains(&((*p).clone(), String::new())), "{p} lacks its identity");
    }
    // Merged before the old dataset, the new points replace the old ones.
    let merged = dir.join("merged.jsonl.gz");
    let (n, dups) = datagen::merge(&[again.clone(), old.clone()], &merged).unwrap();
    assert_eq!((n, dups), (before.len(), after.len()));
    let time_of = |path: &std::path::Path| {
        let mut m = std::collections::BTreeMap::new();
        datagen::for_each_line(path, |l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            m.insert((v["program_id"].as_str().unwrap().to_string(), v["schedule"].as_str().unwrap().to_string()), v["time_s"].as_f64().unwrap());
        })
        .unwrap();
        m
    };
    let (new, kept) = (time_of(&again.join("shard-0-of-1.jsonl")), time_of(&merged));
    for (k, t) in &new {
        assert_eq!(kept[k], *t, "{k:?} kept the old time");
    }
    // `any`: every scheduled point, whatever its steps (a sample measured again on another host).
    let all = dir.join("all");
    let out = run(&["--remeasure", old.to_str().unwrap(), "--kind", "any"], &all);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let scheduled: BTreeSet<(String, String)> = before.iter().filter(|(_, s)| !s.is_empty()).cloned().collect();
    let measured: BTreeSet<(String, String)> = points(&all).into_iter().filter(|(_, s)| !s.is_empty()).collect();
    assert_eq!(measured, scheduled);
    // Every point records the host's vector extensions (what the card tells hosts apart by).
    datagen::for_each_line(&all.join("shard-0-of-1.jsonl"), |l| {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        assert!(v["machine"]["isa"].is_array(), "{}", v["machine"]);
    })
    .unwrap();
    // A kind that does not exist is an error, not an empty run.
    let bad = run(&["--remeasure", old.to_str().unwrap(), "--kind", "vectorise"], &dir.join("bad"));
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no transformation kind 'vectorise'"));
    let _ = std::fs::remove_dir_all(&dir);
}
