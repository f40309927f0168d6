"""Pictures of a study's spread, written to PNG with matplotlib (the optional extra "plot"):
a fan chart of an output along time and a histogram of a per-sample output, one row per
component (joint).

    from fastdyn.study.plot import plot
    plot(res, "study.png", fan="tau", hist="peak", time=t[::every], limits=effort)

A fan chart shades the bands between symmetric pairs of the study's quantile levels
(5-95 %, 25-75 %, darker inward) around the median line; those quantiles are the study's own
(``res.quantiles``), computed over all samples. The histogram shows every sample's value.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["plot", "fan_chart"]


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise ImportError('plotting a study needs matplotlib: pip install "fastdyn[plot]"') \
            from None
    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt
    return plt


def fan_chart(ax, x: np.ndarray, quantiles: np.ndarray, levels: np.ndarray,
              color: str = "C0") -> None:
    """Shade the bands between levels[i] and levels[-1 - i] of ``quantiles`` (len(levels),
    len(x)) along ``x``; a line at the median (or the middle level)."""
    order = np.argsort(levels)
    lv, qs = np.asarray(levels)[order], np.asarray(quantiles)[order]
    k = len(lv)
    for i in range(k // 2):
        ax.fill_between(x, qs[i], qs[k - 1 - i], color=color, alpha=0.15 + 0.25 * i, lw=0,
                        label=f"{100 * lv[i]:g}-{100 * lv[k - 1 - i]:g} %")
    mid = int(np.argmin(np.abs(lv - 0.5)))
    ax.plot(x, qs[mid], color=color, lw=1.2, label=f"{100 * lv[mid]:g} %")


def _in_view(limits, k: int, reach: float) -> bool:
    """Whether limit k is near enough to the data (within 1.5x its reach) to draw: a far one
    would squash the data into a corner of the axes."""
    return limits is not None and bool(np.isfinite(limits[k])) and limits[k] <= 1.5 * reach


def plot(result, path: str, fan: str | None = "tau", hist: str | None = "peak",
         time: np.ndarray | None = None, limits: np.ndarray | None = None,
         names: Sequence[str] | None = None, unit: str = "N m", bins: int = 60) -> str:
    """Write a figure of ``result`` (a fastdyn.study.StudyResult) to ``path``: per component k,
    a fan chart of output ``fan`` (n, T, K) along ``time`` (T,) (default: the index) and a
    histogram of output ``hist`` (n, K), with ``limits`` (K,) drawn as dashed lines where they
    are near the data (e.g. the joints' effort limits; the histogram says the share above).
    ``names`` label the rows. Returns ``path``."""
    plt = _pyplot()
    F = None if fan is None else result[fan]
    H = None if hist is None else result[hist]
    for name, x, nd in ((fan, F, 3), (hist, H, 2)):
        if x is not None and x.ndim != nd:
            raise ValueError(f"plot: output {name!r} has shape {x.shape}; a "
                             f"{'fan chart needs (n, T, K)' if nd == 3 else 'histogram (n, K)'}")
    if F is None and H is None:
        raise ValueError("plot: nothing to draw (fan and hist are both None)")
    K = (F if F is not None else H).shape[-1]
    cols = (F is not None) + (H is not None)
    fig, axes = plt.subplots(K, cols, figsize=(5.0 * cols, 1.9 * K + 0.6), squeeze=False)
    x = np.arange(F.shape[1]) if F is not None and time is None else time
    for k in range(K):
        label = names[k] if names is not None else f"{k}"
        c = 0
        if F is not None:
            ax = axes[k, c]
            qs = result.quantiles[fan][:, :, k]
            fan_chart(ax, x, qs, result.levels)
            if _in_view(limits, k, np.abs(qs).max()):
                for s in (-1, 1):
                    ax.axhline(s * limits[k], color="k", ls="--", lw=0.8)
            ax.set_ylabel(f"{label}\n[{unit}]", fontsize=8)
            if k == 0:
                ax.set_title(f"{fan} over the {result.n:,} samples", fontsize=9)
                ax.legend(fontsize=7, loc="upper right")
            if k == K - 1:
                ax.set_xlabel("time [s]" if time is not None else "step")
            c += 1
        if H is not None:
            ax = axes[k, c]
            ax.hist(H[:, k], bins=bins, color="C1", alpha=0.8)
            if _in_view(limits, k, H[:, k].max()):
                ax.axvline(limits[k], color="k", ls="--", lw=0.8)
                over = float((H[:, k] > limits[k]).mean())
                ax.text(0.98, 0.9, f"limit {limits[k]:g}: {over:.1%} above", ha="right",
                        va="top", transform=ax.transAxes, fontsize=7)
            elif limits is not None and np.isfinite(limits[k]):
                ax.text(0.98, 0.9, f"limit {limits[k]:g} (off scale)", ha="right", va="top",
                        transform=ax.transAxes, fontsize=7)
            if k == 0:
                ax.set_title(f"{hist}: one value per sample", fontsize=9)
            if k == K - 1:
                ax.set_xlabel(f"[{unit}]")
            if F is None:
                ax.set_ylabel(label, fontsize=8)
    fig.suptitle(f"{result.model_name}: {result.computation}, {result.n:,} samples "
                 f"(seed {result.seed})", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
