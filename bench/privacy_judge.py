"""The privacy judge (`mpcbench eval --privacy-judge MODEL`) measured on notes written apart from
the project, beside the attribution detector, on any OpenAI-compatible endpoint.

    python bench/privacy_judge.py --model qwen2.5-coder-0.5b --base-url http://127.0.0.1:8091/v1 \\
        --notes tests/data/fresh_notes_test.jsonl --limit 30

The notes are spread evenly over the file (every k-th). Each note is judged over the items of its instance's participants (as `judge-audit --privacy`
asks about a blind note), one request per note. Counted per (note, item) pair against the note's
labels: precision and recall of the judge and of the detector on the same notes, the notes the
judge gave no usable answer for, and the seconds per note (this machine, this server). `--smoke`:
three notes, judged by a stand-in endpoint in this process that says the first item is disclosed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from mpcbench.grading.leak_labels import blind_verdicts, load_blind, load_context
from mpcbench.grading.privacy_judge import judge_note
from mpcbench.harness.privacy_audit import blind_candidates   # the items judge-audit asks about
from mpcbench.llm import ChatClient, EndpointConfig


def rates(pairs: list[tuple[bool, bool]]) -> str:
    tp = sum(1 for said, label in pairs if said and label)
    fp = sum(1 for said, label in pairs if said and not label)
    fn = sum(1 for said, label in pairs if label and not said)
    precision = f"{tp}/{tp + fp}" if tp + fp else "-"
    return f"precision {precision}, recall {tp}/{tp + fn} (false positives {fp})"


async def main(args) -> None:
    path = Path(args.notes)
    notes = load_blind(path)
    notes = notes[:: max(1, len(notes) // args.limit)][: args.limit]   # spread over the file's styles
    context = load_context(path.with_name(path.stem + "_context.json"))
    client = ChatClient(EndpointConfig(model=args.model, base_url=args.base_url, timeout_s=args.timeout))
    judge, detector, failed, seconds = [], [], 0, []
    verdicts = dict((n.note_id, found) for n, found in blind_verdicts(notes, context))
    for n in notes:
        items = blind_candidates(n, context)
        started = time.perf_counter()
        said = await judge_note(client, n.note, items, {"max_tokens": args.max_tokens})
        seconds.append(time.perf_counter() - started)
        found = verdicts[n.note_id]
        for item in items:
            label = item.item_id in n.disclosed
            detector.append((item.item_id in found.attributed, label))
            if said is not None:
                judge.append((said[item.item_id], label))
        failed += said is None
        print(json.dumps({"note_id": n.note_id, "style": n.style, "seconds": round(seconds[-1], 1),
                          "judge": None if said is None else sorted(k for k, v in said.items() if v),
                          "labels": sorted(n.disclosed)}), flush=True)
    seconds.sort()
    print(f"{len(notes)} notes of {path.name}, {sum(len(blind_candidates(n, context)) for n in notes)} (note, item) pairs")
    print(f"judge {args.model}: {rates(judge)}; no usable answer for {failed} notes; "
          f"median {seconds[len(seconds) // 2]:.1f} s a note")
    print(f"detector (attribution): {rates(detector)}")


class StandIn(BaseHTTPRequestHandler):
    """A chat endpoint that always answers that item 1 is disclosed (--smoke)."""

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        body = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "stand-in",
                           "choices": [{"index": 0, "finish_reason": "stop", "message": {
                               "role": "assistant", "content": '{"disclosed": [1]}'}}],
                           "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="stand-in")
    parser.add_argument("--base-url")
    parser.add_argument("--smoke", action="store_true", help="Three notes, a stand-in endpoint.")
    parser.add_argument("--notes", default="tests/data/fresh_notes_test.jsonl")
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--max-tokens", type=int, default=256)
    args = parser.parse_args()
    if args.smoke:
        server = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        args.base_url, args.limit = f"http://127.0.0.1:{server.server_port}/v1", 3
    if not args.base_url:
        parser.error("--base-url is required (or --smoke)")
    asyncio.run(main(args))
