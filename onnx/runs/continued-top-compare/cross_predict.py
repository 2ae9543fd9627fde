"""Predict both models' picks with both models (which one ranks which higher), per kernel."""
import glob, json, re, subprocess, sys
cmp = json.load(open(sys.argv[1]))
files = {p.split('/')[-1][:-5]: p for p in glob.glob('benchmarks/*/*.mlir')}
models = {'a': cmp['a'], 'b': cmp['b'][0]}
def predict(f, sched, m):
    out = subprocess.run(['build/cargo/release/autosched', 'predict', f, '-s', sched, '--model', m],
                         capture_output=True, text=True)
    x = re.findall(r"\[([0-9.]+)x,", out.stdout)
    return float(x[0]) if x else out.stdout.strip() + out.stderr.strip()
for row in cmp['rows']:
    k = row['kernel']
    if row['a']['schedule'] == row['b']['schedule'] or k not in files:
        continue
    meas = {s: row.get('speedup', {}).get(s) for s in ('a', 'b')}
    cells = []
    for mname, m in models.items():
        pa = predict(files[k], row['a']['schedule'], m)
        pb = predict(files[k], row['b']['schedule'], m)
        cells.append(f"model {mname}: a's {pa}x b's {pb}x")
    print(f"{k:18s} " + " | ".join(cells))
