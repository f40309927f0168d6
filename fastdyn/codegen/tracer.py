"""A tiny tracer that writes straight-line Python for one robot.

A generator "runs" an algorithm once, at generation time, on symbolic scalars: a value is either
a Python float (a constant of the model: a placement entry, a mass, an axis component) or the
name of a local variable of the generated function. Every sum of products folds its constants,
drops zero terms and unit factors, and emits one assignment for what is left. What remains is
exactly the arithmetic that depends on q, v, a for this model: the joint loop unrolled, the
joint types resolved, and most of the multiplications by the 0s and 1s of axis-aligned joints
and identity placements gone (the issue's "per-model generated code, constants baked in").

Floating point: a folded constant is computed in Python double precision, the same arithmetic
the kernel would do at run time, but sums may be associated differently from the generic
kernels; results agree to rounding, not bit for bit (the tests compare at 1e-12).
"""

from __future__ import annotations

Value = "float | str"


class Tracer:
    """Collects the body of one generated function."""

    def __init__(self, indent: str = "    "):
        self.lines: list[str] = []
        self.indent = indent
        self._count = 0

    def assign(self, expr: str, prefix: str = "t") -> str:
        name = f"{prefix}{self._count}"
        self._count += 1
        self.lines.append(f"{self.indent}{name} = {expr}")
        return name

    def line(self, text: str) -> None:
        self.lines.append(self.indent + text)

    def sop(self, terms, const: float = 0.0):
        """sum over terms of c * x1 * x2 ..., each term a tuple (c, x1, x2, ...) of floats and
        names. Returns a float when everything folds, a name otherwise."""
        parts: list[tuple[float, list[str]]] = []
        for c, *factors in terms:
            names = []
            for f in factors:
                if isinstance(f, str):
                    names.append(f)
                else:
                    c *= f
            if c == 0.0:
                continue
            if names:
                parts.append((c, names))
            else:
                const += c
        if not parts:
            return const
        if const == 0.0 and len(parts) == 1 and parts[0][0] == 1.0 and len(parts[0][1]) == 1:
            return parts[0][1][0]
        out = []
        for k, (c, names) in enumerate(parts):
            prod = "*".join(names)
            neg = c < 0.0
            mag = -c if neg else c
            body = prod if mag == 1.0 else f"{mag!r}*{prod}"
            if k == 0:
                out.append(("-" if neg else "") + body)
            else:
                out.append((" - " if neg else " + ") + body)
        if const != 0.0:
            out.append((" - " if const < 0.0 else " + ") + repr(abs(const)))
        return self.assign("".join(out))

    # -- small vector algebra on 3-lists and 3x3 row-major lists of lists ----------------------
    def add(self, a, b):
        return [self.sop([(1.0, x), (1.0, y)]) for x, y in zip(a, b)]

    def sub(self, a, b):
        return [self.sop([(1.0, x), (-1.0, y)]) for x, y in zip(a, b)]

    def scale(self, s, a):
        return [self.sop([(1.0, s, x)]) for x in a]

    def cross(self, a, b):
        return [self.sop([(1.0, a[1], b[2]), (-1.0, a[2], b[1])]),
                self.sop([(1.0, a[2], b[0]), (-1.0, a[0], b[2])]),
                self.sop([(1.0, a[0], b[1]), (-1.0, a[1], b[0])])]

    def dot(self, a, b):
        return self.sop([(1.0, x, y) for x, y in zip(a, b)])

    def matvec(self, R, x):
        return [self.sop([(1.0, R[r][k], x[k]) for k in range(3)]) for r in range(3)]

    def mattvec(self, R, x):
        """R^T x."""
        return [self.sop([(1.0, R[k][r], x[k]) for k in range(3)]) for r in range(3)]

    def matmul(self, A, B):
        return [[self.sop([(1.0, A[r][k], B[k][c]) for k in range(3)]) for c in range(3)]
                for r in range(3)]

    def mattmul(self, A, B):
        """A^T B."""
        return [[self.sop([(1.0, A[k][r], B[k][c]) for k in range(3)]) for c in range(3)]
                for r in range(3)]


def lit(x) -> str:
    """A value as source text."""
    return x if isinstance(x, str) else repr(float(x))


def is_zero(x) -> bool:
    return not isinstance(x, str) and x == 0.0
