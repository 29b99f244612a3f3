"""MINT's numbers for the report: success rate at k = 1..K turns with the slope and r² of a
least-squares fit, the invalid-action rate, tool calls per episode (native and from code), and
the published figures of another build (`data/published.json`, shown beside the runs)."""

from __future__ import annotations

import json
from pathlib import Path

from .stats import least_squares, mean, success_at
from .tables import Group, _episodes, _num, _pct

PUBLISHED = Path(__file__).parent / "data" / "published.json"


def mint_table(groups: list[Group]) -> tuple[list[str], list[list[str]]]:
    budget = max(g.run.max_turns for g in groups)
    header = (["Level", "Model", "Mode", "Protocol", "Episodes"] + [f"SR@{k}" for k in range(1, budget + 1)]
              + ["Slope / turn", "r²", "Invalid actions / step", "Native calls / episode", "Calls from code / episode"])
    body = []
    for g in groups:
        scored, k_run = g.scored, g.run.max_turns
        success = [success_at([r["solved_turn"] for r in scored], k) for k in range(1, k_run + 1)]
        fit = least_squares(list(range(1, k_run + 1)), success) if scored and None not in success else None
        steps = sum(int(r.get("steps") or 0) for r in scored)
        invalid = sum(int(r.get("invalid_actions") or 0) for r in scored)
        code = [float(r.get("code_tool_calls") or 0) for r in scored]
        native = [float(r.get("tool_calls") or 0) - c for r, c in zip(scored, code)]
        protocol = next((r.get("protocol") for r in g.rows if r.get("protocol")), "native")
        body.append([f"Level {g.level}", g.label, g.run.mode, protocol, _episodes(g)]
                    + [_pct(x) for x in success + [None] * (budget - k_run)]
                    + ["—" if fit is None else f"{100 * fit[0]:+.1f} pts", "—" if fit is None else f"{fit[1]:.2f}",
                       _pct(invalid / steps) if steps else "—", _num(mean(native), 1), _num(mean(code), 1)])
    return header, body


def published_table() -> tuple[list[str], list[list[str]], str]:
    data = json.loads(PUBLISHED.read_text())
    body = [[f"Level {r['level']}", r["model"], _num(r["mean_f1"]), _pct(r["em_rate"])] for r in data["rows"]]
    return ["Level", "Model", "Avg F1", "EM rate"], body, data["source"]
