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
