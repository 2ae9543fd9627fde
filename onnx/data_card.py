"""Writes the data card of a dataset: README.md, speedups.png and sizes.png in --out-dir.

    .venv/bin/python onnx/data_card.py onnx/data/dataset.jsonl.gz [--failed DIR]
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import math
import pathlib
import re
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path: pathlib.Path):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


ELEM_BYTES = {"f16": 2, "bf16": 2, "i16": 2, "f32": 4, "i32": 4, "f64": 8, "i64": 8, "index": 8, "i1": 1, "i8": 1}


def working_set(point) -> int:
    """Bytes of every buffer of the point's program."""
    total = 0
    for b in point["representation"]["buffers"]:
        n = 1
        for d in b["shape"]:
            n *= d
        total += n * ELEM_BYTES.get(b["element_type"], 4)
    return total


def size_histograms(identities, caches, path: pathlib.Path):
    """Per class: identity run times, and working sets against the cache sizes."""
    classes = sorted({p["class"] for p in identities})
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for c in classes:
        times = [math.log10(p["identity_time_s"]) for p in identities if p["class"] == c]
        sets = [math.log2(max(working_set(p), 1)) for p in identities if p["class"] == c]
        axes[0].hist(times, bins=30, histtype="step", label=c)
        axes[1].hist(sets, bins=30, histtype="step", label=c)
    axes[0].set_xlabel("log10(identity run time, s)")
    axes[1].set_xlabel("log2(working set, bytes)")
    for cache in caches:
        axes[1].axvline(math.log2(cache["bytes"]), color="black", linewidth=0.8, linestyle="--")
        axes[1].text(math.log2(cache["bytes"]), axes[1].get_ylim()[1] * 0.95, f" L{cache['level']}", fontsize=8)
    for ax in axes:
        ax.set_ylabel("programs")
    axes[1].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def host_kind(machine):
    """The hosts a point may have run on, told apart by what changes its code and its timing:
    the CPU's name, cores, vector extensions (recorded since 2026-11-26) and the caches of one
    core. Hypervisors may show different CPUs under one name ("AMD EPYC")."""
    caches = ", ".join("L%d %d KiB" % (c["level"], c["bytes"] // 1024) for c in machine.get("caches", []))
    isa = machine.get("isa")
    vector = ("AVX-512" if "avx512f" in isa else "AVX2" if "avx2" in isa else "no AVX2") if isa else "ISA not recorded"
    return f"{machine['cpu']}, {machine['cores']} cores, {vector}, {caches or 'caches not recorded'}"


def machines_table(points):
    """Points and programs per host kind, with the identity's median time where one program
    was measured on two hosts (points measured again elsewhere): how far the hosts differ."""
    kinds = collections.defaultdict(lambda: [set(), 0])
    identity = collections.defaultdict(dict)
    for p in points:
        k = host_kind(p["machine"])
        kinds[k][0].add(p["program_id"])
        kinds[k][1] += 1
        # Every point carries its batch's identity time: a program measured again on another
        # host keeps the first host's in its other points.
        identity[p["program_id"]][k] = p["identity_time_s"]
    if len(kinds) < 2:
        return []
    order = sorted(kinds, key=lambda k: -kinds[k][1])
    name = {k: chr(ord("A") + i) for i, k in enumerate(order)}
    lines = ["", "| host | kind | programs | points |", "| --- | --- | ---: | ---: |"]
    for k in order:
        lines.append(f"| {name[k]} | {k} | {len(kinds[k][0])} | {kinds[k][1]} |")
    pairs = collections.defaultdict(list)
    for times in identity.values():
        if len(times) == 2:
            (a, ta), (b, tb) = sorted(times.items(), key=lambda kv: name[kv[0]])
            pairs[(a, b)].append(tb / ta)
    for (a, b), r in pairs.items():
        r.sort()
        lines += ["", f"{len(r)} programs have an identity measured on hosts {name[a]} and {name[b]}: its time on "
                      f"{name[b]} over {name[a]}, median {statistics.median(r):.2f}x (10th percentile {r[len(r) // 10]:.2f}x, 90th "
                      f"{r[9 * len(r) // 10]:.2f}x). A program's speedups are ratios within one batch on one host, "
                      "but which schedule wins may differ between hosts."]
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dataset", type=pathlib.Path)
    ap.add_argument("--out-dir", type=pathlib.Path, default=pathlib.Path(__file__).parent / "data")
    ap.add_argument("--failed", type=pathlib.Path, nargs="*", default=[],
                    help="*.failed.jsonl files of the runs (programs that could not be measured)")
    ap.add_argument("--command", action="append", default=[],
                    help="a command that generated (part of) the dataset; repeat for each part")
    ap.add_argument("--note", action="append", default=[], help="a line for the card (e.g. points measured again)")
    args = ap.parse_args(argv)

    points = list(load(args.dataset))
    if not points:
        raise SystemExit("empty dataset")
    by_class = collections.Counter()
    programs_by_class = collections.defaultdict(set)
    batches = {}
    speedups, spreads = [], []
    noisy = 0
    kinds = collections.Counter()
    for p in points:
        by_class[p["class"]] += 1
        programs_by_class[p["class"]].add(p["program_id"])
        batches[p["program_id"]] = (p["batch_compile_s"], p["batch_run_s"], p["batch_size"])
        if p["schedule"]:
            speedups.append(p["speedup"])
            for step in p["schedule"].split(";"):
                kinds[step.strip().split("(")[0]] += 1
        spreads.append(p["spread"])
        noisy += bool(p["noisy"])
    programs = sum(len(s) for s in programs_by_class.values())
    compile_s = sum(b[0] for b in batches.values())
    run_s = sum(b[1] for b in batches.values())
    failed = []
    for f in args.failed:
        if f.exists():
            failed += [json.loads(l) for l in f.read_text().splitlines() if l.strip()]
    mismatches = [f for f in failed if str(f.get("error", "")).startswith("mismatch")]
    # The host most points ran on (the card lists the others where there are several).
    common = collections.Counter(host_kind(p["machine"]) for p in points).most_common(1)[0][0]
    machine = next(p["machine"] for p in points if host_kind(p["machine"]) == common)

    args.out_dir.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(7, 4))
    logs = [math.log2(s) for s in speedups if s > 0]
    ax.hist(logs, bins=60, color="#4477aa")
    ax.set_xlabel("log2(speedup over the identity)")
    ax.set_ylabel("points")
    ax.set_title(f"{len(speedups)} scheduled points of {programs} programs")
    ax.axvline(0, color="black", linewidth=0.8)
    fig.tight_layout()
    fig.savefig(args.out_dir / "speedups.png", dpi=110)

    def q(xs, f):
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(f * len(xs)))]

    lines = [
        "# Dataset card",
        "",
        f"File: `{args.dataset.name}` (gzip-compressed JSON Lines, one point per line; fields: the",
        "program's MLIR and representation, the schedule text, median time and every timed run,",
        "relative spread, identity time from the same batch, speedup, batch compile/run time, machine).",
        "",
        ("Generated by: " + "; ".join(f"`{c}`" for c in args.command)) if args.command else "",
        "",
        *[f"{n}" for n in args.note],
        *([""] if args.note else []),
        f"- points: {len(points)} ({len(points) - len(speedups)} identities + {len(speedups)} scheduled)",
        f"- programs: {programs}; failed programs (not measurable, logged, not stored): "
        f"{len(failed) - len(mismatches)}; output mismatches (bugs, never stored): {len(mismatches)}",
        f"- machine: {machine['cpu']}, {machine['cores']} cores, {machine['llvm']}, "
        f"OMP_NUM_THREADS={machine['threads']}" + (f" {machine['omp']}" if machine.get("omp") else ""),
        f"- time per point: {(compile_s + run_s) / len(points):.3f} s of compile+run "
        f"({compile_s / len(points):.3f} s compiling, {run_s / len(points):.3f} s running the driver)",
        f"- noise: median relative MAD {statistics.median(spreads):.3%}, 90th percentile {q(spreads, 0.9):.3%}; "
        f"{noisy} points ({noisy / len(points):.1%}) flagged noisy (their or their identity's MAD > 5%)",
        f"- speedups: median {statistics.median(speedups):.3f}, 10th percentile {q(speedups, 0.1):.3f}, "
        f"90th percentile {q(speedups, 0.9):.3f}, max {max(speedups):.2f}; "
        f"{sum(s > 1.1 for s in speedups) / len(speedups):.1%} faster than the identity by >10%",
        "",
        "| class | programs | points |",
        "| --- | ---: | ---: |",
    ]
    for c in sorted(by_class):
        lines.append(f"| {c} | {len(programs_by_class[c])} | {by_class[c]} |")
    parts = collections.defaultdict(lambda: [set(), 0])
    lengths = collections.defaultdict(list)
    for p in points:
        part = parts[re.sub(r"-p[0-9]+$", "", p["program_id"])]
        part[0].add(p["program_id"])
        part[1] += 1
        if p["schedule"]:
            lengths[min(p["schedule"].count(";") + 1, 9)].append(p["speedup"])
    if len(parts) > 1:
        lines += ["", "| part (program ids) | programs | points |", "| --- | ---: | ---: |"]
        for name in sorted(parts):
            lines.append(f"| `{name}-p*` | {len(parts[name][0])} | {parts[name][1]} |")
    lines += ["", "| steps per schedule | points | median speedup | faster by >10% |", "| --- | ---: | ---: | ---: |"]
    for n in sorted(lengths):
        xs = lengths[n]
        lines.append(f"| {n if n < 9 else '9 or more'} | {len(xs)} | {statistics.median(xs):.3f} | "
                     f"{sum(x > 1.1 for x in xs) / len(xs):.1%} |")
    lines += machines_table(points)
    lines += ["", "| transformation | schedules using it |", "| --- | ---: |"]
    for k, n in kinds.most_common():
        lines.append(f"| {k} | {n} |")
    identities = [p for p in points if not p["schedule"]]
    caches = machine.get("caches", [])
    size_histograms(identities, caches, args.out_dir / "sizes.png")
    times = [p["identity_time_s"] for p in identities]
    sets = [working_set(p) for p in identities]
    llc = max((c["bytes"] for c in caches), default=0)
    censored = sum(bool(p.get("censored")) for p in points)
    cache_text = ", ".join("L%d %d KiB" % (c["level"], c["bytes"] // 1024) for c in caches)
    waited = sum(p.get("quiet_wait_s", 0.0) for p in identities)
    walled = [p for p in identities if p.get("batch_wall_s", 0.0) > 0]
    checked = sum("busy_during" in p for p in identities)
    remeasured = sum(p.get("busy_retries", 0) > 0 for p in identities)
    disturbed = sum(p.get("busy_during", 0.0) > 0.15 for p in identities)
    wall = sum(p["batch_wall_s"] for p in walled)
    walled_wait = sum(p.get("quiet_wait_s", 0.0) for p in walled)
    calm = [p for p in walled if p.get("busy_retries", 0) == 0 and p.get("quiet_wait_s", 0.0) < 1.0]
    calm_wall = sum(p["batch_wall_s"] - p.get("quiet_wait_s", 0.0) for p in calm)
    stored = collections.Counter(p["program_id"] for p in points)
    walled_points = sum(stored[p["program_id"]] for p in walled)
    calm_points = sum(stored[p["program_id"]] for p in calm)
    lines += [
        "",
        "## Sizes",
        "",
        f"Identity run time: median {statistics.median(times) * 1e3:.2f} ms, 5th percentile "
        f"{q(times, 0.05) * 1e3:.3f} ms, 95th {q(times, 0.95) * 1e3:.1f} ms, max {max(times) * 1e3:.1f} ms. "
        f"Working set: median {statistics.median(sets) / 2**20:.2f} MiB, 5th percentile {q(sets, 0.05) / 2**10:.1f} KiB, "
        f"95th {q(sets, 0.95) / 2**20:.1f} MiB"
        + (f"; {sum(s > llc for s in sets) / len(sets):.0%} of the programs exceed the last-level cache "
           f"({llc / 2**20:.0f} MiB) and {sum(s > 4 * llc for s in sets) / len(sets):.0%} four times it." if llc else "."),
        f"Caches of the machine (of one core; the host most points ran on): {cache_text or 'not recorded'}.",
        f"Censored points (a variant over 4x slower than its identity, timed once; its speedup is a bound; "
        "since 2026-11-27 a check run that reaches 16x the identity's time, 0.2 s at least, is stopped there, "
        f"and that variant is censored at the time it was stopped, its outputs not compared): {censored}. "
        f"Time spent waiting for a quiet machine before measuring: {waited:.0f} s (before each batch the "
        "generator samples the CPU use of the machine for 0.1 s (0.3 s in its first hour) and waits while others use over 15% of it)."
        + (f" The generator also checks the CPU use of other processes while each batch runs ({checked} programs "
           f"so checked): {remeasured} batches were disturbed (over 15%) and measured again, and {disturbed} were "
           "still disturbed after two more tries and kept with their points flagged noisy." if checked else ""),
        f"Throughput: {walled_points / wall * 3600:,.0f} points per hour of generator wall time "
        f"({walled_points} points of {len(walled)} programs in {wall / 3600:.2f} h, from generating each program "
        "to writing its records; failed programs not counted)"
        + (f"; {walled_points / (wall - walled_wait) * 3600:,.0f} per hour without the {walled_wait / 3600:.2f} h "
           "it waited for other work on the machine to stop" if 0 < walled_wait < wall else "")
        + (f"; {calm_points / calm_wall * 3600:,.0f} per hour over the {calm_wall / 3600:.2f} h of batches nothing "
           "disturbed (no wait, no measuring again): what a machine left to the generator does."
           if calm_wall > 0 else ".") if wall > 0 else None,
        "",
        "| class | identity median ms | working set median MiB |",
        "| --- | ---: | ---: |",
    ]
    for c in sorted({p["class"] for p in identities}):
        ts = [p["identity_time_s"] for p in identities if p["class"] == c]
        ws = [working_set(p) for p in identities if p["class"] == c]
        lines.append(f"| {c} | {statistics.median(ts) * 1e3:.2f} | {statistics.median(ws) / 2**20:.2f} |")
    lines += ["", "![speedup histogram](speedups.png)", "", "![run times and working sets per class](sizes.png)", ""]
    (args.out_dir / "README.md").write_text("\n".join(l for l in lines if l is not None) + "\n")
    print(f"{len(points)} points, {programs} programs -> {args.out_dir / 'README.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
