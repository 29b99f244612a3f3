"""The report's PNG plots (matplotlib, imported only when a report is drawn): F1 by level, the
failure causes stacked per level and model, success by turn budget.
"""

from __future__ import annotations

from pathlib import Path

from .tables import OUTCOME_ORDER


OUTCOME_COLORS = {"exact match": "#4c9a2a", "calendar": "#1f77b4", "policy": "#ff7f0e", "threads": "#9467bd",
                  "rooms": "#8c564b", "ranking": "#e377c2", "too few candidates": "#bcbd22",
                  "invalid candidate": "#17becf", "parse failure": "#d62728", "unexplained": "#7f7f7f",
                  "infrastructure error": "#000000"}


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
        ax.bar(xs, ys, width * 0.95, yerr=[lo, hi], capsize=3, label=label)
    ax.set_xticks(range(len(levels)), [f"Level {level}" for level in levels])
    ax.set_ylim(0, 1.05)
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


def plot_turns(curves: dict, path: Path) -> bool:
    """Success within each turn budget: one panel per level, one line per run; False if nothing scored."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curves = {key: success for key, success in curves.items() if success[0] is not None}  # scored ones
    if not curves:
        return False
    levels = sorted({level for level, _ in curves})
    labels = list(dict.fromkeys(label for _, label in curves))
    colors = {label: f"C{i % 10}" for i, label in enumerate(labels)}  # one color per run in every panel
    budget = max(len(c) for c in curves.values())
    fig, axes = plt.subplots(1, len(levels), figsize=(3.6 * len(levels) + 2.4, 3.6), dpi=110, squeeze=False,
                             sharey=True)
    for ax, level in zip(axes[0], levels):
        for (lv, label), success in curves.items():
            if lv == level:
                ax.plot(range(1, len(success) + 1), success, marker="o", color=colors[label], alpha=0.85)
        ax.set_title(f"Level {level}")
        ax.set_xticks(range(1, budget + 1))
        ax.set_xlim(0.8, budget + 0.2)
        ax.set_xlabel("turn budget k")
        ax.set_ylim(-0.03, 1.05)
    axes[0][0].set_ylabel("success within k turns")
    handles = [plt.Line2D([], [], color=colors[label], marker="o") for label in labels]
    axes[0][-1].legend(handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle("Success by turn budget")
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)
    return True
