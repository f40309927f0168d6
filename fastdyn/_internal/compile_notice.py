"""Nothing compiles in silence: a first call that compiles for more than ``AFTER`` seconds says
what it is compiling, and about how long that takes, once, on stderr.

numba compiles a kernel on its first call with a given set of argument types and caches the
machine code on disk (kernels/_jit.py), so later processes load it in milliseconds. The first
call on a new machine, or after an upgrade, can take from seconds to over a minute for the
simulator's kernels, and a user who sees nothing for that long assumes a hang. numba announces
each compilation as a ``"numba:compile"`` event (numba.core.event, numba's documented event
API); this listener times the outermost one of each burst and, if it is still running after
``AFTER`` seconds, logs one line through the ``fastdyn.compile`` logger at WARNING, which
Python prints on stderr when the program configured no logging. When it ends, one line at INFO
says how long it took. Silence it with
``logging.getLogger("fastdyn.compile").setLevel(logging.ERROR)``, or pay the compilation ahead
of time with ``fastdyn compile``.

Only fastdyn's own kernels are announced (their module starts with ``fastdyn``: the library's
and the generated ones); a user's ``@njit`` function, even one that calls fastdyn's kernels,
is the user's to time.
"""

from __future__ import annotations

import logging
import sys
import threading
import time

from numba.core import event

log = logging.getLogger("fastdyn.compile")

AFTER = 2.0  # seconds of silence before a compilation is announced

# Measured first uses with empty caches on the project's reference machine (2 cores): the
# whole call's compilations, by the user's call (the figure quoted as "about"; bench/test_cold.py,
# the bundled quadruped standing on four foot spheres, each call the first of its process).
# A call not listed gets the general range.
EXPECTED: dict[str, float] = {
    "fastdyn.sim.one_step.step": 57.0,  # (Scene.step)
    "fastdyn.sim.step_derivatives.step_derivatives": 109.0,  # (Scene.step_derivatives)
    "fastdyn.sim.scene.Scene.rollout": 68.0,
}


QUIET = 5.0  # compilations starting this soon after the last one ended are one burst


def _label(dispatcher) -> str:
    f = dispatcher.py_func
    return f"{f.__module__}.{f.__qualname__}"


def _entry(frame) -> str | None:
    """The outermost fastdyn function on the stack (the call the user made), or None."""
    found = None
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.startswith("fastdyn"):
            code = frame.f_code
            found = f"{module}.{getattr(code, 'co_qualname', code.co_name)}"
        elif not module.startswith("numba") and found is not None:
            break  # the user's code: the fastdyn frame below it is their call
        frame = frame.f_back
    return found


def _estimate(entry: str | None) -> str:
    seconds = EXPECTED.get(entry or "")
    if seconds is None:
        return "seconds to a minute or two, depending on the call and the machine"
    return (f"about {seconds:.0f} s on a 2-core machine for a legged robot on the ground; "
            "longer with collision geoms or constraints, shorter when an earlier call "
            "compiled the kernels they share")


class _Notice(event.Listener):
    """Times the outermost ``numba:compile`` event of each thread (numba compiles nested
    callees inside it, under its global compiler lock). The compilations of one call (the same
    outermost fastdyn function on the stack, each starting within ``QUIET`` seconds of the
    previous one's end) are announced once at WARNING; its later kernels are logged at INFO."""

    def __init__(self):
        self._local = threading.local()
        self._lock = threading.Lock()
        self._last_end = -float("inf")
        self._burst = None  # the call whose compilations were announced last
        self.announced: list[str] = []  # the kernels announced at WARNING, in order

    def on_start(self, ev):
        st = self._local
        st.depth = getattr(st, "depth", 0) + 1
        if st.depth != 1:
            return
        label = _label(ev.data["dispatcher"])
        st.label, st.start, st.timer, st.said = label, time.perf_counter(), None, False
        if not label.startswith("fastdyn"):
            return
        entry = _entry(sys._getframe(1))
        with self._lock:
            if entry != self._burst or st.start - self._last_end >= QUIET:
                self._burst = None  # another call, or the same one made again later
        st.timer = threading.Timer(AFTER, self._announce, (st, label, entry))
        st.timer.daemon = True  # never keeps an interpreter alive
        st.timer.start()

    def on_end(self, ev):
        st = self._local
        st.depth -= 1
        if st.depth:
            return
        with self._lock:
            self._last_end = time.perf_counter()
        if st.timer is not None:
            st.timer.cancel()
            if st.said:
                log.info("fastdyn: compiled %s in %.1f s", st.label,
                         time.perf_counter() - st.start)

    def _announce(self, st, label: str, entry: str | None) -> None:
        with self._lock:
            first = self._burst != entry
            self._burst = entry
        st.said = True
        if not first:
            log.info("fastdyn: compiling %s as well", label)
            return
        self.announced.append(label)
        # (the call, not the kernel: the first kernel of a call to take long is often a small
        # one, e.g. Scene.rollout's contact weights before its minute-long rollout loop)
        what = f"the first call of {entry} compiles its kernels, from" if entry else "compiling"
        log.warning("fastdyn: %s %s (%s; once: the machine code is then cached on disk and "
                    "later runs load it in well under a second; `fastdyn compile` pays this "
                    "ahead of time)", what, label, _estimate(entry))


NOTICE = _Notice()
event.register("numba:compile", NOTICE)  # once: this module is imported once per process
