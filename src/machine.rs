//! What this machine's memory hierarchy is: the data and unified caches of one core, read
//! from sysfs. The data generator records them with every point; the tile-size model
//! (`schedule::tile_sizes`) sizes tiles by them.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cache {
    pub level: u32,
    pub bytes: u64,
    /// Logical CPUs sharing it (1 for a private cache; 0 where sysfs does not say).
    #[serde(default)]
    pub shared_by: u32,
}

/// The data and unified caches of CPU 0, by level (empty where sysfs does not say).
pub fn detect_caches() -> Vec<Cache> {
    let mut out = Vec::new();
    for index in 0..8 {
        let dir = PathBuf::from(format!("/sys/devices/system/cpu/cpu0/cache/index{index}"));
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).ok().map(|s| s.trim().to_string());
        let (Some(level), Some(kind), Some(size)) = (read("level"), read("type"), read("size")) else { continue };
        if kind == "Instruction" {
            continue;
        }
        let bytes = match size.strip_suffix('K') {
            Some(k) => k.parse::<u64>().ok().map(|k| k * 1024),
            None => match size.strip_suffix('M') {
                Some(m) => m.parse::<u64>().ok().map(|m| m << 20),
                None => size.parse().ok(),
            },
        };
        let shared_by = read("shared_cpu_list").map_or(0, |l| cpu_count(&l));
        if let (Ok(level), Some(bytes)) = (level.parse(), bytes) {
            out.push(Cache { level, bytes, shared_by });
        }
    }
    out.sort_by_key(|c| c.level);
    out
}

/// This machine's caches, read once.
pub fn caches() -> &'static [Cache] {
    static CACHES: std::sync::OnceLock<Vec<Cache>> = std::sync::OnceLock::new();
    CACHES.get_or_init(detect_caches)
}

/// The CPUs this process may run on.
pub fn cores() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// CPUs in a sysfs list such as `0-3,8`.
fn cpu_count(list: &str) -> u32 {
    list.split(',')
        .filter(|r| !r.is_empty())
        .map(|r| match r.split_once('-') {
            Some((a, b)) => b.trim().parse::<u32>().unwrap_or(0).saturating_sub(a.trim().parse().unwrap_or(0)) + 1,
            None => 1,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    #[test]
    fn cpu_lists_are_counted() {
        assert_eq!(super::cpu_count("0"), 1);
        assert_eq!(super::cpu_count("0-1"), 2);
        assert_eq!(super::cpu_count("0-3,8,10-11"), 7);
    }
}
