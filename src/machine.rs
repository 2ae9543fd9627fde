//! What this machine is: the data and unified caches of one core, read from sysfs (the data
//! generator records them with every point; the tile-size model, `schedule::tile_sizes`,
//! sizes tiles by them), and the fingerprint the tuning records are keyed by.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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

/// What a measurement is valid for: the CPU model, the cores the process may use (OpenMP's
/// threads), the instruction-set extensions code generation for this host can use, and the
/// caches. Tuning records measured on one fingerprint are applied only on the same one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Fingerprint {
    pub cpu: String,
    pub cores: usize,
    /// The extensions of [`ISA_FEATURES`] this CPU has, in that order.
    pub isa: Vec<String>,
    pub caches: Vec<Cache>,
}

/// The x86 extensions that change what the compiler may emit for `-march=native`-style
/// code (vector width, FMA, masks). A fixed list rather than /proc/cpuinfo's flags, which
/// also name kernel and virtualization details that do not change the code.
pub const ISA_FEATURES: &[&str] = &[
    "sse4.2", "avx", "avx2", "fma", "f16c", "bmi2", "avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512vnni",
    "avx512bf16", "avx512fp16",
];

impl Fingerprint {
    /// A short stable identifier: the first 16 hex digits of the SHA-256 of its JSON form.
    pub fn id(&self) -> String {
        use sha2::{Digest, Sha256};
        let json = serde_json::to_string(self).unwrap_or_default();
        crate::ir::canonical::hex(&Sha256::digest(json.as_bytes())[..8])
    }

    /// Whether it tells this machine apart from others: a CPU model or instruction-set
    /// extensions. Without either (a sandbox hiding /proc/cpuinfo), records are not applied.
    pub fn is_specific(&self) -> bool {
        self.cpu != "unknown" || !self.isa.is_empty()
    }

    /// One line for remarks: `AMD EPYC, 2 cores, avx2+fma, L2 512 KiB, L3 32 MiB`.
    pub fn describe(&self) -> String {
        let isa = self.isa.iter().filter(|f| ["avx2", "fma", "avx512f"].contains(&f.as_str())).cloned().collect::<Vec<_>>();
        let caches: Vec<String> = self
            .caches
            .iter()
            .filter(|c| c.level >= 2)
            .map(|c| match c.bytes {
                b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("L{} {} MiB", c.level, b >> 20),
                b => format!("L{} {} KiB", c.level, b >> 10),
            })
            .collect();
        let mut parts = vec![self.cpu.clone(), format!("{} cores", self.cores)];
        if !isa.is_empty() {
            parts.push(isa.join("+"));
        }
        parts.extend(caches);
        parts.join(", ")
    }
}

/// The vector registers code generation for this host has: 32 with AVX-512 (which also
/// gives 256-bit code ymm16-31), else 16 (AVX2's ymm, SSE's xmm).
pub fn vector_registers() -> u32 {
    vector_registers_of(&fingerprint().isa)
}

/// The vector registers of a host with these ISA features (a data point's `machine.isa`).
pub fn vector_registers_of(isa: &[String]) -> u32 {
    if isa.iter().any(|f| f == "avx512f") {
        32
    } else {
        16
    }
}

/// This machine's fingerprint, read once.
pub fn fingerprint() -> &'static Fingerprint {
    static FP: std::sync::OnceLock<Fingerprint> = std::sync::OnceLock::new();
    FP.get_or_init(|| Fingerprint { cpu: cpu_model(), cores: cores(), isa: isa_features(), caches: caches().to_vec() })
}

/// The `model name` of /proc/cpuinfo (trimmed); on CPUs whose kernel gives none (most of
/// aarch64), the implementer, part and variant; else `unknown`.
fn cpu_model() -> String {
    let Ok(text) = std::fs::read_to_string("/proc/cpuinfo") else { return "unknown".into() };
    let field = |key: &str| {
        text.lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == key))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.split_whitespace().collect::<Vec<_>>().join(" "))
    };
    if let Some(name) = field("model name") {
        return name;
    }
    match (field("CPU implementer"), field("CPU part")) {
        (Some(i), Some(p)) => format!("implementer {i} part {p} variant {}", field("CPU variant").unwrap_or_default()),
        _ => "unknown".into(),
    }
}

fn isa_features() -> Vec<String> {
    #[cfg(target_arch = "x86_64")]
    {
        let has = |f: &str| match f {
            "sse4.2" => std::arch::is_x86_feature_detected!("sse4.2"),
            "avx" => std::arch::is_x86_feature_detected!("avx"),
            "avx2" => std::arch::is_x86_feature_detected!("avx2"),
            "fma" => std::arch::is_x86_feature_detected!("fma"),
            "f16c" => std::arch::is_x86_feature_detected!("f16c"),
            "bmi2" => std::arch::is_x86_feature_detected!("bmi2"),
            "avx512f" => std::arch::is_x86_feature_detected!("avx512f"),
            "avx512bw" => std::arch::is_x86_feature_detected!("avx512bw"),
            "avx512vl" => std::arch::is_x86_feature_detected!("avx512vl"),
            "avx512dq" => std::arch::is_x86_feature_detected!("avx512dq"),
            "avx512vnni" => std::arch::is_x86_feature_detected!("avx512vnni"),
            "avx512bf16" => std::arch::is_x86_feature_detected!("avx512bf16"),
            "avx512fp16" => std::arch::is_x86_feature_detected!("avx512fp16"),
            _ => false,
        };
        ISA_FEATURES.iter().filter(|f| has(f)).map(|f| f.to_string()).collect()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Vec::new()
    }
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
