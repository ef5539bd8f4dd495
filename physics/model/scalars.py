"""Small helpers on plain numbers for the compiled loops: numpy's maximum and minimum as
numba compiles them (NaN wins, and of two equal numbers the first), a clamp, and the
dot and cross products of vectors given as three numbers. Compiled through the one guard
(:mod:`common.compiled`); plain Python without numba. And :func:`float_dot` and
:func:`float_cross`, for Python code on a vector or two at a time.
"""

from __future__ import annotations

from common.compiled import compiled_loop


@compiled_loop
def larger(a, b):
    """The larger of two numbers; NaN if either is (as numpy's maximum)."""
    return a if (a >= b or a != a) else b


@compiled_loop
def smaller(a, b):
    """The smaller of two numbers; NaN if either is (as numpy's minimum)."""
    return a if (a <= b or a != a) else b


@compiled_loop
def clamp(value, low, high):
    return smaller(larger(value, low), high)


@compiled_loop
def dot(ax, ay, az, bx, by, bz):
    return (ax * bx + ay * by) + az * bz


@compiled_loop
def cross(ax, ay, az, bx, by, bz):
    return ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx


def float_dot(a, b) -> float:
    """The dot product of two 3-vectors of plain floats (lists, tuples), summed in numpy's
    order (its vector dot gives these very bits): for Python code on a vector or two, where
    numpy's calls cost more than the arithmetic and a compiled call more than both."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def float_cross(ax: float, ay: float, az: float, bx: float, by: float, bz: float
                ) -> tuple[float, float, float]:
    """The cross product of two 3-vectors of plain floats, each term as numpy's cross
    makes it (these very bits): :func:`cross` for Python code, which a compiled call costs
    more than the arithmetic."""
    return ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx
