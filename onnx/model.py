"""The recursive-LSTM speedup model of the Tiramisu cost model (thesis §3.3, Fig. 3.27-3.28).

Computation vectors go through an MLP into embeddings; the loop tree is then summarized
bottom-up: each loop node runs one LSTM over its child computations' embeddings and one
over its child loops' embeddings, and a feed-forward layer merges the two hidden states
into the node's embedding. A virtual root over the program's top-level nests gives the
program embedding, which the regression head maps to the predicted speedup.

The recursion is written level by level over padded index tables (the layout of
src/features/tensors.rs): the same code trains in PyTorch and exports to one ONNX graph
that scores a whole batch of candidates, with only the depth fixed (MAX_DEPTH levels).
Padding never changes a result: padded children lie past the counts, and a node's
summary is the LSTM's output at its last real child. Training runs over each candidate's
tree (`forward`); the exported graph over the distinct nodes of a batch's trees
(`shared`), which a search stage's candidates mostly share: the same arithmetic per node.
The graph also takes the embeddings of nests it returned in earlier calls and returns its
own (`cached`): a search's stages keep most nests of the states they extend, and the pass
keeps their embeddings instead of summarizing them again.
"""

import math

import numpy as np
import torch
from torch import nn

INPUT_NAMES = ["comps", "comp_children", "comp_counts", "loop_children", "loop_counts",
               "root_children", "root_counts"]


def mlp(sizes, dropout, last_activation=True):
    layers = []
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        lin = nn.Linear(a, b)
        nn.init.xavier_uniform_(lin.weight)  # Glorot, as the thesis
        nn.init.zeros_(lin.bias)
        layers.append(lin)
        if last_activation or i < len(sizes) - 2:
            layers += [nn.ELU(), nn.Dropout(dropout)]
    return nn.Sequential(*layers)


# The loop fields the derived features gather per level (model.derive): the first two say
# which of a computation's loops ends deepest after the schedule (the `innermost` flag is
# not it: a computation beside an inner loop has none), the rest are what is gathered.
DERIVED_SOURCES = ["present", "final_depth", "stride_invariant", "stride_unit", "stride_in_line",
                   "stride_new_line", "stride_max_bytes", "extent", "tile_size"]


def derive_spec(layout):
    """`derive` of CostModel for a layout (onnx/layout.json as data.py reads it): the column of
    each DERIVED_SOURCES field at each loop level. Raises KeyError on a layout without them."""
    names = {f["name"]: i for i, f in enumerate(layout["fields"])}
    return {"fields": [[names[f"loop{level}.{n}"] for n in DERIVED_SOURCES] for level in range(layout["max_depth"])],
            "sources": DERIVED_SOURCES}


def laplace_z(alpha):
    """Half-width of the central `alpha` interval of Laplace(0, 1): -ln(1 - alpha)."""
    return -math.log(1.0 - alpha)


def laplace_parts(out, alpha):
    """(mu, b) back from a [lo, hi] output calibrated to `alpha`: mu the log estimate, b the scale."""
    lo, hi = torch.log(out[:, 0]), torch.log(out[:, 1])
    return (lo + hi) / 2, (hi - lo) / 2 / laplace_z(alpha)


class CostModel(nn.Module):
    def __init__(self, features, embed=180, comp_hidden=(600, 350, 200), merge_hidden=200,
                 head_hidden=(200, 180), dropout=0.225, residual=True, heads=1, laplace=None, derive=None):
        super().__init__()
        self.embed = embed
        self.heads = heads
        # derive: {"fields": [[column per DERIVED_SOURCES name] per loop level]} (`derive_spec`):
        # the comp encoder also reads what the deepest of the computation's loops after the
        # schedule, and the one just outside it, do (their strides, extent and tile size),
        # gathered from the vector inside the graph (the Rust featurizer is unchanged).
        self.derive = derive
        derived = 0
        if derive:
            self.register_buffer("derive_index", torch.tensor(derive["fields"], dtype=torch.long))
            derived = 2 * (len(DERIVED_SOURCES) - 2)
            self.register_buffer("derived_mean", torch.zeros(derived))
            self.register_buffer("derived_scale", torch.ones(derived))
        # laplace=alpha: the head also predicts the scale b of a Laplace distribution of the
        # log speedup around its estimate (trained by its likelihood), and the model outputs
        # the central alpha interval [lo, hi] as two columns (their geometric mean is the
        # estimate, as for an ensemble's members). `scale_factor` calibrates b on validation.
        self.laplace = laplace
        self.register_buffer("scale_factor", torch.ones(()))
        # Per-feature standardization, fitted on the training set (set_normalization) and
        # exported with the weights: the schedule's tags are a few small fields among
        # large log-sizes, and would be drowned without it.
        self.register_buffer("feature_mean", torch.zeros(features))
        self.register_buffer("feature_scale", torch.ones(features))
        self.comp_mlp = mlp([features + derived, *comp_hidden, embed], dropout)
        self.comp_lstm = nn.LSTM(embed, embed, batch_first=True)
        self.loop_lstm = nn.LSTM(embed, embed, batch_first=True)
        # Summaries of "no computation children" / "no loop children".
        self.no_comps = nn.Parameter(torch.zeros(embed))
        self.no_loops = nn.Parameter(torch.zeros(embed))
        # The loop embedding is layer-normalized: without it, the summaries shrink at every
        # level of the recursion (LSTM outputs are a fraction of their inputs) and the
        # schedule's signal is lost before the head (measured: training stalls at the
        # constant predictor's loss).
        self.merge = mlp([2 * embed, merge_hidden, embed], dropout)
        self.residual = residual
        if residual:
            self.norm = nn.LayerNorm(embed)
            for lstm in (self.comp_lstm, self.loop_lstm):
                # Input and output gates open at the start (PyTorch's gate order: i, f, g, o).
                with torch.no_grad():
                    lstm.bias_ih_l0[:embed].fill_(1.0)
                    lstm.bias_ih_l0[3 * embed:].fill_(1.0)
        if heads == 1:
            self.head = mlp([embed, *head_hidden, 2 if laplace else 1], dropout, last_activation=False)
        else:
            # Several heads over one body (train.py --heads): each trained on its own bootstrap
            # weights of the points; their spread is the model's uncertainty, at the cost of one
            # network.
            self.head_list = nn.ModuleList(mlp([embed, *head_hidden, 1], dropout, last_activation=False)
                                           for _ in range(heads))

    def set_normalization(self, mean, std):
        std = torch.as_tensor(std, dtype=torch.float32)
        self.feature_mean.copy_(torch.as_tensor(mean, dtype=torch.float32))
        self.feature_scale.copy_(torch.where(std > 1e-6, 1.0 / std, torch.ones_like(std)))

    def summarize(self, lstm, items, children, counts, empty):
        """LSTM over each node's children.

        items [B, N, H]: embeddings the children index; children [B, S, C]; counts [B, S].
        Returns [B, S, H]: the hidden state after each node's last child, `empty` if none.
        Only nodes with children go through the LSTM (most padded slots of most levels are
        empty: running it on them was three quarters of the inference time); slot 0 always
        does, so that the LSTM never sees an empty batch.
        """
        b, n, h = items.shape
        s, c = children.shape[1], children.shape[2]
        base = (torch.arange(b, dtype=children.dtype, device=children.device) * n).view(b, 1, 1)
        flat = items.reshape(b * n, h)
        cnt = counts.reshape(b * s)
        first = torch.arange(b * s, device=counts.device) == 0
        real = torch.nonzero((cnt > 0) | first).reshape(-1)
        # Slot 0 is always there: telling the exporter lets it size the LSTM's state.
        torch._check(real.shape[0] >= 1)
        rows = (children + base).reshape(b * s, c)[real]
        seq = flat[rows.reshape(-1)].reshape(-1, c, h)
        out, _ = lstm(seq)
        last = (cnt[real] - 1).clamp(min=0)
        picked = torch.gather(out, 1, last.view(-1, 1, 1).expand(-1, 1, h)).reshape(-1, h)
        placed = torch.zeros(b * s, h, dtype=items.dtype, device=items.device).index_put((real,), picked)
        has = (cnt > 0).unsqueeze(-1)
        return torch.where(has, placed, empty.view(1, h).expand(b * s, h)).reshape(b, s, h)

    def unit(self, hc, hl):
        """The loop embedding from the two summaries (thesis Fig. 3.28)."""
        x = self.merge(torch.cat([hc, hl], dim=-1))
        return self.norm(x + hc + hl) if self.residual else x

    def derived(self, rows):
        """[n, F] computation vectors -> [n, 2 * (sources - 2)] raw derived features: per
        computation, the DERIVED_SOURCES fields (but present and final_depth) of the deepest of
        its loops after the schedule, then those of the next one out (zero if none)."""
        x = rows[:, self.derive_index]  # [n, D, len(DERIVED_SOURCES)]
        present, depth, fields = x[..., 0] > 0, torch.round(torch.exp(x[..., 1]) - 1.0), x[..., 2:]
        none = torch.full_like(depth, -1.0)
        at = torch.where(present, depth, none)
        deepest = at.max(dim=1, keepdim=True).values
        inner = ((at == deepest) & present).to(rows.dtype)
        # The next loop out: the deepest of the others.
        cand = torch.where(present & (depth < deepest), depth, none)
        top = cand.max(dim=1, keepdim=True).values
        nxt = ((cand == top) & (top >= 0)).to(rows.dtype)
        return torch.cat([(inner.unsqueeze(-1) * fields).sum(dim=1), (nxt.unsqueeze(-1) * fields).sum(dim=1)], dim=1)

    def set_derived_normalization(self, rows):
        with torch.no_grad():
            d = self.derived(torch.as_tensor(rows, dtype=torch.float32))
            std = d.std(dim=0)
            self.derived_mean.copy_(d.mean(dim=0))
            self.derived_scale.copy_(torch.where(std > 1e-6, 1.0 / std, torch.ones_like(std)))

    def embed_rows(self, rows):
        """[n, F] computation vectors -> [n, embed] embeddings."""
        x = (rows - self.feature_mean) * self.feature_scale
        if self.derive:
            x = torch.cat([x, (self.derived(rows) - self.derived_mean) * self.derived_scale], dim=1)
        return self.comp_mlp(x)

    def forward(self, comps, comp_children, comp_counts, loop_children, loop_counts,
                root_children, root_counts):
        b, k, f = comps.shape
        e = self.embed_rows(comps.reshape(b * k, f)).reshape(b, k, self.embed)
        return self.from_embeddings(e, comp_children, comp_counts, loop_children, loop_counts,
                                    root_children, root_counts)

    def from_embeddings(self, e, comp_children, comp_counts, loop_children, loop_counts,
                        root_children, root_counts):
        b = e.shape[0]
        d, s = comp_children.shape[1], comp_children.shape[2]
        h = self.embed
        below = torch.zeros(b, s, h, dtype=e.dtype, device=e.device)
        for level in range(d - 1, -1, -1):
            hc = self.summarize(self.comp_lstm, e, comp_children[:, level], comp_counts[:, level], self.no_comps)
            hl = self.summarize(self.loop_lstm, below, loop_children[:, level], loop_counts[:, level], self.no_loops)
            below = self.unit(hc, hl)
        # The virtual root: its loop children are the top-level nests.
        hl = self.summarize(self.loop_lstm, below, root_children.unsqueeze(1), root_counts.unsqueeze(1), self.no_loops)
        hc = self.no_comps.view(1, 1, h).expand(b, 1, h)
        return self.output(self.unit(hc, hl).reshape(b, h))

    def shared(self, unique_comps, node_comps, node_comp_counts, node_loops, node_loop_counts,
               root_children, root_counts):
        """As forward, over the distinct nodes of a batch's trees (`to_shared`): a node's
        embedding depends only on its children, and the candidates of one search stage share
        most of their subtrees (a step on one nest of a program leaves the others' alone), so
        each distinct node is summarized once. `node_comps` [D, N, C] indexes the distinct
        computations, `node_loops` [D, N, C] the nodes of the level below, `root_children`
        [B, S] the nodes of level 0. The same weights and arithmetic per node as forward."""
        nests = self.nests(unique_comps, node_comps, node_comp_counts, node_loops, node_loop_counts)
        return self.from_nests(nests, root_children, root_counts)

    def nests(self, unique_comps, node_comps, node_comp_counts, node_loops, node_loop_counts):
        """[N, embed]: the embeddings of the level-0 nodes (the nests) of `shared`'s tables."""
        e = self.embed_rows(unique_comps).unsqueeze(0)
        d, n = node_comps.shape[0], node_comps.shape[1]
        h = self.embed
        below = torch.zeros(1, n, h, dtype=e.dtype, device=e.device)
        for level in range(d - 1, -1, -1):
            hc = self.summarize(self.comp_lstm, e, node_comps[level].unsqueeze(0),
                                node_comp_counts[level].unsqueeze(0), self.no_comps)
            hl = self.summarize(self.loop_lstm, below, node_loops[level].unsqueeze(0),
                                node_loop_counts[level].unsqueeze(0), self.no_loops)
            below = self.unit(hc, hl)
        return below.reshape(n, h)

    def from_nests(self, nests, root_children, root_counts):
        """The output from nest embeddings [N, embed]: the virtual roots, one per candidate,
        as the slots of one level above level 0 (`root_children` [B, S] index `nests`)."""
        b, h = root_children.shape[0], self.embed
        hl = self.summarize(self.loop_lstm, nests.unsqueeze(0), root_children.unsqueeze(0),
                            root_counts.unsqueeze(0), self.no_loops).reshape(b, h)
        hc = self.no_comps.view(1, h).expand(b, h)
        return self.output(self.unit(hc, hl))

    def cached(self, unique_comps, node_comps, node_comp_counts, node_loops, node_loop_counts,
               root_children, root_counts, known_nests):
        """As shared, where some nests' embeddings are known already (from earlier calls of one
        search, whose candidates keep most nests of the states they extend): `known_nests`
        [1, K, embed] are rows 0..K of what `root_children` indexes, the tables' own level-0
        nodes rows K.. . Returns the output and the tables' nest embeddings [1, N, embed], for
        the caller to keep."""
        nests = self.nests(unique_comps, node_comps, node_comp_counts, node_loops, node_loop_counts)
        out = self.from_nests(torch.cat([known_nests[0], nests], dim=0), root_children, root_counts)
        return out, nests.unsqueeze(0)

    def output(self, program):
        """[B, embed] program embeddings -> the model's output (see forward)."""
        b = program.shape[0]
        # Speedups are positive and span orders of magnitude: predict their logarithm.
        if self.laplace:
            out = self.head(program)
            mu = out[:, 0].clamp(-12.0, 12.0)
            half = (self.laplace_scale(out[:, 1]) * self.laplace_z()).clamp(max=20.0)
            return torch.exp(torch.stack([mu - half, mu + half], dim=1))
        if self.heads == 1:
            return torch.exp(self.head(program).reshape(b).clamp(-12.0, 12.0))
        # [B, heads]: a column per head, as an ensemble's members.
        return torch.exp(torch.cat([h(program) for h in self.head_list], dim=1).clamp(-12.0, 12.0))


    def laplace_scale(self, raw):
        """The Laplace scale b (of the log speedup) from the head's raw output, calibrated."""
        return (torch.nn.functional.softplus(raw) + 1e-3) * self.scale_factor

    def laplace_z(self):
        return laplace_z(self.laplace)

    def laplace_parts(self, out):
        return laplace_parts(out, self.laplace)


class Ensemble(torch.nn.Module):
    """Several trained models as one graph: one output column per member (the Rust side takes
    their geometric mean as the prediction and their spread as the model's uncertainty).

    Members that each predict a Laplace interval (`train.py --laplace`, one coverage) make one
    interval instead: the mean of their log estimates and of their Laplace scales, i.e. the
    geometric mean of each end, re-calibrated on validation like a single network
    (`scale_factor`, `train.calibrate_laplace`), so the graph's output is two columns as
    for one such network and the pass reads it the same way."""

    def __init__(self, members):
        super().__init__()
        self.members = torch.nn.ModuleList(members)
        alphas = {getattr(m, "laplace", None) for m in members}
        if len(alphas) > 1:
            raise ValueError(f"members calibrated to different coverages: {sorted(map(str, alphas))}")
        self.laplace = alphas.pop()
        self.register_buffer("scale_factor", torch.ones(()))

    def combine(self, outs):
        if not self.laplace:
            return torch.stack(outs, dim=-1)
        logs = torch.stack([torch.log(o) for o in outs], dim=0).mean(dim=0)
        mid = (logs[:, 0] + logs[:, 1]) / 2
        half = (logs[:, 1] - logs[:, 0]) / 2 * self.scale_factor
        return torch.exp(torch.stack([mid - half, mid + half], dim=1))

    # Named like CostModel's inputs: the exporter keys dynamic shapes by argument name.
    def forward(self, comps, comp_children, comp_counts, loop_children, loop_counts,
                root_children, root_counts):
        inputs = (comps, comp_children, comp_counts, loop_children, loop_counts, root_children, root_counts)
        return self.combine([m(*inputs) for m in self.members])

    def shared(self, *inputs):
        return self.combine([m.shared(*inputs) for m in self.members])

    def cached(self, *inputs):
        """As CostModel.cached, with a row of `known_nests` [W, K, embed] and of the nests
        returned per member network."""
        *tables, known = inputs
        outs = [m.cached(*tables, known[w:w + 1]) for w, m in enumerate(self.members)]
        return self.combine([o for o, _ in outs]), torch.cat([n for _, n in outs], dim=0)

    def laplace_parts(self, out):
        return laplace_parts(out, self.laplace)


# The exported graph's inputs since the shared form: the distinct computations and the
# distinct nodes of the batch's trees, per level (`to_shared`), and each candidate's root.
SHARED_INPUT_NAMES = ["unique_comps", "node_comps", "node_comp_counts", "node_loops", "node_loop_counts",
                      "root_children", "root_counts"]


class Shared(torch.nn.Module):
    """The exported form of a CostModel or an Ensemble before the cached one (`shared`)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    # Named like SHARED_INPUT_NAMES: the exporter keys dynamic shapes by argument name.
    def forward(self, unique_comps, node_comps, node_comp_counts, node_loops, node_loop_counts,
                root_children, root_counts):
        return self.model.shared(unique_comps, node_comps, node_comp_counts, node_loops, node_loop_counts,
                                 root_children, root_counts)


# The exported graph's inputs since the cached form: the shared form's, and the embeddings of
# the nests known from earlier calls ([W, K, embed], W the networks), which root_children's
# first K indices name. Its outputs: the speedup and the tables' own nests' embeddings.
CACHED_INPUT_NAMES = SHARED_INPUT_NAMES + ["known_nests"]
CACHED_OUTPUT_NAMES = ["speedup", "nests"]


def networks(model):
    """How many networks a CostModel or an Ensemble holds (the W of `known_nests`)."""
    return len(model.members) if isinstance(model, Ensemble) else 1


class Cached(torch.nn.Module):
    """The exported form since the cached one (`cached`)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    # Named like CACHED_INPUT_NAMES: the exporter keys dynamic shapes by argument name.
    def forward(self, unique_comps, node_comps, node_comp_counts, node_loops, node_loop_counts,
                root_children, root_counts, known_nests):
        return self.model.cached(unique_comps, node_comps, node_comp_counts, node_loops, node_loop_counts,
                                 root_children, root_counts, known_nests)


def with_known(shared, known, known_of=None):
    """The cached form's inputs from the shared form's (`to_shared`): `known` [W, K, embed]
    embeddings put first, so root_children's indices of the tables' nests move up by K;
    `known_of` [B, S] (an index into `known` per root slot, -1 where the table's own nest is
    meant) names the slots that use a known nest instead."""
    *tables, roots, counts = shared
    k = known.shape[1]
    roots = roots + k
    if known_of is not None:
        roots = torch.where(known_of >= 0, known_of, roots)
    return [*tables, roots, counts, known]


def to_shared(comps, comp_children, comp_counts, loop_children, loop_counts, root_children, root_counts,
              at_least=1):
    """Per-candidate padded inputs (INPUT_NAMES) -> the shared form (SHARED_INPUT_NAMES): the
    distinct computation vectors, and per level the distinct nodes, a node being its ordered
    computation children (distinct ids) and loop children (node ids of the level below). The
    Rust side builds the same tables (src/features/tensors.rs, `Shared`). Padding entries are
    0 and lie past the counts; every size is at least `at_least`."""
    a = lambda t: t.numpy() if isinstance(t, torch.Tensor) else np.asarray(t)
    comps, cc, ccount, lc, lcount, rc, rcount = map(a, (comps, comp_children, comp_counts, loop_children,
                                                         loop_counts, root_children, root_counts))
    b, k, f = comps.shape
    d = cc.shape[1]
    unique, inverse = np.unique(comps.reshape(b * k, f), axis=0, return_inverse=True)
    uid = inverse.reshape(b, k)
    levels = []  # per level: {key: id}, in id order
    below = None  # [b, S] node ids of the level below, -1 where no node
    for level in range(d - 1, -1, -1):
        ids = {}
        here = np.full((b, cc.shape[2]), -1, dtype=np.int64)
        for i in range(b):
            for s in range(cc.shape[2]):
                nc, nl = int(ccount[i, level, s]), int(lcount[i, level, s])
                if nc + nl == 0:
                    continue
                key = (tuple(int(uid[i, x]) for x in cc[i, level, s, :nc]),
                       tuple(int(below[i, x]) for x in lc[i, level, s, :nl]))
                here[i, s] = ids.setdefault(key, len(ids))
        levels.append(ids)
        below = here
    levels.reverse()
    n = max([at_least] + [len(ids) for ids in levels])
    c = max([at_least] + [len(x) for ids in levels for key in ids for x in key])
    node_comps = np.zeros((d, n, c), dtype=np.int64)
    node_loops = np.zeros((d, n, c), dtype=np.int64)
    node_comp_counts = np.zeros((d, n), dtype=np.int64)
    node_loop_counts = np.zeros((d, n), dtype=np.int64)
    for level, ids in enumerate(levels):
        for (cs, ls), j in ids.items():
            node_comps[level, j, :len(cs)] = cs
            node_loops[level, j, :len(ls)] = ls
            node_comp_counts[level, j], node_loop_counts[level, j] = len(cs), len(ls)
    s = max(at_least, int(rcount.max()) if b else 1)
    roots = np.zeros((b, s), dtype=np.int64)
    for i in range(b):
        r = int(rcount[i])
        roots[i, :r] = below[i, rc[i, :r]]
    t = torch.from_numpy
    return [t(np.ascontiguousarray(unique)), t(node_comps), t(node_comp_counts), t(node_loops),
            t(node_loop_counts), t(roots), t(rcount.astype(np.int64))]
