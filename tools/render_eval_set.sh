#!/usr/bin/env bash
# Render the tray-flag evaluation set: 300 scenes from seeds no test or sample uses
# (mixed, leaning, off-tray, frame-edge, corner and touching cases), at SPP samples (default
# 8; at 32 the path tracer's grain is much finer, nearer a phone's).
# Usage: tools/render_eval_set.sh OUT_DIR [SPP] [WIDTHxHEIGHT] [ROUNDS]
#   WIDTHxHEIGHT (default 800x600): 2016x1512 is half a 12-megapixel phone photo's size, and the
#   reader decodes both to the same 1008x756 (30-80 s a scene at 16 samples, both cores).
#   ROUNDS (default 10, the whole set): only the first ROUNDS of the first loop's ten
#   rounds, 20 scenes each in the set's proportions (3 rounds: the first 60 scenes).
# (about 6 s a scene at 8, 12 s at 32, on one free core, at 800x600)
set -euo pipefail
out=${1:?usage: tools/render_eval_set.sh OUT_DIR [SPP] [WIDTHxHEIGHT] [ROUNDS]}
spp=${2:-8}
size=${3:-800x600}
rounds=${4:-10}
width=${size%x*}
height=${size#*x}
cd "$(dirname "$0")/.."
R=(python -m tools.render_tray --width "$width" --height "$height" --spp "$spp" --format jpg
   --no-visibility --skip-existing --out "$out")
for ((r = 0; r < rounds && r < 10; r++)); do
  "${R[@]}" --count 10 --seed $((100000 + r * 10)) --case mixed
  "${R[@]}" --count 4 --seed $((101000 + r * 4)) --case leaning
  "${R[@]}" --count 2 --seed $((102000 + r * 2)) --case off_tray
  "${R[@]}" --count 2 --seed $((103000 + r * 2)) --case frame_edge
  "${R[@]}" --count 1 --seed $((104000 + r)) --case corner
  "${R[@]}" --count 1 --seed $((105000 + r)) --case touching
done
if [ "$rounds" -lt 10 ]; then
  exit 0
fi
for r in 0 1 2 3 4; do
  "${R[@]}" --count 6 --seed $((100300 + r * 6)) --case mixed
  "${R[@]}" --count 3 --seed $((101300 + r * 3)) --case leaning
  "${R[@]}" --count 2 --seed $((102300 + r * 2)) --case off_tray
  "${R[@]}" --count 2 --seed $((103300 + r * 2)) --case frame_edge
  "${R[@]}" --count 2 --seed $((104300 + r * 2)) --case corner
  "${R[@]}" --count 2 --seed $((105300 + r * 2)) --case touching
  "${R[@]}" --count 3 --seed $((100400 + r * 3)) --case mixed
done
