"""The shipped pair and the adapted pairs of 2026-12-07 on the same 300 test programs of the
shipped dataset as `onnx/adapt.py --replay` scores (what fine-tuning forgot). Needs the
shipped dataset featurized (`autosched featurize onnx/data/real/dataset.jsonl.gz --out
build/feat14`) and the adapted checkpoints of `onnx/data/real/adapt-intel-tiles/make.sh`
(build/intel-tiles/model-*), the `-replay` ones made with `--replay build/feat14`.

    .venv/bin/python onnx/runs/intel-tiles-compare/forget.py
"""
import sys, numpy as np
sys.path.insert(0, 'onnx')
import adapt, data as data_mod
from model import Ensemble
import torch
torch.set_num_threads(2)
rdata = data_mod.Featurized('build/feat14')
_, _, r_test = data_mod.split_programs(rdata.programs, 1)
held = np.random.default_rng(0 + 32452843).permutation(r_test)[:300]
for d in ['onnx', 'build/intel-tiles/model-tree', 'build/intel-tiles/model-all', 'build/intel-tiles/model-tree-replay', 'build/intel-tiles/model-all-replay']:
    ms = [adapt.load_base(f'{d}/model.pt', rdata)[0], adapt.load_base(f'{d}/model.seed1.pt', rdata)[0]]
    f = adapt.figures(Ensemble(ms).eval(), rdata, held)
    print(d, {k: round(f[k], 3) for k in ('spearman', 'ndcg@5', 'mape', 'censored_above')})
