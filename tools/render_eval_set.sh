#!/usr/bin/env bash
# Render the tray-flag evaluation set: 200 scenes from seeds no test or sample uses
# (mixed, leaning, off-tray, frame-edge, corner and touching cases), 800x600 at SPP samples
# (default 32: at 8 the path tracer's grain is far coarser than a phone's, and the pip
# search reads grain as pips).
# Usage: tools/render_eval_set.sh OUT_DIR [SPP]   (about 12 s a scene at 32 on one free core)
set -euo pipefail
out=${1:?usage: tools/render_eval_set.sh OUT_DIR [SPP]}
spp=${2:-32}
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
