//! The fuzzer end to end on a few programs: random schedules are built, judged by the
//! oracle and run against the original; nothing may fail. (The default search needs the
//! shipped model and is exercised by the smoke campaign in scripts/test.sh.)

use affine_autosched::fuzz::{self, gen::FuzzProgram, FuzzConfig, Outcome};

#[test]
fn random_schedules_are_judged_and_run() {
    let cfg = FuzzConfig { default_search: false, hybrid_every: 0, wide_every: 0, random_schedules: 2, progress: false, ..Default::default() };
    let mut judged = 0;
    let mut accepted = 0;
    let mut ran = 0;
    for i in 0..6 {
        let p = FuzzProgram::generate(7, i);
        let rec = fuzz::fuzz_one(&p, &cfg);
        assert!(rec.failures.is_empty(), "{}: {:?}", rec.id, rec.failures);
        judged += rec.steps.iter().filter(|s| s.oracle != "unknown").count();
        accepted += rec.steps.iter().filter(|s| s.outcome == Outcome::Accepted).count();
        ran += rec.variants.iter().filter(|v| v.result == "equivalent").count();
    }
    assert!(judged > 10 && accepted > 5 && ran > 3, "judged {judged}, accepted {accepted}, ran {ran}");
}

#[test]
fn a_report_counts_what_it_read() {
    let recs: Vec<fuzz::ProgramRecord> = (0..3)
        .map(|i| {
            let p = FuzzProgram::generate(3, i);
            fuzz::fuzz_one(&p, &FuzzConfig { default_search: false, hybrid_every: 0, wide_every: 0, random_schedules: 1, ..Default::default() })
        })
        .collect();
    let s = fuzz::summarize(&recs);
    assert_eq!(s.programs, 3);
    let steps: usize = s.steps.values().flat_map(|m| m.values()).sum();
    assert_eq!(steps, recs.iter().map(|r| r.steps.len()).sum::<usize>());
    assert!(s.markdown("t", "c").contains("| kind |"));
}

#[test]
fn a_snapshot_of_no_campaign_says_so_and_writes_nothing() {
    let dir = std::env::temp_dir().join(format!("autosched-fuzz-none-{}", std::process::id()));
    let err = fuzz::write_snapshot(&dir).unwrap_err();
    assert!(matches!(err, fuzz::FuzzError::NoCampaign(_)), "{err}");
    assert!(err.to_string().contains("no campaign in"), "{err}");
    assert!(!dir.exists());
}
