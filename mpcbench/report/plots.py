"""The report's PNG plots (matplotlib, imported only when a report is drawn): F1 by level (every
bar labelled with its value, so a bar of 0.00 shows), the failure causes stacked per level and
model, success by turn budget (runs with identical curves drawn once, under one legend entry).
"""

from __future__ import annotations

from pathlib import Path

from .tables import OUTCOME_ORDER


OUTCOME_COLORS = {"exact match": "#4c9a2a", "calendar": "#1f77b4", "policy": "#ff7f0e", "threads": "#9467bd",
                  "rooms": "#8c564b", "ranking": "#e377c2", "too few candidates": "#bcbd22",
                  "invalid candidate": "#17becf", "parse failure": "#d62728", "unexplained": "#7f7f7f",
                  "context exceeded": "#393b79", "model output rejected": "#ad494a", "infrastructure error": "#000000"}


def plot_f1(stats: list[dict], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    levels = sorted({s["level"] for s in stats})
    labels = list(dict.fromkeys(s["label"] for s in stats))
    width = 0.8 / max(len(labels), 1)
    fig, ax = plt.subplots(figsize=(max(6, 1.8 * len(levels) * max(1, len(labels)) ** 0.5), 4), dpi=110)
    for j, label in enumerate(labels):
        xs, ys, lo, hi = [], [], [], []
        for i, level in enumerate(levels):
            s = next((s for s in stats if s["level"] == level and s["label"] == label), None)
            if s is None or s["mean_f1"] is None:
                continue
            xs.append(i + (j - (len(labels) - 1) / 2) * width)
            ys.append(s["mean_f1"])
            lo.append(s["mean_f1"] - s["ci"][0])
            hi.append(s["ci"][1] - s["mean_f1"])
        bars = ax.bar(xs, ys, width * 0.95, yerr=[lo, hi], capsize=3, label=label)
        color = bars.patches[0].get_facecolor() if bars.patches else None
        for x, y, top in zip(xs, ys, hi):  # the value above the interval: a bar of 0.00 is seen too
            if y == 0:
                ax.plot([x - width * 0.45, x + width * 0.45], [0.004, 0.004], color=color, linewidth=3)
            ax.text(x, y + top + 0.015, f"{y:.2f}", ha="center", va="bottom", fontsize=7,
                    rotation=90 if len(labels) > 3 else 0, color=color)
    ax.set_xticks(range(len(levels)), [f"Level {level}" for level in levels])
    ax.set_ylim(0, 1.2 if len(labels) > 3 else 1.1)
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_ylabel("mean F1 (95% bootstrap CI)")
    ax.set_title("F1 by level")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def plot_causes(shares: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = list(shares)
    names = [f"L{level} · {label}" for level, label in keys]
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(keys) + 1.6), dpi=110)
    left = [0.0] * len(keys)
    for o in OUTCOME_ORDER:
        values = [shares[k].get(o, 0.0) for k in keys]
        if not any(values):
            continue
        ax.barh(range(len(keys)), values, left=left, color=OUTCOME_COLORS[o], label=o)
        left = [a + b for a, b in zip(left, values)]
    ax.set_yticks(range(len(keys)), names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of episodes (primary cause of the miss, by source)")
    ax.set_title("Outcomes and primary failure causes")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=4, frameon=False)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def merge_identical(curves: dict[str, list]) -> list[tuple[list[str], list]]:
    """Runs whose curves are equal, merged: [(labels, curve)] in first-seen order.

    >>> merge_identical({"a": [0.0, 0.5], "b": [1.0], "c": [0.0, 0.5]})
    [(['a', 'c'], [0.0, 0.5]), (['b'], [1.0])]
    """
    merged: dict[tuple, list[str]] = {}
    for label, curve in curves.items():
        merged.setdefault(tuple(curve), []).append(label)
    return [(labels, list(curve)) for curve, labels in merged.items()]


MARKERS = "osD^vP*Xh<>p"


def plot_turns(curves: dict, path: Path) -> bool:
    """Success within each turn budget: one panel per level, one line per distinct curve (runs with
    equal curves share it and one legend entry; a single-turn run is one point at k = 1), each with
    its own marker and a small sideways offset so that no point hides another; False if nothing
    was scored."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curves = {key: success for key, success in curves.items() if success[0] is not None}  # scored ones
    if not curves:
        return False
    levels = sorted({level for level, _ in curves})
    budget = max(len(c) for c in curves.values())
    panels = {level: merge_identical({label: c for (lv, label), c in curves.items() if lv == level})
              for level in levels}
    rows = max(len(p) for p in panels.values())
    fig, axes = plt.subplots(1, len(levels), figsize=(4.2 * len(levels), 3.4 + 0.2 * rows), dpi=110,
                             squeeze=False, sharey=True)
    for ax, level in zip(axes[0], levels):
        lines = panels[level]
        for i, (labels, success) in enumerate(lines):
            shift = (i - (len(lines) - 1) / 2) * min(0.06, 0.3 / len(lines))
            ax.plot([k + 1 + shift for k in range(len(success))], success, marker=MARKERS[i % len(MARKERS)],
                    color=f"C{i % 10}", alpha=0.9, label=" = ".join(labels))
        ax.set_title(f"Level {level}")
        ax.set_xticks(range(1, budget + 1))
        ax.set_xlim(0.7, budget + 0.3)
        ax.set_xlabel("turn budget k")
        ax.set_ylim(-0.04, 1.06)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)
    axes[0][0].set_ylabel("success within k turns")
    fig.suptitle("Success by turn budget (runs with equal curves share a line)")
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None}, bbox_inches="tight")
    plt.close(fig)
    return True
