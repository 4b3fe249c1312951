#!/usr/bin/env python3
# The rational approximation of erf in src/kernels/activation.cpp (GELU's kernel):
#   erf(t) ~ t P(t^2) / Q(t^2) on [0, 3.9], P = p0 + ... + p5 u^5, Q = 1 + q1 u + ... + q5 u^5.
# A weighted linear least-squares fit of t P - erf Q in 40-digit arithmetic (mpmath), iterated:
# first reweighted by 1 / Q^2 (Sanathanan-Koerner: the linearised error becomes the true one), then
# by the error itself (Lawson: towards the minimax error). Prints the coefficients, the fit's
# largest error in exact arithmetic, and the largest error of the float32 evaluation the kernel
# does in wasm (Horner with separate multiplies and adds, t clamped to 3.9, the result to [-1, 1]).
# Usage: python3 scripts/erf-fit.py   (needs mpmath: Debian's python3-mpmath); ~1 minute.
import math
import struct

import mpmath as mp

mp.mp.dps = 40
LIMIT = mp.mpf('3.9')  # erf(3.9) is 1 - 2^-24 in float32 (erfc(3.9) = 3.5e-8), 1 from 3.92
NP, NQ = 6, 5  # P: p0 .. p5; Q: 1, q1 .. q5
M = 600
# Chebyshev points (dense at the ends) and a uniform grid
ts = sorted([LIMIT * (1 - mp.cos(mp.pi * (i + 0.5) / M)) / 2 for i in range(M)] + [LIMIT * i / M for i in range(1, M + 1)])
erfs = [mp.erf(t) for t in ts]


def fit(weights, q_before):
    """min sum w (t P(u) - erf Q(u))^2 / Q_before^2 over p0..p5, q1..q5 (normal equations)."""
    n = NP + NQ
    a, b = mp.zeros(n, n), mp.zeros(n, 1)
    for t, f, w, q in zip(ts, erfs, weights, q_before):
        u = t * t
        row = [t * u**j for j in range(NP)] + [-f * u**j for j in range(1, NQ + 1)]
        s = w / (q * q)
        for i in range(n):
            b[i] += s * row[i] * f
            for j in range(n):
                a[i, j] += s * row[i] * row[j]
    x = mp.lu_solve(a, b)
    return [x[i] for i in range(NP)], [mp.mpf(1)] + [x[NP + i] for i in range(NQ)]


def rational(p, q, t):
    u = t * t
    return t * mp.polyval(p[::-1], u) / mp.polyval(q[::-1], u)


weights, q_before = [mp.mpf(1)] * len(ts), [mp.mpf(1)] * len(ts)
for iteration in range(12):
    p, q = fit(weights, q_before)
    q_before = [mp.polyval(q[::-1], t * t) for t in ts]
    errors = [rational(p, q, t) - f for t, f in zip(ts, erfs)]
    if iteration >= 3:
        weights = [w * abs(e) for w, e in zip(weights, errors)]
        total = sum(weights)
        weights = [w / total * len(weights) for w in weights]
print('largest error of the fit (exact arithmetic):', mp.nstr(max(abs(e) for e in errors), 3))
print('erf_p =', ', '.join(mp.nstr(c, 17) for c in p))
print('erf_q =', ', '.join(mp.nstr(c, 17) for c in q))


def f32(x):
    return struct.unpack('f', struct.pack('f', x))[0]


P, Q, T = [f32(c) for c in p], [f32(c) for c in q], f32(float(LIMIT))


def erf32(t):
    t = min(max(f32(t), -T), T)
    u = f32(t * t)
    pv, qv = P[5], Q[5]
    for i in range(4, -1, -1):
        pv, qv = f32(f32(pv * u) + P[i]), f32(f32(qv * u) + Q[i])
    return min(max(f32(f32(t * pv) / qv), -1.0), 1.0)


# every float32 in [2.5, 4) (where the error is largest: near 1 the roundings of p, q and p / q add
# up), and a grid over [0, 2.5)
def floats(lo, hi):
    bits, end = struct.unpack('I', struct.pack('f', lo))[0], struct.unpack('I', struct.pack('f', hi))[0]
    for b in range(bits, end):
        yield struct.unpack('f', struct.pack('I', b))[0]


grid = (f32(i * 2.5 / 200000) for i in range(200000))
worst, at = 0.0, 0.0
for ts_ in (grid, floats(2.5, 4.0)):
    for t in ts_:
        e = abs(erf32(t) - math.erf(t))
        if e > worst:
            worst, at = e, t
print(f'largest error in float32 over [0, 4): {worst:.3g} ({worst / 2**-23:.2f} ulp of 1) at t = {at!r}')
