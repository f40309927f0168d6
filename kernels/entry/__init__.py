"""Entry points into the kernels: checked single calls (guards that turn NaN, overflow and bad
sizes into a code), batch launchers over states and robots (numba.prange), the simulator's
rollout loop, and whole control ticks (all terms, computed torque, a forward step)."""
