"""Held-out errors grouped by the reduction chain (layout 7): the `evaluate.py --predictions`
files given, over the featurized data build/feat7. Wrote chain-errors.txt."""
import json, sys
import numpy as np

F = "build/feat7"
L = json.load(open(f"{F}/layout.json"))
names = [f["name"] for f in L["fields"]]
comps = np.load(f"{F}/comps.npy", mmap_mode="r")
off = np.load(f"{F}/comp_offsets.npy")
# Per loop level, the columns of the chain's fields and of the interchange tag.
levels = [{f: names.index(f"loop{d}.{f}") for f in ("chain", "chain_length", "chain_interleave", "interchanged")}
          for d in range(L["max_depth"])]
LONG, LONE = np.log1p(256) - 1e-4, np.log1p(1) + 1e-4  # 256 or more per entry; interleave 1


def groups(p):
    """Whether point p has a chain, a lone long one, one an interchange made, a lone long one so."""
    c = np.asarray(comps[off[p]:off[p + 1]])
    out = np.zeros(4, bool)
    for col in levels:
        on = c[:, col["chain"]] > 0.5
        lone = on & (c[:, col["chain_length"]] >= LONG) & (c[:, col["chain_interleave"]] <= LONE)
        moved = c[:, col["interchanged"]] > 0.5
        out |= [on.any(), lone.any(), (on & moved).any(), (lone & moved).any()]
    return out


def line(path, name, sel, r, meas=None, width=22):
    extra = f"  measured median {np.median(meas[sel]):.3f}" if meas is not None else ""
    print(f"{path}: {name:{width}} {sel.sum():6d} points  median predicted/measured {np.exp(np.median(r[sel])):.3f}"
          f"  mean |log ratio| {np.mean(np.abs(r[sel])):.3f}{extra}")


results = []
for path in sys.argv[1:]:
    z = np.load(path)
    pts, meas = z["point"], z["measured"]
    g = np.array([groups(p) for p in pts])
    results.append((path, np.log(z["predicted"] / meas), meas, g))
for path, r, _, g in results:
    for name, sel in [("all", np.ones(len(r), bool)), ("a chain", g[:, 0]), ("no chain", ~g[:, 0]),
                      ("a lone chain >= 256", g[:, 1])]:
        line(path, name, sel, r)
for path, r, meas, g in results:
    line(path, "interchange made a chain", g[:, 2], r, meas, 26)
    line(path, "... a lone one >= 256", g[:, 3], r, meas, 26)
