//! Waiting for a quiet machine before timing: a build or a test suite running beside a
//! measurement spoils it (the machines are shared), so the data generator samples how busy
//! the CPUs are, with its own measurement idle, and waits until other processes are done.

use std::time::{Duration, Instant};

/// Busy fraction of all CPUs over `window` (0 = idle, 1 = every core busy), from the
/// kernel's counters in /proc/stat. None where they cannot be read (not Linux).
pub fn cpu_busy(window: Duration) -> Option<f64> {
    fn sample() -> Option<(u64, u64)> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let line = stat.lines().find(|l| l.starts_with("cpu "))?;
        let v: Vec<u64> = line.split_whitespace().skip(1).filter_map(|x| x.parse().ok()).collect();
        // user nice system idle iowait irq softirq steal ...: idle time is idle + iowait.
        let total: u64 = v.iter().take(8).sum();
        let idle = v.get(3).copied().unwrap_or(0) + v.get(4).copied().unwrap_or(0);
        Some((total, idle))
    }
    let (t0, i0) = sample()?;
    std::thread::sleep(window);
    let (t1, i1) = sample()?;
    let total = t1.saturating_sub(t0);
    (total > 0).then(|| 1.0 - i1.saturating_sub(i0) as f64 / total as f64)
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
    fn a_spinning_process_makes_the_machine_busy() {
        if cpu_busy(Duration::from_millis(10)).is_none() {
            return; // no /proc/stat here
        }
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
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
