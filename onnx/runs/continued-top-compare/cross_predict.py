"""Both models' picks predicted by both models, per kernel where they differ: the low end of
each interval, the score model mode ranks by (which pair ranks which pick higher; its output
is picks-cross-predicted.txt). `autosched predict` has no JSON form: its one line is read.
    python3 cross_predict.py COMPARE.json [MODEL_A]
MODEL_A: model A's file when the path the comparison recorded now holds another model (after
a ship: `git show ce1d938^:onnx/model.onnx > prev.onnx`)."""
import glob, json, re, subprocess, sys
cmp = json.load(open(sys.argv[1]))
files = {p.split('/')[-1][:-5]: p for p in glob.glob('benchmarks/*/*.mlir')}
models = {'a': sys.argv[2] if len(sys.argv) > 2 else cmp['a'], 'b': cmp['b'][0]}
def predict(f, sched, m):
    out = subprocess.run(['build/cargo/release/autosched', 'predict', f, '-s', sched, '--model', m],
                         capture_output=True, text=True)
    x = re.findall(r"\[([0-9.]+)x,", out.stdout)
    return float(x[0]) if x else out.stdout.strip() + out.stderr.strip()
for row in cmp['rows']:
    k = row['kernel']
    if row['a']['schedule'] == row['b']['schedule'] or k not in files:
        continue
    cells = []
    for mname, m in models.items():
        pa = predict(files[k], row['a']['schedule'], m)
        pb = predict(files[k], row['b']['schedule'], m)
        cells.append(f"model {mname}: a's {pa}x b's {pb}x")
    print(f"{k:18s} " + " | ".join(cells))
