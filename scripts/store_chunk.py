"""Stores the points of a datagen output directory that no committed chunk holds yet as the
next chunk, PREFIX-NNN.jsonl.gz in DIR (whole programs only: a batch's points are written at
once). Chunks are never rewritten, so each commit of new data adds only its own points.

    .venv/bin/python scripts/store_chunk.py RAW_DIR DIR PREFIX
"""

from __future__ import annotations

import gzip
import json
import pathlib
import sys


def main(argv) -> int:
    raw, out, prefix = pathlib.Path(argv[0]), pathlib.Path(argv[1]), argv[2]
    out.mkdir(parents=True, exist_ok=True)
    chunks = sorted(out.glob(f"{prefix}-[0-9][0-9][0-9].jsonl.gz"))
    stored = set()
    for c in chunks:
        with gzip.open(c, "rt") as f:
            stored.update(json.loads(line)["program_id"] for line in f if line.strip())
    lines: dict[str, list[str]] = {}
    sizes: dict[str, int] = {}
    # The measured points only: `shard-*.failed.jsonl` logs the programs that failed.
    for shard in sorted(p for p in raw.glob("shard-*.jsonl") if not p.name.endswith(".failed.jsonl")):
        for line in shard.read_text().splitlines():
            try:
                point = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line torn by a kill (datagen measures that program again)
            if "schedule" in point and point["program_id"] not in stored:
                lines.setdefault(point["program_id"], []).append(line)
                sizes[point["program_id"]] = point["batch_size"]
    # Whole programs only (a kill can leave a program's points cut short).
    new = [line for pid, ls in lines.items() if len(ls) == sizes[pid] for line in ls]
    partial = sum(len(ls) != sizes[pid] for pid, ls in lines.items())
    if partial:
        print(f"{partial} programs left out: fewer points than their batch (cut short, or a mismatch not stored)")
    if not new:
        print(f"no new points in {raw} (chunks hold {len(stored)} programs)")
        return 0
    number = 1 + max((int(c.name[len(prefix) + 1:len(prefix) + 4]) for c in chunks), default=-1)
    path = out / f"{prefix}-{number:03d}.jsonl.gz"
    with gzip.open(path, "xt") as f:
        f.write("\n".join(new) + "\n")
    programs = len({json.loads(l)["program_id"] for l in new})
    print(f"{len(new)} points of {programs} programs -> {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
