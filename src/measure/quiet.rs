//! Waiting for a quiet machine before timing: a build or a test suite running beside a
//! measurement spoils it (the machines are shared), so the data generator samples how busy
//! the CPUs are, with its own measurement idle, and waits until other processes are done.
//! A process that starts while a batch runs is caught afterwards: [`CpuCounters`] taken
//! around the batch tell how much of the CPUs others used meanwhile (ours subtracted).
//! The pass's measuring evaluators take [`turn`]s instead: one measurement at a time on
//! the machine, across threads and processes.

/// This machine's turn to measure, held by one measurement at a time across the threads
/// of a process and across processes (an advisory lock on a file in the temporary
/// directory): the pass's measuring evaluators in several mlir-opt processes of one build,
/// or several `autosched tune` processes, take turns instead of disturbing each other.
pub struct Turn {
    _thread: std::sync::MutexGuard<'static, ()>,
    _file: Option<std::fs::File>,
}

/// Waits for this machine's turn to measure.
pub fn turn() -> Turn {
    static THREADS: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let thread = THREADS.lock().unwrap_or_else(|p| p.into_inner());
    let path = std::env::temp_dir().join("affine-autosched-measure.lock");
    let file = std::fs::OpenOptions::new().create(true).append(true).open(&path).ok();
    if let Some(f) = &file {
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor this function owns; released when the file closes.
        // Without the lock (an unusual file system) measurements only take turns within
        // the process, as before.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) } != 0 {
            log::debug!("no measurement lock on {}: {}", path.display(), std::io::Error::last_os_error());
        }
    }
    Turn { _thread: thread, _file: file }
}

use std::time::{Duration, Instant};

/// Busy fraction of all CPUs over `window` (0 = idle, 1 = every core busy), from the
/// kernel's counters in /proc/stat. None where they cannot be read (not Linux).
pub fn cpu_busy(window: Duration) -> Option<f64> {
    let sample = || parse_stat(&std::fs::read_to_string("/proc/stat").ok()?);
    let (b0, t0) = sample()?;
    std::thread::sleep(window);
    let (b1, t1) = sample()?;
    let total = t1.saturating_sub(t0);
    (total > 0).then(|| b1.saturating_sub(b0) as f64 / total as f64)
}

/// CPU time counters, in the kernel's clock ticks: all CPUs' busy and total time
/// (/proc/stat), and this process's own time with that of its children it has waited for
/// (/proc/self/stat: compile jobs and the measuring driver).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuCounters {
    pub busy: u64,
    pub total: u64,
    pub own: u64,
}

impl CpuCounters {
    /// None where the counters cannot be read (not Linux).
    pub fn read() -> Option<Self> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let (busy, total) = parse_stat(&stat)?;
        let own = parse_self_stat(&std::fs::read_to_string("/proc/self/stat").ok()?)?;
        Some(CpuCounters { busy, total, own })
    }

    /// Share of all CPUs (0 to 1) that other processes kept busy between `self` and `later`.
    pub fn others_busy(&self, later: &CpuCounters) -> Option<f64> {
        let total = later.total.checked_sub(self.total).filter(|t| *t > 0)?;
        let busy = later.busy.saturating_sub(self.busy);
        let own = later.own.saturating_sub(self.own);
        Some(busy.saturating_sub(own) as f64 / total as f64)
    }
}

/// (busy, total) ticks of all CPUs from /proc/stat's `cpu` line; idle time is idle + iowait.
fn parse_stat(stat: &str) -> Option<(u64, u64)> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line.split_whitespace().skip(1).filter_map(|x| x.parse().ok()).collect();
    // user nice system idle iowait irq softirq steal (guest time is already in user).
    let total: u64 = v.iter().take(8).sum();
    let idle = v.get(3).copied().unwrap_or(0) + v.get(4).copied().unwrap_or(0);
    Some((total.saturating_sub(idle), total))
}

/// utime + stime + cutime + cstime from /proc/self/stat (fields 14 to 17; the command name,
/// field 2, is in parentheses and may hold spaces, so fields are counted after its ')').
fn parse_self_stat(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state): field n is f[n - 3].
    (11..15).map(|i| f.get(i)?.parse::<i64>().ok().map(|x| x.max(0) as u64)).sum()
}

/// When a machine counts as quiet, and how long to wait for it.
#[derive(Clone, Debug)]
pub struct QuietPolicy {
    /// Busy fraction of all CPUs (others' load: ours is idle while we look) above which
    /// the machine is busy.
    pub max_busy: f64,
    /// Each look lasts this long.
    pub window: Duration,
    /// Pause between looks while busy.
    pub pause: Duration,
    /// Give up waiting after this long and measure anyway (the record says how busy it was).
    pub max_wait: Duration,
}

impl Default for QuietPolicy {
    fn default() -> Self {
        QuietPolicy {
            max_busy: 0.15,
            window: Duration::from_millis(100),
            pause: Duration::from_secs(2),
            max_wait: Duration::from_secs(600),
        }
    }
}

/// What waiting found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuietWait {
    /// Seconds spent waiting for other processes.
    pub waited_s: f64,
    /// The busy fraction of the last look (the one measuring went ahead on).
    pub busy: f64,
    /// False when `max_wait` ran out with the machine still busy.
    pub quiet: bool,
}

/// Looks (through `probe`, which returns the busy fraction of one look) until the machine is
/// quiet or `max_wait` has passed. A probe that cannot tell (None) counts as quiet.
pub fn wait_until_quiet(policy: &QuietPolicy, mut probe: impl FnMut(Duration) -> Option<f64>) -> QuietWait {
    let started = Instant::now();
    loop {
        let Some(busy) = probe(policy.window) else {
            return QuietWait { waited_s: started.elapsed().as_secs_f64(), busy: 0.0, quiet: true };
        };
        let quiet = busy <= policy.max_busy;
        if quiet || started.elapsed() >= policy.max_wait {
            return QuietWait { waited_s: started.elapsed().as_secs_f64(), busy, quiet };
        }
        log::info!("the machine is busy ({:.0}% of the CPUs): waiting before measuring", busy * 100.0);
        std::thread::sleep(policy.pause);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_while_busy_and_gives_up_at_the_limit() {
        let policy = QuietPolicy { pause: Duration::from_millis(1), window: Duration::ZERO, ..Default::default() };
        let mut looks = vec![0.9, 0.5, 0.05].into_iter();
        let w = wait_until_quiet(&policy, |_| looks.next());
        assert!(w.quiet && w.busy == 0.05);
        assert!(looks.next().is_none(), "three looks");
        let impatient = QuietPolicy { max_wait: Duration::from_millis(20), ..policy };
        let w = wait_until_quiet(&impatient, |_| Some(1.0));
        assert!(!w.quiet && w.busy == 1.0 && w.waited_s >= 0.02);
        assert!(wait_until_quiet(&impatient, |_| None).quiet, "no counters: measure");
    }

    #[test]
    fn counters_parse_and_subtract_our_own_time() {
        let stat = "cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3 4\n";
        assert_eq!(parse_stat(stat), Some((150, 1000)));
        // A command name with spaces and parentheses; utime 7, stime 3, cutime 20, cstime 5.
        let own = "42 (my (odd) name) R 1 2 3 4 5 6 7 8 9 10 7 3 20 5 20 0 1 0 100 200 300";
        assert_eq!(parse_self_stat(own), Some(35));
        let a = CpuCounters { busy: 100, total: 1000, own: 10 };
        // 200 ticks of 1000 busy, 50 of them ours: others used 15%.
        let b = CpuCounters { busy: 300, total: 2000, own: 60 };
        assert!((a.others_busy(&b).unwrap() - 0.15).abs() < 1e-12);
        assert_eq!(a.others_busy(&a), None, "no time passed");
        // Our own spinning is not others' load.
        if let Some(before) = CpuCounters::read() {
            let t = std::time::Instant::now();
            let mut x = 0u64;
            while t.elapsed() < Duration::from_millis(300) {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                std::hint::black_box(x);
            }
            let after = CpuCounters::read().unwrap();
            let cores = crate::machine::cores() as f64;
            // One core spun of `cores`: up to 1/cores of all CPU time is counted as ours (so
            // it is not taken for others' load). Less when other processes compete for the
            // cores (0.62 of a core beside two busy trainers on 2 cores, 0.15 when the test
            // itself ran at nice 10 beside them): this asks only that our time is counted at
            // all (a few ticks of 300 ms).
            let own_share = (after.own - before.own) as f64 / (after.total - before.total) as f64;
            assert!(after.own > before.own && own_share > 0.02 / cores, "{own_share}");
        }
    }

    #[test]
    fn a_spinning_process_makes_the_machine_busy() {
        if cpu_busy(Duration::from_millis(10)).is_none() {
            return; // no /proc/stat here
        }
        let cores = crate::machine::cores();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let spinners: Vec<_> = (0..cores)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                        std::hint::black_box(x);
                    }
                })
            })
            .collect();
        let busy = cpu_busy(Duration::from_millis(300)).unwrap();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for s in spinners {
            s.join().unwrap();
        }
        assert!(busy > 0.5, "{busy}");
        let w = wait_until_quiet(&QuietPolicy { max_wait: Duration::ZERO, ..Default::default() }, |_| Some(busy));
        assert!(!w.quiet);
    }
}
