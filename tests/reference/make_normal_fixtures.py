#!/usr/bin/env python3
"""The standard normal cdf, survival function and its inverse at 50 significant digits (mpmath), rounded to doubles.

The reference of hfcore's normal_cdf / normal_sf / normal_isf (core/infer, which turn p-values into significances
and back) and of the backends' normal_cdf / normal_ppf ops. The points reach far into the tails, where a naive
1 - cdf loses every digit: x in [-38, 38] and p from 1e-300 to 1 - 1e-16.

Usage: python3 tests/reference/make_normal_fixtures.py   (mpmath 1.3.0; a second run writes the same bytes)
Writes tests/reference/infer/normal.json.
"""
import json
import os

import mpmath

from provenance import HERE, provenance

mpmath.mp.dps = 50


def cdf(x):
    return mpmath.ncdf(mpmath.mpf(x))


def sf(x):
    return mpmath.ncdf(-mpmath.mpf(x))


def isf(p):
    """x with sf(x) = p: bisection on the 50-digit survival function (monotone, no start point to choose)."""
    p = mpmath.mpf(p)
    lo, hi = mpmath.mpf(-40), mpmath.mpf(40)
    for _ in range(240):  # 80 / 2^240: far below a double's resolution
        mid = (lo + hi) / 2
        if sf(mid) > p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def main():
    xs = [i / 8 for i in range(-304, 305)]  # -38 ... 38 in steps of 1/8
    xs += [1e-10, -1e-10, 0.3, -2.7, 5.5e-3]
    ps = [10.0 ** -k for k in range(1, 301)]
    ps += [0.5, 0.45, 0.3, 0.05, 0.025, 0.0227501319481792, 0.00135, 2.87e-7]
    ps += [1 - 10.0 ** -k for k in range(1, 17)] + [0.55, 0.7, 0.95, 0.975, 0.99]
    points_x = [{"x": x, "cdf": float(cdf(x)), "sf": float(sf(x))} for x in xs]
    points_p = [{"p": p, "isf": float(isf(p))} for p in ps]
    for q in points_p:  # the double p itself is the input: check that the root was found for that double
        assert abs(sf(q["isf"]) - q["p"]) <= 1e-12 * q["p"] or abs(q["isf"]) < 1e-8, q
    out = {
        "description": __doc__.strip().splitlines()[0],
        "provenance": provenance("make_normal_fixtures.py", ["mpmath"]),
        "digits": mpmath.mp.dps,
        "x": points_x,
        "p": points_p,
    }
    with open(os.path.join(HERE, "infer", "normal.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
