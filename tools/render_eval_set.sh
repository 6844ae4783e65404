#!/usr/bin/env bash
# Render the tray-flag evaluation set: 300 scenes from seeds no test or sample uses
# (mixed, leaning, off-tray, frame-edge, corner and touching cases), 800x600 at SPP samples
# (default 8; at 32 the path tracer's grain is much finer, nearer a phone's).
# Usage: tools/render_eval_set.sh OUT_DIR [SPP]   (about 6 s a scene at 8, 12 s at 32, on one
# free core)
set -euo pipefail
out=${1:?usage: tools/render_eval_set.sh OUT_DIR [SPP]}
spp=${2:-8}
cd "$(dirname "$0")/.."
R=(python -m tools.render_tray --width 800 --height 600 --spp "$spp" --format jpg --no-visibility
   --skip-existing --out "$out")
for r in 0 1 2 3 4 5 6 7 8 9; do
  "${R[@]}" --count 10 --seed $((100000 + r * 10)) --case mixed
  "${R[@]}" --count 4 --seed $((101000 + r * 4)) --case leaning
  "${R[@]}" --count 2 --seed $((102000 + r * 2)) --case off_tray
  "${R[@]}" --count 2 --seed $((103000 + r * 2)) --case frame_edge
  "${R[@]}" --count 1 --seed $((104000 + r)) --case corner
  "${R[@]}" --count 1 --seed $((105000 + r)) --case touching
done
for r in 0 1 2 3 4; do
  "${R[@]}" --count 6 --seed $((100300 + r * 6)) --case mixed
  "${R[@]}" --count 3 --seed $((101300 + r * 3)) --case leaning
  "${R[@]}" --count 2 --seed $((102300 + r * 2)) --case off_tray
  "${R[@]}" --count 2 --seed $((103300 + r * 2)) --case frame_edge
  "${R[@]}" --count 2 --seed $((104300 + r * 2)) --case corner
  "${R[@]}" --count 2 --seed $((105300 + r * 2)) --case touching
  "${R[@]}" --count 3 --seed $((100400 + r * 3)) --case mixed
done
