#!/usr/bin/env bash
# The main job on a fresh machine: install, build the warehouse, evaluate the offline agents on
# every level (no API key needed), run the offline MINT ablation, and write the report.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet -e '.[dev]'
.venv/bin/mpcbench build
runs=()
for agent in scripted calendar-only random; do
  .venv/bin/mpcbench eval --agent "$agent" --out "build/runs/quickstart-$agent" --overwrite
  runs+=("build/runs/quickstart-$agent")
done
# the MINT ablation, offline: the calendar-only baseline reads rule feedback
.venv/bin/mpcbench eval --agent calendar-only --ablation --out build/runs/quickstart-ablation --overwrite
runs+=("build/runs/quickstart-ablation")
.venv/bin/mpcbench report "${runs[@]}" --out reports/quickstart
echo "Report: reports/quickstart/report.html (and report.md)"
