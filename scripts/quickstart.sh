#!/usr/bin/env bash
# The main job on a fresh machine: install, build the warehouse, evaluate the offline agents on
# every level (no API key needed), run the offline MINT ablation on the first 10 instances of each
# level, and write the report. About 2-3 minutes on 2 cores (README).
# On a terminal each step shows its own output; otherwise (a pipe, a log, CI) each step prints one
# line and its output goes to build/quickstart.log.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
log=build/quickstart.log
: > "$log"
steps=7
n=0
step() {  # step DESCRIPTION COMMAND...
  local what=$1 t0=$SECONDS
  shift
  n=$((n + 1))
  if [ -t 1 ]; then
    echo "== [$n/$steps] $what"
    "$@"
  elif ! "$@" >> "$log" 2>&1; then
    echo "[$n/$steps] $what: FAILED after $((SECONDS - t0)) s; the end of $log:"
    tail -n 20 "$log"
    exit 1
  fi
  [ -t 1 ] || echo "[$n/$steps] $what: done in $((SECONDS - t0)) s"
}
echo "MPCBench quickstart: about 2-3 minutes on 2 cores; each step says how long it took"
step "install into .venv" bash -c "python3 -m venv .venv && .venv/bin/python -m pip install --quiet -e '.[dev]'"
step "build the warehouse (levels 1-3 x 100 instances, level 4 x 50)" .venv/bin/mpcbench build
runs=()
for agent in scripted calendar-only random; do
  step "evaluate the $agent agent (350 episodes)" \
    .venv/bin/mpcbench eval --agent "$agent" --out "build/runs/quickstart-$agent" --overwrite
  runs+=("build/runs/quickstart-$agent")
done
# the MINT ablation, offline: the calendar-only baseline reads rule feedback
step "the offline MINT ablation (calendar-only, 4 configurations x 40 episodes)" \
  .venv/bin/mpcbench eval --agent calendar-only --ablation --instances 10 --out build/runs/quickstart-ablation --overwrite
runs+=("build/runs/quickstart-ablation")
step "write the report" .venv/bin/mpcbench report "${runs[@]}" --out reports/quickstart
echo "All done in $((SECONDS / 60)) min $((SECONDS % 60)) s"
echo "Report: reports/quickstart/report.html (and report.md)"
