"""sin and cos of one angle together, without a call: the joint angle of every revolute joint in
the generated kernels (fastdyn.codegen).

glibc's sincos is accurate and fast (about 14 ns a pair in a loop), but it is a call: every
floating-point register is caller-saved on x86-64, so in a generated kernel's straight-line code
a call also spills and reloads what is live around it, and the compiler cannot interleave the
polynomial with the rest. With this function instead (LLVM inlines it), the generated ABA ran
15 % faster on Talos (2.7 -> 2.3 us) and 7 % on Solo12 (0.76 -> 0.71 us). The generic kernels
keep math.sin / math.cos: there, in a loop over joints with few live values, the call costs
little, and this function measured within noise (Solo12's ABA a little faster, Talos's RNEA
and CRBA a little slower).

Method (the textbook one: Muller, "Elementary Functions", 3rd ed. 2016, ch. 11 and 4):
- Reduction by Cody and Waite: k = round(x 2/pi), r = x - k pi/2 with pi/2 = P1 + P2 + P3,
  P1 and P2 holding 33 significant bits each, so k P1 and k P2 are exact for |k| < 2^20 and
  the two subtractions lose nothing: |r| <= pi/4 (+ an ulp), exact to about 2^-100 relative
  to pi/2.
- Polynomials on |r| <= pi/4: the Taylor series of sin to r^19 and of cos to r^18 (the
  first omitted terms are below 2^-66 and 2^-60 of the result), evaluated by Horner in r^2.
- Quadrant: (sin x, cos x) = (s, c), (c, -s), (-s, -c), (-c, s) for k mod 4 = 0, 1, 2, 3.
- |x| >= LIMIT, inf and NaN go to math.sin / math.cos (NaN in, NaN out).
Measured against long-double sin / cos (tests/test_sincos.py): within 1.6 ulp of the result
for |x| < 100 and 2.3 ulp for |x| < LIMIT, and within one ulp of 1 in absolute terms (what a
rotation matrix's entries see); glibc's are within 0.52 ulp.
"""

from math import cos, sin

from .._jit import jit

LIMIT = 1.0e5  # |x| below which the reduction is exact (|k| < 2^16 << 2^20)
TWO_OVER_PI = 0.6366197723675814
# pi/2 = P1 + P2 + P3; P1, P2: 33 significant bits (k P1, k P2 exact for |k| < 2^20)
P1 = 1.5707963267341256
P2 = 6.077100506303966e-11
P3 = 2.0222662487959506e-21
# Taylor coefficients (-1)^n / (2n+1)! and (-1)^n / (2n)!
S3, S5, S7, S9 = -1.0 / 6.0, 1.0 / 120.0, -1.0 / 5040.0, 1.0 / 362880.0
S11, S13, S15, S17, S19 = (-1.0 / 39916800.0, 1.0 / 6227020800.0, -1.0 / 1307674368000.0,
                           1.0 / 355687428096000.0, -1.0 / 121645100408832000.0)
C4, C6, C8, C10 = 1.0 / 24.0, -1.0 / 720.0, 1.0 / 40320.0, -1.0 / 3628800.0
C12, C14, C16, C18 = (1.0 / 479001600.0, -1.0 / 87178291200.0, 1.0 / 20922789888000.0,
                      -1.0 / 6402373705728000.0)


@jit
def sincos(x):
    """(sin x, cos x), inline polynomials for |x| < LIMIT (module docstring)."""
    if not abs(x) < LIMIT:  # large, inf or NaN: the library's
        return sin(x), cos(x)
    k = float(round(x * TWO_OVER_PI))
    r = ((x - k * P1) - k * P2) - k * P3
    z = r * r
    ps = S13 + z * (S15 + z * (S17 + z * S19))
    ps = S5 + z * (S7 + z * (S9 + z * (S11 + z * ps)))
    s = r + r * z * (S3 + z * ps)
    pc = C12 + z * (C14 + z * (C16 + z * C18))
    pc = C4 + z * (C6 + z * (C8 + z * (C10 + z * pc)))
    c = 1.0 - 0.5 * z + z * z * pc
    n = int(k) & 3
    a = c if n & 1 else s  # selects, not branches: a random angle's quadrant is unpredictable
    b = s if n & 1 else c
    return (a if n < 2 else -a), (b if (n + 1) & 2 == 0 else -b)
