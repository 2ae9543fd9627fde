"""Accuracy figures of a speedup model (thesis §4.1.1): MAPE, Pearson, Spearman, nDCG@k.

Censored points (a variant cut off after one run: its speedup is only known to be at most
the stored bound) enter the ranking figures at their bound, which ranks them below every
faster schedule of their program, as they are; MAPE is over the exactly measured points,
and `censored_above` is the fraction of censored points predicted faster than their bound.
"""

import numpy as np


def mape(pred, true):
    return float(np.mean(np.abs(pred - true) / np.abs(true)))


def pearson(pred, true):
    if len(pred) < 2 or np.std(pred) == 0 or np.std(true) == 0:
        return float("nan")
    return float(np.corrcoef(pred, true)[0, 1])


def ranks(x):
    """Average ranks (ties share their mean rank)."""
    order = np.argsort(x, kind="mergesort")
    r = np.empty(len(x), dtype=np.float64)
    r[order] = np.arange(len(x), dtype=np.float64)
    xs = x[order]
    i = 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[i]:
            j += 1
        if j > i:
            r[order[i:j + 1]] = (i + j) / 2.0
        i = j + 1
    return r


def spearman(pred, true):
    return pearson(ranks(np.asarray(pred)), ranks(np.asarray(true)))


def ndcg(pred, true, k):
    """Measured speedups summed in the predicted order with a log discount, over the ideal."""
    order = np.argsort(-pred, kind="mergesort")[:k]
    ideal = np.sort(true)[::-1][:k]
    disc = 1.0 / np.log2(np.arange(2, k + 2))
    dcg = float(np.sum(true[order] * disc[: len(order)]))
    idcg = float(np.sum(ideal * disc[: len(ideal)]))
    return dcg / idcg if idcg > 0 else float("nan")


def summary(pred, true, groups, k=5, censored=None):
    """Figures over all points, and nDCG@1/k averaged over groups (programs) of 2+ points."""
    pred, true, groups = np.asarray(pred), np.asarray(true), np.asarray(groups)
    censored = np.zeros(len(true), dtype=bool) if censored is None else np.asarray(censored, dtype=bool)
    exact = ~censored
    per = [ndcg(pred[groups == g], true[groups == g], k) for g in np.unique(groups) if np.sum(groups == g) > 1]
    per1 = [ndcg(pred[groups == g], true[groups == g], 1) for g in np.unique(groups) if np.sum(groups == g) > 1]
    return {
        "points": int(len(true)),
        "programs": int(len(np.unique(groups))),
        "mape": mape(pred[exact], true[exact]) if exact.any() else float("nan"),
        "censored": int(censored.sum()),
        "censored_above": float(np.mean(pred[censored] > true[censored])) if censored.any() else float("nan"),
        "pearson": pearson(pred, true),
        "spearman": spearman(pred, true),
        f"ndcg@{k}": float(np.nanmean(per)) if per else float("nan"),
        "ndcg@1": float(np.nanmean(per1)) if per1 else float("nan"),
    }


# Bounds (measured speedup of a program's best schedule) of the program buckets of `picks`.
BEST_BUCKETS = [("best <2x", 0.0, 2.0), ("best 2-8x", 2.0, 8.0), ("best >=8x", 8.0, float("inf"))]


def picks(pred, true, groups, buckets=BEST_BUCKETS):
    """What the model's first choice among each program's measured schedules runs at, as a
    fraction of the best measured one (the search's top-1 regret, the held-out side of "model
    mode within 20% of hybrid"), by how far the program's best schedule goes: programs, the
    geometric mean of pick / best, and the share of programs at 0.8 of their best or more.
    A censored point enters at its bound (an upper one: a pick of it counts at most that)."""
    pred, true, groups = np.asarray(pred), np.asarray(true), np.asarray(groups)
    ratios, bests = [], []
    for g in np.unique(groups):
        sel = groups == g
        if sel.sum() < 2:
            continue
        t, p = true[sel], pred[sel]
        best = float(t.max())
        ratios.append(float(t[int(np.argmax(p))]) / best)
        bests.append(best)
    ratios, bests = np.asarray(ratios), np.asarray(bests)
    out = {}
    for name, lo, hi in buckets:
        r = ratios[(bests >= lo) & (bests < hi)]
        out[name] = {"programs": int(len(r)),
                     "pick_over_best": float(np.exp(np.mean(np.log(np.maximum(r, 1e-6))))) if len(r) else float("nan"),
                     "at_0.8": float(np.mean(r >= 0.8)) if len(r) else float("nan")}
    return out
