"""Ctrl-C at random moments of `mpcbench eval`, many times, with both cores busy (not a test; run
by hand): each try starts the console script against a fake endpoint that answers every call
after DELAY seconds, presses Ctrl-C after a random wait, and checks what a user must see: exit
status 130 and one line on stderr (no traceback, no warning) that says what is saved. It prints
each try's moment and line, then the count of good tries per stage (while starting, before the
first episode, during the run or while its tables are written, after the run).

    .venv/bin/python bench/interrupts.py                        # 50 tries, 2 busy processes, builds a tiny db
    .venv/bin/python bench/interrupts.py --tries 100 --busy 0   # on a quiet machine
    .venv/bin/python bench/interrupts.py --smoke --db build/mpcbench.duckdb   # 1 try, only shows it works
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from fake_openai import FakeOpenAI, reply_tool_calls  # noqa: E402 - tests/ is put on the path just above

STAGES = {"interrupted while starting": "starting", "interrupted before any episode": "before the first episode",
          "episodes are saved": "during the run or its tables", "the run is complete": "after the run"}


def burn(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def one_try(db: Path, run: Path, wait_s: float, delay_s: float) -> tuple[bool, str]:
    """(whether Ctrl-C after `wait_s` gave exit 130 and one line, that line or the whole stderr)."""
    shutil.rmtree(run, ignore_errors=True)
    answer = reply_tool_calls([("submit_candidates", {"candidates": []})])
    env = {**os.environ, "OPENAI_API_KEY": "sk-bench"}
    with FakeOpenAI(lambda req: dataclasses.replace(answer, delay_s=delay_s)) as srv:
        proc = subprocess.Popen([str(Path(sys.executable).with_name("mpcbench")), "eval", "--agent", "openai",
                                 "--model", "fake-model", "--base-url", srv.base_url, "--db", str(db), "--out",
                                 str(run), "--concurrency", "2"],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(wait_s)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=120)
    lines = [line for line in stderr.splitlines() if line.strip()]
    if proc.returncode == 0:
        return True, "finished before the press"
    good = proc.returncode == 130 and len(lines) == 1 and any(key in lines[0] for key in STAGES)
    return good, lines[0] if good else f"exit {proc.returncode}:\n{stderr}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tries", type=int, default=50)
    parser.add_argument("--busy", type=int, default=2, help="processes that keep the cores busy meanwhile")
    parser.add_argument("--delay", type=float, default=0.3, help="seconds the fake endpoint takes per call")
    parser.add_argument("--longest", type=float, default=9.0, help="the latest moment to press, in seconds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--db", type=Path, default=None, help="default: a tiny build made for the run")
    parser.add_argument("--smoke", action="store_true", help="1 try within 1.5 s, no busy processes")
    args = parser.parse_args()
    if args.smoke:
        args.tries, args.busy, args.longest = 1, 0, 1.5
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "tiny.duckdb"
        if args.db is None:
            subprocess.run([str(Path(sys.executable).with_name("mpcbench")), "build", "--db", str(db),
                            "--instances", "4"], check=True, capture_output=True)
        busy = [multiprocessing.Process(target=burn, args=(3600,), daemon=True) for _ in range(args.busy)]
        for p in busy:
            p.start()
        counts: dict[str, int] = {}
        bad = 0
        try:
            for k in range(args.tries):
                wait_s = rng.uniform(0.05, args.longest)
                good, said = one_try(db, Path(tmp) / "run", wait_s, args.delay)
                stage = next((name for key, name in STAGES.items() if key in said), said)
                counts[stage] = counts.get(stage, 0) + good
                bad += not good
                print(f"{k + 1:3d} {wait_s:5.2f} s {'ok ' if good else 'BAD'} {said}", flush=True)
        finally:
            for p in busy:
                p.terminate()
    print(f"{args.tries - bad} of {args.tries} tries good ({args.busy} busy processes, {os.cpu_count()} cores); "
          + "; ".join(f"{stage}: {n}" for stage, n in counts.items()))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
