"""MINT's numbers for the report: success rate at k = 1..K turns with the slope and r² of a
least-squares fit, the invalid-action rate, tool calls per episode (native and from code), and
ΔFeedback and ΔCode (paired differences between two runs of one model that differ only in feedback,
or only in tools against code)."""

from __future__ import annotations

from .stats import least_squares, mean, paired_diff_ci, success_at
from .tables import Group, _episodes, _num, _pct, _signed



def mint_table(groups: list[Group]) -> tuple[list[str], list[list[str]]]:
    budget = max((g.run.max_turns for g in groups), default=1)
    header = (["Level", "Model", "Mode", "Protocol", "Episodes"] + [f"SR@{k}" for k in range(1, budget + 1)]
              + ["Slope / turn", "r²", "Invalid actions / step", "Native calls / episode", "Calls from code / episode"])
    body = []
    for g in groups:
        scored, k_run = g.scored, g.run.max_turns
        success = [success_at([r["solved_turn"] for r in scored], k) for k in range(1, k_run + 1)]
        shares = [x for x in success if x is not None]   # all of them when some episodes are scored
        fit = least_squares(list(range(1, k_run + 1)), shares) if scored and len(shares) == k_run else None
        steps = sum(int(r.get("steps") or 0) for r in scored)
        invalid = sum(int(r.get("invalid_actions") or 0) for r in scored)
        code = [float(r.get("code_tool_calls") or 0) for r in scored]
        native = [float(r.get("tool_calls") or 0) - c for r, c in zip(scored, code)]
        protocol = _protocol(g)
        body.append([f"Level {g.level}", g.label, g.run.mode, protocol, _episodes(g)]
                    + [_pct(x) for x in success + [None] * (budget - k_run)]
                    + ["—" if fit is None else f"{100 * fit[0]:+.1f} pts", "—" if fit is None else f"{fit[1]:.2f}",
                       _pct(invalid / steps) if steps else "—", _num(mean(native), 1), _num(mean(code), 1)])
    return header, body


def _protocol(g: Group) -> str:
    return next((protocol for r in g.rows if (protocol := r.get("protocol"))), "native")


def _model(g: Group) -> str:
    return g.run.meta.get("model") or g.run.meta.get("agent") or ""


def _config(g: Group) -> str:
    return f"{g.label}: {g.run.mode}, {_protocol(g)}, feedback {g.run.feedback}, {g.run.max_turns} turn(s)"


def _delta(a: Group, b: Group) -> tuple[int, str, str]:
    """b − a over the episodes both scored, paired by (instance, trial), resampling instances:
    (pairs, Δsuccess [95% CI] in points, ΔF1 [95% CI])."""
    base = {(r["instance_id"], r["trial"]): r for r in a.scored}
    pairs = [(base[k], r) for r in b.scored if (k := (r["instance_id"], r["trial"])) in base]
    if not pairs:
        return 0, "—", "—"
    clusters = [x["instance_id"] for x, _ in pairs]
    solved = paired_diff_ci([float(x["solved_turn"] is not None) for x, _ in pairs],
                            [float(y["solved_turn"] is not None) for _, y in pairs], clusters)
    f1 = paired_diff_ci([x["f1"] for x, _ in pairs], [y["f1"] for _, y in pairs], clusters)
    if solved is None or f1 is None:   # only without pairs
        return 0, "—", "—"
    sr = f"{100 * solved[0]:+.1f} [{100 * solved[1]:+.1f}, {100 * solved[2]:+.1f}] pts"
    return len(pairs), sr, f"{_signed(f1[0])} [{_signed(f1[1])}, {_signed(f1[2])}]"


def deltas_table(groups: list[Group]) -> tuple[list[str], list[list[str]]]:
    """MINT's ΔFeedback (with feedback − without: same model, level, mode and protocol) and ΔCode
    (code − tools: same model, level, feedback and turn budget), wherever the runs hold both, of
    one dataset version."""
    header = ["Level", "Model", "Δ", "From", "To", "Pairs", "ΔSuccess [95% CI]", "ΔF1 [95% CI]"]
    body = []
    for a in groups:
        for b in groups:
            if a is b or a.level != b.level or _model(a) != _model(b) or a.run.dataset_version != b.run.dataset_version:
                continue   # a pair of runs of different dataset versions would set unlike gold answers side by side
            if (a.run.feedback == "none" != b.run.feedback and a.run.mode == b.run.mode
                    and _protocol(a) == _protocol(b)):
                kind = "ΔFeedback"
            elif (a.run.mode == "tools" and b.run.mode == "code" and a.run.feedback == b.run.feedback
                  and a.run.max_turns == b.run.max_turns):
                kind = "ΔCode"
            else:
                continue
            body.append([f"Level {a.level}", _model(a), kind, _config(a), _config(b), *map(str, _delta(a, b))])
    return header, body
