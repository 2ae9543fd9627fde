"""Over-prediction of the held-out points by whether a computation runs a long, lone chain."""
import json, sys
import numpy as np
F = "build/feat7"
L = json.load(open(f"{F}/layout.json"))
names = [f["name"] for f in L["fields"]]
comps = np.load(f"{F}/comps.npy", mmap_mode="r")
off = np.load(f"{F}/comp_offsets.npy"); cnt = np.load(f"{F}/comp_counts.npy")
def cols(suffix): return [i for i, n in enumerate(names) if n.endswith(suffix)]
ch, ln, il = cols(".chain"), cols(".chain_length"), cols(".chain_interleave")
for path in sys.argv[1:]:
    z = np.load(path)
    pts, pred, meas = z["point"], z["predicted"], z["measured"]
    lone_long = np.zeros(len(pts), bool); any_chain = np.zeros(len(pts), bool)
    for n, p in enumerate(pts):
        c = np.asarray(comps[off[p]:off[p + 1]])
        on = c[:, ch] > 0.5
        any_chain[n] = on.any()
        # a chain of 256 or more per entry that runs alone (interleave 1)
        lone_long[n] = (on & (c[:, ln] >= np.log1p(256) - 1e-4) & (c[:, il] <= np.log1p(1) + 1e-4)).any()
    r = np.log(pred / meas)
    for name, sel in [("all", np.ones(len(pts), bool)), ("a chain", any_chain), ("no chain", ~any_chain),
                      ("a lone chain >= 256", lone_long)]:
        print(f"{path}: {name:22} {sel.sum():6d} points  median predicted/measured {np.exp(np.median(r[sel])):.3f}"
              f"  mean |log ratio| {np.mean(np.abs(r[sel])):.3f}")

# Chains an interchange made: the chain's loop level is tagged interchanged (the schedule moved it).
lv = lambda level, f: names.index(f"loop{level}.{f}")
D = L["max_depth"]
for path in sys.argv[1:]:
    z = np.load(path)
    pts, pred, meas = z["point"], z["predicted"], z["measured"]
    made = np.zeros(len(pts), bool); made_lone = np.zeros(len(pts), bool)
    for n, p in enumerate(pts):
        c = np.asarray(comps[off[p]:off[p + 1]])
        for level in range(D):
            on = (c[:, lv(level, "chain")] > 0.5) & (c[:, lv(level, "interchanged")] > 0.5)
            made[n] |= on.any()
            made_lone[n] |= (on & (c[:, lv(level, "chain_length")] >= np.log1p(256) - 1e-4)
                             & (c[:, lv(level, "chain_interleave")] <= np.log1p(1) + 1e-4)).any()
    r = np.log(pred / meas)
    for name, sel in [("interchange made a chain", made), ("... a lone one >= 256", made_lone)]:
        print(f"{path}: {name:26} {sel.sum():6d} points  median predicted/measured {np.exp(np.median(r[sel])):.3f}"
              f"  mean |log ratio| {np.mean(np.abs(r[sel])):.3f}  measured median {np.median(meas[sel]):.3f}")
