"""Loading what `autosched featurize` writes, splitting by program, and batching.

A batch holds schedules of one program (thesis §3.3.3), cropped to the batch's own
sizes: fewer computations, slots and children than the dataset's maxima. Cropping only
drops padding, so a batch scores the same cropped or not (onnx/tests/test_model.py).
"""

import hashlib
import json
import pathlib

import numpy as np
import torch

TREE_FILES = ["comp_children", "comp_counts", "loop_children", "loop_counts", "root_children", "root_counts"]


def digest(path):
    """A file's content digest (16 hex digits): what a model records of the data it saw."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


class Featurized:
    def __init__(self, directory):
        d = pathlib.Path(directory)
        self.dir = d
        self.meta = json.loads((d / "meta.json").read_text())
        self.layout = json.loads((d / "layout.json").read_text())
        # The large tensors are mapped, not read: two trainings on one host share one copy
        # in the page cache (a batch's inputs are copies, see `inputs`).
        self.comps = np.load(d / "comps.npy", mmap_mode="r")
        self.offsets = np.load(d / "comp_offsets.npy")
        self.tree = {name: np.load(d / f"{name}.npy", mmap_mode="r") for name in TREE_FILES}
        # Feature columns read as zero (train.py --drop-features), applied to copies.
        self.zeroed = []
        self.speedup = np.load(d / "speedup.npy").astype(np.float32)
        self.program = np.load(d / "program.npy")
        self.noisy = np.load(d / "noisy.npy").astype(bool)
        # Censored points (a variant cut off after one run): the speedup is an upper bound.
        # Featurized data from before the flag has none.
        c = d / "censored.npy"
        self.censored = np.load(c).astype(bool) if c.exists() else np.zeros_like(self.noisy)
        t = d / "identity_time.npy"
        self.identity_time = np.load(t) if t.exists() else np.full(len(self.noisy), np.nan, dtype=np.float32)
        self.klass = np.load(d / "class.npy")
        # The host each point was measured on (featurized before 2026-11-26: one, unnamed).
        h = d / "host.npy"
        self.host = np.load(h) if h.exists() else np.zeros(len(self.noisy), dtype=np.int32)
        self.hosts = self.meta.get("hosts", [])
        self.classes = self.meta["classes"]
        self.programs = self.meta["programs"]
        if self.layout["hash"] != self.meta["layout_hash"] or self.comps.shape[1] != self.layout["features"]:
            raise ValueError(f"{d}: tensors and layout.json disagree")
        # Per point: how much of the padding it needs.
        cc, lc = self.tree["comp_counts"], self.tree["loop_counts"]
        used = (cc + lc) > 0  # [N, D, S]
        self.depth_used = np.where(used.any(axis=2), np.arange(used.shape[1])[None, :] + 1, 0).max(axis=1)
        slots = np.where(used, np.arange(used.shape[2])[None, None, :] + 1, 0).max(axis=(1, 2))
        self.slots_used = np.maximum(slots, self.tree["root_counts"])
        self.children_used = np.maximum(cc.max(axis=(1, 2)), lc.max(axis=(1, 2)))
        self.children_used = np.maximum(self.children_used, self.tree["root_counts"])
        self.comps_used = np.diff(self.offsets)

    def zero_features(self, columns):
        """From now on the columns `columns` read as zero in `inputs` and `comp_rows`."""
        self.zeroed = sorted(set(self.zeroed) | set(int(c) for c in columns))

    def comp_rows(self, rows):
        """A copy of the computation vectors `rows`, with the zeroed columns zero."""
        out = np.array(self.comps[rows], dtype=np.float32)
        if self.zeroed:
            out[:, self.zeroed] = 0.0
        return out

    def __len__(self):
        return len(self.speedup)

    def append(self, other):
        """Adds `other`'s points and programs after this set's (same layout); returns the
        indices of the added programs. The tree tensors are padded to the larger of the two."""
        if other.layout["hash"] != self.layout["hash"]:
            raise ValueError(f"{other.dir} has layout {other.layout['hash']}, {self.dir} has {self.layout['hash']}")
        n_prog = len(self.programs)
        self.comps = np.concatenate([self.comps, other.comps])
        self.offsets = np.concatenate([self.offsets, other.offsets[1:] + self.offsets[-1]])
        for name in TREE_FILES:
            a, b = self.tree[name], other.tree[name]
            shape = [max(x, y) for x, y in zip(a.shape[1:], b.shape[1:])]
            self.tree[name] = np.concatenate([_pad(a, shape), _pad(b, shape)])
        classes = list(self.classes) + [c for c in other.classes if c not in self.classes]
        remap = np.array([classes.index(c) for c in other.classes], dtype=self.klass.dtype)
        self.classes = self.meta["classes"] = classes
        self.klass = np.concatenate([self.klass, remap[other.klass]])
        hosts = list(self.hosts) + [h for h in other.hosts if h not in self.hosts]
        hremap = np.array([hosts.index(h) for h in other.hosts] or [0], dtype=self.host.dtype)
        self.hosts = self.meta["hosts"] = hosts
        self.host = np.concatenate([self.host, hremap[other.host]])
        self.programs = self.meta["programs"] = list(self.programs) + list(other.programs)
        self.meta["schedules"] = list(self.meta["schedules"]) + list(other.meta["schedules"])
        self.program = np.concatenate([self.program, other.program + n_prog])
        for attr in ("speedup", "noisy", "censored", "identity_time", "depth_used", "slots_used",
                     "children_used", "comps_used"):
            setattr(self, attr, np.concatenate([getattr(self, attr), getattr(other, attr)]))
        return np.arange(n_prog, len(self.programs))

    def inputs(self, idx, at_least=1):
        """The model's inputs for the points `idx`, cropped to what they use (but keeping
        at least `at_least` computations, slots and children, within the dataset's padding)."""
        idx = np.asarray(idx)
        t = self.tree
        k = max(at_least, int(self.comps_used[idx].max()))
        d = max(1, int(self.depth_used[idx].max()))
        s = min(max(at_least, int(self.slots_used[idx].max())), t["comp_counts"].shape[2])
        c = min(max(at_least, int(self.children_used[idx].max())), t["comp_children"].shape[3])
        comps = np.zeros((len(idx), k, self.comps.shape[1]), dtype=np.float32)
        for row, i in enumerate(idx):
            lo, hi = self.offsets[i], self.offsets[i + 1]
            comps[row, : hi - lo] = self.comps[lo:hi]
        if self.zeroed:
            comps[:, :, self.zeroed] = 0.0
        return [
            torch.from_numpy(comps),
            torch.from_numpy(np.ascontiguousarray(t["comp_children"][idx, :d, :s, :c])),
            torch.from_numpy(np.ascontiguousarray(t["comp_counts"][idx, :d, :s])),
            torch.from_numpy(np.ascontiguousarray(t["loop_children"][idx, :d, :s, :c])),
            torch.from_numpy(np.ascontiguousarray(t["loop_counts"][idx, :d, :s])),
            torch.from_numpy(np.ascontiguousarray(t["root_children"][idx, :s])),
            torch.from_numpy(np.ascontiguousarray(t["root_counts"][idx])),
        ]

    def padded_inputs(self, idx, depth, at_least=1):
        """Inputs with the full depth (what the exported graph takes)."""
        x = self.inputs(idx, at_least)
        for j in (1, 2, 3, 4):
            pad = depth - x[j].shape[1]
            if pad > 0:
                shape = list(x[j].shape)
                shape[1] = pad
                x[j] = torch.cat([x[j], torch.zeros(shape, dtype=x[j].dtype)], dim=1)
        return x


def _pad(a, shape):
    """`a` ([N, ...]) zero-padded to [N, *shape]."""
    if list(a.shape[1:]) == list(shape):
        return a
    out = np.zeros((a.shape[0], *shape), dtype=a.dtype)
    out[tuple(slice(0, n) for n in a.shape)] = a
    return out


def split_programs(programs, seed, fractions=(0.8, 0.1, 0.1)):
    """Program indices of train / validation / test: no program in two splits.

    Each program goes where a seeded hash of its id falls, so a program keeps its split as
    the dataset grows (a permutation over indices reshuffled every program whenever one was
    added, and put a model's training programs among the next model's test programs). The
    fractions hold in expectation, not exactly. Each part is in the order of the hash, so
    its first programs are a random sample that keeps its members as the data grows (the
    learning curve's fractions)."""
    a, b = fractions[0], fractions[0] + fractions[1]
    parts = ([], [], [])
    for i, pid in enumerate(programs):
        h = hashlib.blake2b(("%d/%s" % (seed, pid)).encode(), digest_size=8).digest()
        u = int.from_bytes(h, "little") / 2.0 ** 64
        parts[0 if u < a else 1 if u < b else 2].append((u, i))
    # A tiny set (the tests' few programs) may leave a part empty: it takes the program
    # nearest its range from the largest part.
    lo_hi = ((0.0, a), (a, b), (b, 1.0))
    for k in range(3):
        if not parts[k] and len(programs) >= 3:
            donor = max(range(3), key=lambda j: len(parts[j]))
            mid = sum(lo_hi[k]) / 2
            moved = min(parts[donor], key=lambda x: abs(x[0] - mid))
            parts[donor].remove(moved)
            parts[k].append(moved)
    return tuple(np.array([i for _, i in sorted(x)], dtype=np.int64) for x in parts)


def batches(data, programs, max_batch=32, shuffle_rng=None, programs_per_batch=1, repeats=None):
    """Lists of point indices: each the schedules of `programs_per_batch` programs (whole,
    at most max_batch per program). `repeats` (program index -> count) gives a program's
    groups that many times, each a group of its own (oversampling a rare kind of program)."""
    wanted = set(int(p) for p in programs)
    repeats = repeats or {}
    by_program = {}
    for i, p in enumerate(data.program):
        if int(p) in wanted:
            by_program.setdefault(int(p), []).append(i)
    out = []
    for p in sorted(by_program):
        points = by_program[p]
        for _ in range(max(1, int(repeats.get(p, 1)))):
            for lo in range(0, len(points), max_batch):
                out.append(np.array(points[lo:lo + max_batch]))
    if programs_per_batch > 1:
        if shuffle_rng is not None:
            shuffle_rng.shuffle(out)
        out = [np.concatenate(out[i:i + programs_per_batch]) for i in range(0, len(out), programs_per_batch)]
    if shuffle_rng is not None:
        shuffle_rng.shuffle(out)
    return out
