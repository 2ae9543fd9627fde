#!/usr/bin/env bash
# Generates (or grows, by resuming) a committed dataset and its data card:
#   bash scripts/datagen.sh [PROGRAMS] [toy|real|long|wide|linear|temporary|tiles|rank_update|contraction|matmul_chain|linear_tiles|dnn_convolution|normalization|resident|resident_normalization|dnn_layer|dnn_layer_parallel|contraction_parallel|matmul_chain_parallel|dnn_layer_register|contraction_register|matmul_chain_register]
#     toy  (default): 3000 programs x 16 schedules, seed 1 -> onnx/data/dataset.jsonl.gz,
#                     card onnx/data/README.md (+ speedups.png, sizes.png); raw shards in
#                     onnx/data/raw-s1/ (not committed)
#     real:           real-size programs, seed 1 -> onnx/data/real/dataset.jsonl.gz, card in
#                     onnx/data/real/; raw shards in onnx/data/raw-r1/ (not committed)
#     long:           real-size programs of seed 2, half of each program's schedules long
#                     walks (--long-walks 8: as long as the search's final schedules)
#     wide:           as long, programs of the wide class only (--class wide: pipelines of
#                     5 to 18 statements)
#     linear:         as long, programs of the linear class only (--class linear: fully
#                     connected layers and GEMMs with transposed operands)
#     temporary:      as long, programs of the temporary class only (--class temporary:
#                     contractions into a buffer reused across outer loops, doitgen's sum[p])
#     tiles:          real-size programs of seed 3, half of each program's schedules
#                     lookahead walks (--lookahead-walks 8: the register tiles and packs
#                     the search's lookahead proposes on contraction bands), a quarter long
#     rank_update:    programs of the rank_update class only (--class rank_update: syrk,
#                     syr2k and trmm-like triangular updates with long reductions), seed 2,
#                     schedules as tiles (8 lookahead walks, 4 long)
#     contraction:    programs of the contraction class only (--class contraction: products in
#                     every loop order, batched or not), seed 2, schedules as tiles
#     matmul_chain:   programs of the matmul_chain class only (--class matmul_chain: 2mm- and
#                     attention-like chained products), seed 2, schedules as tiles
#     linear_tiles:   programs of the linear class (transposed operands) of seed 3 (new
#                     programs, not linear's), schedules as tiles: the register tiles with
#                     their transposed operand copied in another order
#     dnn_convolution: programs of the dnn_convolution class only (--class dnn_convolution:
#                     standard, depthwise, grouped and pointwise layers), seed 2, schedules
#                     as tiles: the register tiles over output channels and columns around
#                     reductions several loops deep (space 9)
#     normalization:  programs of the normalization class only (--class normalization:
#                     layernorm- and softmax-like reductions and rescalings along rows),
#                     seed 2, schedules as tiles: their copies in another order under an
#                     interchange, which the continued pairs misjudged on layernorm
#     resident:       programs of the real classes at the sizes that stay in the caches
#                     (--sizes resident: 2^14..2^24 iterations, working sets up to 16 MiB; ids
#                     c4-p<i>), seed 4, schedules as tiles: the real profile draws few of them
#     resident_normalization: as resident, the normalization class only (ids
#                     c4-normalization-p<i>): layernorm's size (512 x 768), where the real
#                     profile's normalizations are mostly larger than the last-level cache
#     dnn_layer:      programs of the dnn_layer class only (--class dnn_layer: the same
#                     layers as a framework's lowering emits them: the output zeroed or set
#                     to a bias in its own nest first, a batch loop, a ReLU nest after),
#                     seed 2, schedules as tiles: the initialization fused into the
#                     convolution's output loops under the register tile
#     dnn_layer_parallel: programs of the dnn_layer class of seed 3 (new programs, not
#                     dnn_layer's), schedules as tiles, and beside them up to 8 of their
#                     parallel neighbours (--parallel-neighbours 8: a drawn schedule, a
#                     register tile's first, with its parallel loops chosen otherwise, as
#                     hybrid measures beside its finalist): which loop gets the threads
#     contraction_parallel, matmul_chain_parallel: as dnn_layer_parallel, programs of the
#                     contraction and matmul_chain classes of seed 3: the parallel loops of
#                     the register tile and of the output's initialization nest
#     dnn_layer_register, contraction_register, matmul_chain_register: programs of those
#                     classes of seed 4, schedules as tiles, and beside them up to 8 register
#                     tile neighbours (--register-neighbours 8: a drawn schedule's unrolls
#                     replaced by each register tile the Unroll stage offers): the tile's shape
#   long, wide, linear, temporary, tiles, rank_update, contraction, matmul_chain, linear_tiles, dnn_convolution, normalization, resident, resident_normalization, dnn_layer and the *_parallel and *_register modes store what they measured as new chunks, onnx/data/real/incoming/<mode>-NNN.jsonl.gz
#   (never rewritten; raw shards in onnx/data/raw-<mode>-s2/), to be merged into the real
#   dataset when the model is next retrained (see onnx/data/real/incoming/README.md):
#     merge:          onnx/data/real/remeasure-*/part-*.jsonl.gz (points measured again: they
#                     replace the old copies), then the incoming chunks, then the dataset ->
#                     onnx/data/real/dataset.jsonl.gz and its card (PROGRAMS is ignored)
# Interrupt it at any time; running it again continues where it stopped. Programs already
# in the committed dataset are skipped (--resume-from), so a fresh clone grows it too.
# Each batch waits for a quiet machine before it is timed (see README, "Training data").
set -euo pipefail
cd "$(dirname "$0")/.."
programs=${1:-3000}
sizes=${2:-toy}
real_cmd="autosched datagen --sizes real --seed 1 --programs 9000 --schedules-per-program 16 --out onnx/data/raw-r1"
long_cmd="autosched datagen --sizes real --seed 2 --programs N --schedules-per-program 16 --long-walks 8 --out onnx/data/raw-long-s2"
wide_cmd="autosched datagen --sizes real --seed 2 --class wide --programs N --schedules-per-program 16 --long-walks 8 --out onnx/data/raw-wide-s2"
linear_cmd="autosched datagen --sizes real --seed 2 --class linear --programs N --schedules-per-program 16 --long-walks 8 --out onnx/data/raw-linear-s2"
temporary_cmd="autosched datagen --sizes real --seed 2 --class temporary --programs N --schedules-per-program 16 --long-walks 8 --out onnx/data/raw-temporary-s2"
tiles_cmd="autosched datagen --sizes real --seed 3 --programs N --schedules-per-program 16 --long-walks 4 --lookahead-walks 8 --out onnx/data/raw-tiles-s3"
rank_update_cmd="autosched datagen --sizes real --seed 2 --class rank_update --programs N --schedules-per-program 16 --long-walks 4 --lookahead-walks 8 --out onnx/data/raw-rank_update-s2"
contraction_cmd="autosched datagen --sizes real --seed 2 --class contraction --programs N --schedules-per-program 16 --long-walks 4 --lookahead-walks 8 --out onnx/data/raw-contraction-s2"
matmul_chain_cmd="autosched datagen --sizes real --seed 2 --class matmul_chain --programs N --schedules-per-program 16 --long-walks 4 --lookahead-walks 8 --out onnx/data/raw-matmul_chain-s2"
linear_tiles_cmd="autosched datagen --sizes real --seed 3 --class linear --programs N --schedules-per-program 16 --long-walks 4 --lookahead-walks 8 --out onnx/data/raw-linear_tiles-s3"
dnn_convolution_cmd="autosched datagen --sizes real --seed 2 --class dnn_convolution --programs N --schedules-per-program 16 --long-walks 4 --lookahead-walks 8 --out onnx/data/raw-dnn_convolution-s2"
normalization_cmd="autosched datagen --sizes real --seed 2 --class normalization --programs N --schedules-per-program 16 --long-walks 4 --lookahead-walks 8 --out onnx/data/raw-normalization-s2"
resident_cmd="autosched datagen --sizes resident --seed 4 --programs N --schedules-per-program 16 --long-walks 4 --lookahead-walks 8 --out onnx/data/raw-resident-s4"
dnn_layer_cmd="autosched datagen --sizes real --seed 2 --class dnn_layer --programs N --schedules-per-program 16 --long-walks 4 --lookahead-walks 8 --out onnx/data/raw-dnn_layer-s2"
resident_normalization_cmd="autosched datagen --sizes resident --seed 4 --class normalization --programs N --schedules-per-program 16 --long-walks 4 --lookahead-walks 8 --out onnx/data/raw-resident_normalization-s4"
register_cmd() { echo "autosched datagen --sizes real --seed 4 --class $1 --programs N --schedules-per-program 16 --long-walks 4 --lookahead-walks 8 --register-neighbours 8 --out onnx/data/raw-$1_register-s4"; }
parallel_cmd() { echo "autosched datagen --sizes real --seed 3 --class $1 --programs N --schedules-per-program 16 --long-walks 4 --lookahead-walks 8 --parallel-neighbours 8 --out onnx/data/raw-$1_parallel-s3"; }
case "$sizes" in
  merge)
    dir=onnx/data/real
    inputs=()
    for f in "$dir"/remeasure-*/part-*.jsonl.gz "$dir"/incoming/*.jsonl.gz; do [[ -f $f ]] && inputs+=("$f"); done
    build/cargo/release/autosched merge "${inputs[@]}" "$dir/dataset.jsonl.gz" --out "$dir/dataset.jsonl.gz"
    cmds=(--command "$real_cmd")
    compgen -G "$dir/incoming/long-*.jsonl.gz" >/dev/null && cmds+=(--command "$long_cmd")
    compgen -G "$dir/incoming/wide-*.jsonl.gz" >/dev/null && cmds+=(--command "$wide_cmd")
    compgen -G "$dir/incoming/linear-*.jsonl.gz" >/dev/null && cmds+=(--command "$linear_cmd")
    compgen -G "$dir/incoming/temporary-*.jsonl.gz" >/dev/null && cmds+=(--command "$temporary_cmd")
    compgen -G "$dir/incoming/tiles-*.jsonl.gz" >/dev/null && cmds+=(--command "$tiles_cmd")
    compgen -G "$dir/incoming/rank_update-*.jsonl.gz" >/dev/null && cmds+=(--command "$rank_update_cmd")
    compgen -G "$dir/incoming/contraction-*.jsonl.gz" >/dev/null && cmds+=(--command "$contraction_cmd")
    compgen -G "$dir/incoming/matmul_chain-*.jsonl.gz" >/dev/null && cmds+=(--command "$matmul_chain_cmd")
    compgen -G "$dir/incoming/linear_tiles-*.jsonl.gz" >/dev/null && cmds+=(--command "$linear_tiles_cmd")
    compgen -G "$dir/incoming/dnn_convolution-*.jsonl.gz" >/dev/null && cmds+=(--command "$dnn_convolution_cmd")
    compgen -G "$dir/incoming/normalization-*.jsonl.gz" >/dev/null && cmds+=(--command "$normalization_cmd")
    compgen -G "$dir/incoming/resident-*.jsonl.gz" >/dev/null && cmds+=(--command "$resident_cmd")
    compgen -G "$dir/incoming/resident_normalization-*.jsonl.gz" >/dev/null && cmds+=(--command "$resident_normalization_cmd")
    compgen -G "$dir/incoming/dnn_layer-*.jsonl.gz" >/dev/null && cmds+=(--command "$dnn_layer_cmd")
    for c in dnn_layer contraction matmul_chain; do
      compgen -G "$dir/incoming/${c}_parallel-*.jsonl.gz" >/dev/null && cmds+=(--command "$(parallel_cmd $c)")
      compgen -G "$dir/incoming/${c}_register-*.jsonl.gz" >/dev/null && cmds+=(--command "$(register_cmd $c)")
    done
    notes=()
    for r in "$dir"/remeasure-*/README.md; do
      [[ -f $r ]] && notes+=(--note "Points measured again after a change to code generation replace the first copies: see \`${r#"$dir"/}\`.")
    done
    # The first run's raw logs (onnx/data/raw-r1/) were never committed: its card of
    # 2026-11-25 counted 3 failed programs, which the count from the logs present leaves out.
    [[ -d onnx/data/raw-r1 ]] || notes+=(--note "The first run (\`r1-p*\`) logged 3 failed programs (its card of 2026-11-25) and the chunks measured on 2026-11-26 logged 1 (the card of that day); raw logs are not committed, so the failed count below is of the logs present in this checkout only.")
    failed=()
    for f in onnx/data/raw-r1/*.failed.jsonl onnx/data/raw-long-s2/*.failed.jsonl onnx/data/raw-wide-s2/*.failed.jsonl onnx/data/raw-linear-s2/*.failed.jsonl onnx/data/raw-temporary-s2/*.failed.jsonl onnx/data/raw-tiles-s3/*.failed.jsonl onnx/data/raw-rank_update-s2/*.failed.jsonl onnx/data/raw-contraction-s2/*.failed.jsonl onnx/data/raw-matmul_chain-s2/*.failed.jsonl onnx/data/raw-linear_tiles-s3/*.failed.jsonl onnx/data/raw-dnn_convolution-s2/*.failed.jsonl onnx/data/raw-normalization-s2/*.failed.jsonl onnx/data/raw-resident-s4/*.failed.jsonl onnx/data/raw-resident_normalization-s4/*.failed.jsonl onnx/data/raw-dnn_layer-s2/*.failed.jsonl onnx/data/raw-*_parallel-s3/*.failed.jsonl onnx/data/raw-*_register-s4/*.failed.jsonl; do
      [[ -f $f ]] && failed+=("$f")
    done
    .venv/bin/python onnx/data_card.py "$dir/dataset.jsonl.gz" --out-dir "$dir" "${cmds[@]}" "${notes[@]}" \
      --failed "${failed[@]}"
    exit 0 ;;
  long|wide|linear|temporary|tiles|rank_update|contraction|matmul_chain|linear_tiles|dnn_convolution|normalization|resident|resident_normalization|dnn_layer|dnn_layer_parallel|contraction_parallel|matmul_chain_parallel|dnn_layer_register|contraction_register|matmul_chain_register)
    seed=2
    profile=real
    [[ $sizes == tiles || $sizes == linear_tiles || $sizes == *_parallel ]] && seed=3
    [[ $sizes == resident* ]] && { seed=4; profile=resident; }
    [[ $sizes == *_register ]] && seed=4
    raw=onnx/data/raw-$sizes-s$seed
    incoming=onnx/data/real/incoming
    extra=(--long-walks 8)
    case $sizes in tiles|rank_update|contraction|matmul_chain|linear_tiles|dnn_convolution|normalization|dnn_layer|resident*) extra=(--long-walks 4 --lookahead-walks 8) ;; esac
    [[ $sizes == *_parallel ]] && extra=(--long-walks 4 --lookahead-walks 8 --parallel-neighbours 8)
    [[ $sizes == *_register ]] && extra=(--long-walks 4 --lookahead-walks 8 --register-neighbours 8)
    class=${sizes%_tiles}
    class=${class%_parallel}
    class=${class%_register}
    class=${class#resident_}
    [[ $sizes == long || $sizes == tiles || $sizes == resident ]] || extra+=(--class "$class")
    resume=()
    for c in "$incoming/$sizes"-*.jsonl.gz; do [[ -f $c ]] && resume+=(--resume-from "$c"); done
    build/cargo/release/autosched datagen --sizes "$profile" --seed "$seed" --programs "$programs" --schedules-per-program 16 \
      "${extra[@]}" --out "$raw" "${resume[@]}" || true
    .venv/bin/python scripts/store_chunk.py "$raw" "$incoming" "$sizes"
    exit 0 ;;
  toy) raw=onnx/data/raw-s1; dir=onnx/data ;;
  real) raw=onnx/data/raw-r1; dir=onnx/data/real ;;
  *) echo "the mode must be toy, real, long, wide, linear, temporary, tiles, rank_update, contraction, matmul_chain, linear_tiles, dnn_convolution, normalization, resident, resident_normalization, dnn_layer, dnn_layer_parallel, contraction_parallel, matmul_chain_parallel, dnn_layer_register, contraction_register, matmul_chain_register or merge, got '$sizes'" >&2; exit 2 ;;
esac
mkdir -p "$dir"
dataset="$dir/dataset.jsonl.gz"
cmd="autosched datagen --sizes $sizes --seed 1 --programs $programs --schedules-per-program 16 --out $raw"
resume=()
[[ -f "$dataset" ]] && resume=(--resume-from "$dataset")
build/cargo/release/autosched datagen --sizes "$sizes" --seed 1 --programs "$programs" --schedules-per-program 16 \
  --out "$raw" "${resume[@]}" || true
inputs=("$raw")
[[ -f "$dataset" ]] && inputs+=("$dataset")
build/cargo/release/autosched merge "${inputs[@]}" --out "$dataset"
# The real dataset's card lists every part merged into it: written by the merge mode.
[[ $sizes == real ]] && exec bash scripts/datagen.sh 0 merge
.venv/bin/python onnx/data_card.py "$dataset" --out-dir "$dir" --command "$cmd" \
  --failed "$raw"/*.failed.jsonl
