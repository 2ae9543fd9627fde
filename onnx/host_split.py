"""Split a measured dataset by the host its points ran on: one host plays the new machine of
the adaptation experiment on recorded data (onnx/REPORT.md, "Adapting on recorded data").

    .venv/bin/python onnx/host_split.py onnx/data/real/dataset.jsonl.gz --host A \
        --here build/adapt-rec/here.jsonl.gz --elsewhere build/adapt-rec/elsewhere.jsonl.gz

Hosts are named as the data card names them (onnx/data_card.py: A has the most points).
`--here` gets every point measured on that host; `--elsewhere` every point of the other
hosts whose program has no point on it, so that no program the new machine is judged on
was seen by the model trained elsewhere, measured on any host.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from data_card import host_kind, load  # noqa: E402


def hosts(path: pathlib.Path) -> tuple[dict[str, str], dict[str, set[str]]]:
    """Host kind -> letter, as the data card names them (most points first), and host kind ->
    the programs with a point measured there: one read of the dataset."""
    count = collections.Counter()
    programs = collections.defaultdict(set)
    for p in load(path):
        kind = host_kind(p["machine"])
        count[kind] += 1
        programs[kind].add(p["program_id"])
    names = {k: chr(ord("A") + i) for i, (k, _) in enumerate(sorted(count.items(), key=lambda kv: -kv[1]))}
    return names, programs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset", type=pathlib.Path)
    ap.add_argument("--host", required=True, help="the data card's letter of the host that plays the new machine")
    ap.add_argument("--here", required=True, type=pathlib.Path)
    ap.add_argument("--elsewhere", required=True, type=pathlib.Path)
    args = ap.parse_args(argv)
    names, programs = hosts(args.dataset)
    kind = next((k for k, n in names.items() if n == args.host), None)
    if kind is None:
        print(f"host {args.host}: the dataset has hosts {', '.join(sorted(names.values()))}", file=sys.stderr)
        return 2
    here_programs = programs[kind]
    counts = collections.Counter()
    for path in (args.here, args.elsewhere):
        path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(args.here, "wt") as here, gzip.open(args.elsewhere, "wt") as elsewhere:
        for p in load(args.dataset):
            if host_kind(p["machine"]) == kind:
                here.write(json.dumps(p) + "\n")
                counts["here"] += 1
            elif p["program_id"] not in here_programs:
                elsewhere.write(json.dumps(p) + "\n")
                counts["elsewhere"] += 1
            else:
                counts["dropped"] += 1
    print(f"host {args.host} ({kind}): {counts['here']} points of {len(here_programs)} programs; elsewhere "
          f"{counts['elsewhere']} points; {counts['dropped']} points of its programs measured on other hosts left out")
    return 0


if __name__ == "__main__":
    sys.exit(main())
