"""The layout of the anchor kernel's arrays (:mod:`physics.model.anchor_kernel`): the
columns of its per-anchor constants, the entries of a vehicle kind's constants, the rows of
the hits cast beforehand and of the per-anchor results; and the few conventions its stages
share. Plain numbers, so that the stages in other modules and the model that fills the
tables read the same layout."""

from __future__ import annotations

import math

TAU = 2.0 * math.pi
PARALLEL_COSINE = 1e-6
"""Below this, a ray runs along (or away from) the terrain's face: no meeting point."""
SLIP_REFERENCE_SPEED_MPS = 0.5
"""Slip ratio and angle divide by the ground speed; below walking pace they would blow up,
so the division uses at least this speed (a convention of the reports and the tyre
curve, not tuning)."""
SPIN_DERIVATIVE_STEP_RAD_S = 1e-3
"""The spin change a slip tyre's force is measured over, to integrate the spin implicitly."""
TINY = 2.2250738585072014e-308
"""The smallest normal float: keeps a division by a length that may be zero finite."""

# Columns of the per-anchor constants table (A, ANCHOR_COLUMNS).
(X, Y, Z, MASS, STIFFNESS, DAMPING, BUMP_STIFFNESS, BUMP_DAMPING, GRIP_STIFFNESS,
 GRIP_DAMPING, PATCH, NEGATIVE_COMPLIANCE, STATIC_LOAD, DRIVE_SHARE, SIDE,
 ANCHOR_COLUMNS) = range(16)
"""``DRIVE_SHARE``: the anchor's share of the engine's drive (0 where undriven; the shares
sum to 1); ``SIDE``: + 1 on the left track, - 1 on the right, 0 for wheels."""

# Entries of the vehicle kind's constants (MODEL_ENTRIES,).
(RAY_LENGTH, TRAVEL, MIN_GROUND_UP, GRIP, SLIDING_GRIP, ROLLING, WHEEL_RADIUS, TYRE,
 WHEEL_INERTIA, BEARING_DRAG, PEAK_SLIP_RATIO, PEAK_ANGLE_TAN, SLIDING_SHARE, LOAD_SENSITIVITY,
 GRIP_MODEL_BELOW_MPS, MODEL_ENTRIES) = range(16)
NO_WHEELS, GRIP_TYRES, SLIP_TYRES = 0.0, 1.0, 2.0
"""The ``TYRE`` entry: tracks, wheels with the friction-circle grip, wheels with slip tyres."""

# Columns of the per-vehicle driveline sums (V, DRIVELINE_COLUMNS) the kernel writes for the
# engine: the driven anchors' rim speed (a wheel's spin times its radius; a track's belt speed:
# its ground speed while it grips, its commanded speed while it slides or is in the air),
# averaged by drive share; the share of them that grip (on the ground, not sliding); the
# force the others pass along their headings; half the left and right tracks' speed
# difference; the drive the gripping ones passed (their force along, less the rolling
# resistance); and how much the others' force grows per m/s of rim speed (slip tyres on their
# curve; N s/m); and the share of them on the ground. Slip tyres on their curve count as not
# gripping: the curve, not the car's mass, is what the engine drives against.
(DRIVELINE_RIM, DRIVELINE_GRIPPING, DRIVELINE_FREE_LOAD, DRIVELINE_STEER, DRIVELINE_DRIVE,
 DRIVELINE_STIFFNESS, DRIVELINE_GROUNDED, DRIVELINE_COLUMNS) = range(8)

# Rows of the hits cast beforehand, (EXACT_ROWS, N): flags as 0 or 1, vectors as three rows.
(EXACT_HIT, EXACT_DISTANCE, EXACT_POINT, EXACT_NORMAL, EXACT_GROUND_VELOCITY,
 EXACT_GRIP, EXACT_ROLLING, EXACT_ROWS) = (0, 1, 2, 5, 8, 11, 12, 13)

# Rows of the per-anchor results, (RESULT_ROWS, N): flags as 0 or 1, vectors as three rows.
(HIT, COMPRESSION, LOAD, SLIDING, POINT, NORMAL, ORIGIN, DOWN, ALONG, ACROSS, SPIN,
 SPIN_ANGLE, RESULT_ROWS) = (0, 1, 2, 3, 4, 7, 10, 13, 16, 17, 18, 19, 20)
