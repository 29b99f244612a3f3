#!/usr/bin/env bash
# The quickstart's install step from pip's warm cache, timed from outside: a fresh virtualenv and
# `pip install -e .` (the light install users take), or `.[dev]` (contributors) with EXTRAS=dev.
#
#   farm-bench -n 3 --timeout 1800 -- bench/install.sh            # the light install
#   farm-bench -n 3 --timeout 1800 -- env EXTRAS=dev bench/install.sh
#
# The virtualenv goes to a temporary directory, removed afterwards; the worktree is not touched
# beyond the editable install's build metadata.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$(mktemp -d)/venv
trap 'rm -rf "$(dirname "$venv")"' EXIT
spec=.
[ -z "${EXTRAS:-}" ] || spec=".[$EXTRAS]"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet -e "$spec"
"$venv/bin/mpcbench" version >/dev/null
