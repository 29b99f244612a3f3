#!/usr/bin/env bash
# The main job on a fresh machine: install, build the warehouse, evaluate the offline agents on
# every level (no API key needed), run the offline MINT ablation on the first 10 instances of each
# level, and write the report; then name the report and three commands to try next. A few
# minutes on 2 cores (docs/performance.md has the figures).
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
echo "MPCBench quickstart: a few minutes on 2 cores, under one of them the install; each step says how long it took"
# the light install: the package and what build, eval and report need. The tests, the docs site
# and the integrations are extras: pip install -e '.[dev]' (docs/contributing.md)
step "install into .venv (pip install -e ., the light install)" \
  bash -c "python3 -m venv .venv && .venv/bin/python -m pip install --quiet -e ."
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
echo "Report: reports/quickstart/report.html (and report.md; one page per failed episode under reports/quickstart/trajectories/)"
# a start the calendar-only agent submitted and got wrong, to explain (the highest level first; a
# candidate, not a start before "now" or outside the window: explain would say only that)
miss=$(.venv/bin/python - <<'PY' 2>/dev/null || true
import duckdb
con = duckdb.connect("build/mpcbench.duckdb", read_only=True)
row = con.sql("""select c.instance_id, c.start from 'build/runs/quickstart-calendar-only/candidates.parquet' c
                 join instances i using (instance_id)
                 where not c.in_gold and len(c.violations) > 0 and c.start is not null
                   and c.start::timestamp >= i.now and c.start::date between i.window_start and i.window_end
                 order by c.level desc, c.instance_id, c.turn, c.position limit 1""").fetchall()
print(f"{row[0][0]} --start {row[0][1]}" if row else "")
PY
)
[ -n "$miss" ] || miss="L2-0002 --start 2026-04-01T08:45"
cat <<EOF

Next, three things to try (docs/getting-started.md):
  1. One instance's gold answer, with SQL:
     .venv/bin/mpcbench sql "select rank, starts_at, room_id from oracle_answers where instance_id = 'L3-0007' order by rank"
  2. Why a start the calendar-only agent submitted is wrong:
     .venv/bin/mpcbench explain $miss
  3. Run a model (any OpenAI-compatible endpoint; --base-url http://localhost:8000/v1 for a local server):
     OPENAI_API_KEY=sk-... .venv/bin/mpcbench eval --agent openai --model gpt-4o-mini --instances 5 --out build/runs/my-model
EOF
