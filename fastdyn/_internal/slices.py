"""Long computations in short slices, so that Ctrl-C stops them promptly, with a progress bar.

Python delivers Ctrl-C (SIGINT) as a KeyboardInterrupt only between bytecodes of the main
thread: while a compiled kernel runs, the signal waits. A long batch is therefore launched in
slices of about ``SLICE_SECONDS`` each (the next slice's size follows the last one's speed),
and Ctrl-C waits for at most one slice. ``fastdyn.Scene.rollout`` slices steps this way,
``fastdyn.study.run`` samples.
"""

from __future__ import annotations

import sys
from typing import Callable

SLICE_SECONDS = 0.05  # a batch is launched in slices this long: Ctrl-C waits at most one


def next_span(span: int, elapsed: float) -> int:
    """The size of the next slice, after one of ``span`` units took ``elapsed`` seconds:
    about SLICE_SECONDS of work, growing at most 4x + 8 a slice (the first slice may include
    a compile, which would make the next one far too small if trusted)."""
    return int(min(max(1, span * SLICE_SECONDS / max(elapsed, 1e-9)), 4 * span + 8))


def progress(total: int, unit: str = "step") -> Callable:
    """A progress callback ``update(k, done=False)``: tqdm's bar when installed, else a
    line on stderr."""
    try:
        from tqdm import tqdm
        bar = tqdm(total=total, unit=unit)

        def update(k: int, done: bool = False) -> None:
            bar.update(k)
            if done:
                bar.close()
        return update
    except ImportError:
        count = [0]

        def update(k: int, done: bool = False) -> None:
            count[0] += k
            sys.stderr.write(f"\r{100 * count[0] / max(total, 1):5.1f} % of {total} {unit}s"
                             + ("\n" if done else ""))
        return update
