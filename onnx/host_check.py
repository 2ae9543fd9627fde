"""Labels of the same (program, schedule) measured on two hosts: how far a host change moves
speedups and the order of one program's schedules.

    .venv/bin/python onnx/host_check.py onnx/data/real/dataset.jsonl.gz \
        onnx/data/real/host-check/sample-host-b.jsonl.gz

Pairs the second file's scheduled points with the first's (censored points left out), groups
them by the first copy's host (the L2 of one core) -> the second's, and prints the speedup
ratio and the share of one program's ordered pairs (over 10% apart in the first copy) that
keep their order: the agreement a model of one host's labels can hope for on the other."""
import argparse
import collections
import gzip
import json
import math


def load(path, keep=None):
    out = {}
    with (gzip.open if str(path).endswith(".gz") else open)(path, "rt") as f:
        for line in f:
            d = json.loads(line)
            key = (d["program_id"], d["schedule"])
            if keep is not None and key not in keep:
                continue
            l2 = next((c["bytes"] for c in d["machine"].get("caches", []) if c["level"] == 2), 0)
            out[key] = (d["speedup"], bool(d.get("censored")), l2)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("first")
    p.add_argument("again", nargs="+")
    args = p.parse_args(argv)
    new = {}
    for f in args.again:
        new.update(load(f))
    old = load(args.first, keep=set(new))
    ratios = collections.defaultdict(list)
    programs = collections.defaultdict(list)
    for k, (s, c, l2) in new.items():
        if not k[1] or k not in old or c or old[k][1]:
            continue
        group = f"L2 {old[k][2] // 1024} KiB -> {l2 // 1024} KiB"
        ratios[group].append(s / old[k][0])
        programs[(group, k[0])].append((old[k][0], s))
    for g, r in sorted(ratios.items()):
        r.sort()
        n = len(r)
        agree = total = 0
        for (gg, _), v in programs.items():
            if gg != g:
                continue
            for i in range(len(v)):
                for j in range(i + 1, len(v)):
                    (a0, a1), (b0, b1) = v[i], v[j]
                    if abs(math.log(a0 / b0)) < math.log(1.1):
                        continue
                    total += 1
                    agree += (a0 > b0) == (a1 > b1)
        within = sum(abs(math.log(x)) < math.log(1.1) for x in r) / n
        print(f"{g}: {n} points; speedup again / first: median {r[n // 2]:.3f}, 10th-90th percentile "
              f"{r[n // 10]:.2f}-{r[9 * n // 10]:.2f}, within 10%: {within:.1%}; ordered pairs that keep their "
              f"order: {agree}/{total} = {agree / max(total, 1):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
