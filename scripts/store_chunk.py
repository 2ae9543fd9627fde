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
    new = []
    for shard in sorted(raw.glob("shard-*.jsonl")):
        for line in shard.read_text().splitlines():
            if line.strip() and json.loads(line)["program_id"] not in stored:
                new.append(line)
    if not new:
        print(f"no new points in {raw} (chunks hold {len(stored)} programs)")
        return 0
    path = out / f"{prefix}-{len(chunks):03d}.jsonl.gz"
    with gzip.open(path, "wt") as f:
        f.write("\n".join(new) + "\n")
    programs = len({json.loads(l)["program_id"] for l in new})
    print(f"{len(new)} points of {programs} programs -> {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
