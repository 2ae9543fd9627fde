//! The data generator's check for a machine disturbed while a batch is timed. In a test
//! binary of its own: the CPU time of the process is counted as "ours" and subtracted
//! from the others' load, so sibling tests running in the same process (cargo runs a
//! binary's tests in parallel) would hide the spinners on a 2-core machine.

use affine_autosched::datagen::{self, programs};
use affine_autosched::measure;
use std::process::Command;
use std::time::Duration;

/// Spinning processes, one per core, started while a batch runs: the batch is measured
/// again, and kept flagged noisy once the retries are spent.
#[test]
fn a_batch_disturbed_while_it_runs_is_measured_again_then_kept_noisy() {
    if measure::quiet::CpuCounters::read().is_none() {
        return; // no /proc here
    }
    let dir = std::env::temp_dir().join(format!("autosched-datagen-busy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let mut spinners: Vec<_> = (0..cores)
        .map(|_| Command::new("sh").args(["-c", "while :; do :; done"]).spawn().unwrap())
        .collect();
    let mut m = datagen::default_measure_config();
    m.reps = 2;
    let cfg = datagen::DatagenConfig {
        seed: 2,
        programs: 1,
        schedules_per_program: 2,
        long_walks: 1,
        lookahead_walks: 0,
        neighbours: Default::default(),
        out: dir.clone(),
        shard: (0, 1),
        measure: m,
        progress: false,
        resume_from: vec![],
        // Do not wait before (the spinners never stop): only the check during the batch acts.
        quiet: Some(measure::quiet::QuietPolicy { max_wait: Duration::ZERO, window: Duration::from_millis(10), ..Default::default() }),
        sizes: programs::Sizes::Toy,
        class: None,
        remeasure: None,
    };
    let summary = datagen::run(&cfg);
    for s in &mut spinners {
        let _ = s.kill();
        let _ = s.wait();
    }
    let summary = summary.unwrap();
    assert_eq!(summary.programs, 1, "{summary:?}");
    {
        assert_eq!(summary.remeasured_batches, datagen::BUSY_RETRIES);
        let path = dir.join("shard-0-of-1.jsonl");
        let mut n = 0;
        datagen::for_each_line(&path, |l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            assert!(v["noisy"].as_bool().unwrap(), "{l}");
            assert!(v["busy_during"].as_f64().unwrap() > 0.15, "{l}");
            n += 1;
        })
        .unwrap();
        assert!(n >= 1, "at least the identity");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
