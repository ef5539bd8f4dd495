"""The anchor kernel against the vectorised numpy model it replaced (tests/anchor_reference.py),
for every kind of ground and every kind of vehicle; its plain-Python form (no numba)
against its compiled one; and a game without numba.

The stated tolerance: every impulse, stretch and report field agrees with the reference
to 1e-9 relative (1e-9 absolute near zero). The two compute the same operations in the
same order, so on most machines they agree to the last bit; numpy's vectorised sin,
cos and exp may differ from the C library's in the last bit on some processors.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest

from physics.model.anchor_model import AnchorModel
from physics.model.anchors import (AnchorCommand, AnchorReport, BodyStates, GroundHits,
                                   derive_constants)
from physics.model.pose import rotation_matrix
from physics.model.terrain import MapChoice, build_terrain
from tests import anchor_reference as reference

SUBSTEP_S = 1.0 / 120.0
TOLERANCE = {"rtol": 1e-9, "atol": 1e-9}
REPORT_FIELDS = [field.name for field in dataclasses.fields(AnchorReport)]


class MovingPlane:
    """Flat ground at ``height_m`` moving with ``velocity_ws``, of a surface's grip and
    rolling resistance: a crate or a hull under the anchors. Answers both the kernel's
    query (with anchor indices) and the reference's."""

    def __init__(self, height_m, velocity_ws, grip=0.9, rolling=0.02):
        self.height_m, self.velocity_ws = height_m, np.asarray(velocity_ws, float)
        self.grip, self.rolling = grip, rolling

    def cast(self, origins_ws, directions_ws, length_m, min_ground_up, rays=None):
        down = -directions_ws[:, 2]
        distance = (origins_ws[:, 2] - self.height_m) / np.maximum(down, 1e-9)
        count = len(origins_ws)
        return GroundHits((distance <= length_m) & (down >= min_ground_up), distance,
                          origins_ws + distance[:, None] * directions_ws,
                          np.tile([0.0, 0.0, 1.0], (count, 1)),
                          np.tile(self.velocity_ws, (count, 1)),
                          np.full(count, self.grip), np.full(count, self.rolling))


class Mixed:
    """The reference's ground for a substep with some rays cast beforehand: the terrain
    for every ray, replaced by ``exact``'s hits where ``mask`` is set and the terrain is
    missed or farther (``chosen`` counts, per ray, how often the exact hit was taken)."""

    def __init__(self, terrain_ground, exact, mask):
        self.terrain_ground, self.exact, self.mask = terrain_ground, exact, mask
        self.chosen = {True: 0, False: 0}

    def cast(self, origins_ws, directions_ws, length_m, min_ground_up):
        hits = self.terrain_ground.cast(origins_ws, directions_ws, length_m, min_ground_up)
        rays = np.flatnonzero(self.mask)
        exact = self.exact.cast(origins_ws[rays], directions_ws[rays], length_m,
                                min_ground_up)
        taken = ~hits.hit[rays] | (exact.hit & (exact.distance_m < hits.distance_m[rays]))
        both = hits.hit[rays] & exact.hit
        self.chosen[True] += int(np.count_nonzero(taken & both))
        self.chosen[False] += int(np.count_nonzero(~taken & both))
        for field in dataclasses.fields(GroundHits):
            getattr(hits, field.name)[rays[taken]] = getattr(exact, field.name)[taken]
        return hits


def random_states(rng, terrain, vehicles: int, lift=(0.3, 1.2)) -> BodyStates:
    """Hulls over the ground at about ride height, tilted, moving and spinning."""
    xy = rng.uniform(-200.0, 200.0, (vehicles, 2))
    ground = terrain.height_at(xy[:, 0], xy[:, 1]) if terrain is not None else 0.0
    heights = ground + rng.uniform(*lift, vehicles)
    quaternions = rng.normal(0.0, 1.0, (vehicles, 4)) * (1.0, 0.1, 0.1, 1.0)
    quaternions /= np.linalg.norm(quaternions, axis=1, keepdims=True)
    axes = np.array([rotation_matrix(quaternion).T for quaternion in quaternions])
    return BodyStates(np.column_stack([xy, heights]), axes,
                      rng.normal(0.0, 5.0, (vehicles, 3)), rng.normal(0.0, 0.5, (vehicles, 3)))


def random_command(rng, shape, steer: bool) -> AnchorCommand:
    """Belt or rim speeds and force limits, a third of the anchors undriven (coasting)."""
    limit_n = np.where(rng.random(shape) < 1.0 / 3.0, 0.0, rng.uniform(0.0, 5e4, shape))
    return AnchorCommand(rng.normal(0.0, 3.0, shape), limit_n,
                         rng.uniform(-0.5, 0.5, shape) if steer else np.zeros(shape),
                         rng.uniform(0.5, 1.0, shape))


def models(spec, config, vehicles: int):
    """The kernel's model and the reference's, for one vehicle kind, at rest."""
    constants = derive_constants(spec.suspension, spec.grip, spec.hull.mass_kg,
                                 config.game.simulation.gravity_m_s2, tracked=spec.tracked)
    slip = getattr(spec, "tyres", "grip") == "slip"
    spin = getattr(spec, "wheel_spin", None)
    ours = AnchorModel(constants, spec.grip, spec.slip_tyres if slip else None, spin)
    theirs = (reference.SlipTyreModel(constants, spec.grip, spec.slip_tyres, spin) if slip
              else reference.AnchorModel(constants, spec.grip, spin))
    for model in (ours, theirs):
        model.resize(vehicles)
    return ours, theirs


def assert_same(ours_impulses, theirs_impulses, ours, theirs) -> None:
    for name in ("linear_ws", "angular_ws", "anchor_ws"):
        np.testing.assert_allclose(getattr(ours_impulses, name),
                                   getattr(theirs_impulses, name), **TOLERANCE, err_msg=name)
    np.testing.assert_allclose(ours.deflection_m, theirs.deflection_m, **TOLERANCE)
    np.testing.assert_allclose(ours.spin_speed_rad_s, theirs.spin_speed_rad_s, **TOLERANCE)
    np.testing.assert_allclose(ours.spin_angle_rad, theirs.spin_angle_rad, **TOLERANCE)
    for name in REPORT_FIELDS:
        np.testing.assert_allclose(getattr(ours.report, name), getattr(theirs.report, name),
                                   **TOLERANCE, err_msg=name)


def vehicle_spec(config, kind: str):
    if kind == "tank":
        return config.tank
    return dataclasses.replace(config.car, tyres=kind.split("-")[1])


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["tank", "car-grip", "car-slip"])
@pytest.mark.parametrize("steer", [False, True])
def test_over_the_terrain_cold_and_warm(config, kind, steer):
    """Random hulls and commands over the dunes, for three substeps (the first cold)."""
    terrain = build_terrain(MapChoice.parse("desert"), config.game.terrain, 4)
    rng = np.random.default_rng(11)
    vehicles = 6
    ours, theirs = models(vehicle_spec(config, kind), config, vehicles)
    ground = reference.TerrainGround(terrain)
    for _ in range(3):
        states = random_states(rng, terrain, vehicles)
        command = random_command(rng, (vehicles, ours.anchors), steer)
        expected = theirs.step(states, ground, command, SUBSTEP_S)
        assert_same(ours.step(states, command, SUBSTEP_S, terrain), expected, ours, theirs)
        assert 0 < np.count_nonzero(ours.report.on_ground) < vehicles * ours.anchors
        assert np.count_nonzero(ours.report.sliding) > 0


@pytest.mark.parametrize("kind", ["tank", "car-grip", "car-slip"])
def test_on_moving_ground_cast_beforehand(config, kind):
    """Every ray cast by a query: a plane moving under the vehicles (a crate, a hull)."""
    rng = np.random.default_rng(5)
    vehicles = 5
    ours, theirs = models(vehicle_spec(config, kind), config, vehicles)
    plane = MovingPlane(0.0, (0.4, -1.5, 0.1))
    for _ in range(3):
        states = random_states(rng, None, vehicles, lift=(0.4, 0.9))
        command = random_command(rng, (vehicles, ours.anchors), steer=True)
        expected = theirs.step(states, plane, command, SUBSTEP_S)
        assert_same(ours.step(states, command, SUBSTEP_S, query=plane), expected, ours, theirs)
        assert np.count_nonzero(ours.report.on_ground)


def test_terrain_and_rays_cast_beforehand_together_the_nearer_kept(config):
    """Some vehicles' rays through a query (near a rock) as well as on the terrain, the
    others' on the terrain only: where both meet ground the nearer is kept, the body's
    (a plane above the dunes) or the terrain's (the plane buried under them)."""
    terrain = build_terrain(MapChoice.parse("desert"), config.game.terrain, 4)
    rng = np.random.default_rng(8)
    vehicles = 6
    ours, theirs = models(config.tank, config, vehicles)
    near = np.repeat(np.arange(vehicles) % 2 == 0, ours.anchors)
    terrain_ground = reference.TerrainGround(terrain)
    chosen = {True: 0, False: 0}
    for _ in range(3):
        states = random_states(rng, terrain, vehicles)
        plane = MovingPlane(float(states.position_ws[0, 2]) - 0.8, (1.0, 0.0, 0.0))
        command = random_command(rng, (vehicles, ours.anchors), steer=False)
        mixed = Mixed(terrain_ground, plane, near)
        expected = theirs.step(states, mixed, command, SUBSTEP_S)
        impulses = ours.step(states, command, SUBSTEP_S, terrain, plane, near)
        assert_same(impulses, expected, ours, theirs)
        chosen[True] += mixed.chosen[True]
        chosen[False] += mixed.chosen[False]
    assert chosen[True] > 0 and chosen[False] > 0


def test_relaxing_a_vehicle_forgets_its_stretch_and_spin(config):
    rng = np.random.default_rng(2)
    ours, _ = models(vehicle_spec(config, "car-grip"), config, 3)
    ours.step(random_states(rng, None, 3, lift=(0.4, 0.6)),
              random_command(rng, (3, ours.anchors), True), SUBSTEP_S,
              query=MovingPlane(0.0, (0.0, 0.0, 0.0)))
    assert np.count_nonzero(ours.deflection_m[1])
    assert np.count_nonzero(ours.spin_speed_rad_s[1])
    report_spin = ours.report.spin_speed_rad_s.copy()
    ours.relax(1)
    assert not np.count_nonzero(ours.deflection_m[1])
    assert not np.count_nonzero(ours.spin_speed_rad_s[1])
    assert np.count_nonzero(ours.deflection_m[0]) and np.count_nonzero(ours.spin_speed_rad_s[0])
    np.testing.assert_array_equal(ours.report.spin_speed_rad_s, report_spin)  # as it was


@pytest.mark.parametrize("kind", ["tank", "car-grip", "car-slip"])
def test_the_kernel_says_whether_every_summed_impulse_is_finite(config, kind):
    """The fleet hands the sums to Bullet unlooked-at when the kernel says all are finite:
    a vehicle handed a NaN gets non-finite sums and the kernel says so; the others' stay
    finite."""
    rng = np.random.default_rng(4)
    terrain = build_terrain(MapChoice.parse("desert"), config.game.terrain, 4)
    ours, _ = models(vehicle_spec(config, kind), config, 3)
    states = random_states(rng, terrain, 3)
    command = random_command(rng, (3, ours.anchors), True)
    impulses = ours.step(states, command, SUBSTEP_S, terrain)
    assert impulses.finite is True
    assert np.isfinite(impulses.linear_ws).all() and np.isfinite(impulses.angular_ws).all()
    states.velocity_ws[1, 0] = np.nan
    impulses = ours.step(states, command, SUBSTEP_S, terrain)
    assert impulses.finite is False
    sums = np.hstack([impulses.linear_ws, impulses.angular_ws])
    assert not np.isfinite(sums[1]).all()
    assert np.isfinite(sums[[0, 2]]).all()


PLAIN_PYTHON_RUN = """
import json, sys
sys.modules['numba'] = None
import numpy as np
from common import compiled
assert not compiled.AVAILABLE
from tests.test_anchor_kernel import substeps_of_every_kind
print(json.dumps(substeps_of_every_kind()))
"""


def substeps_of_every_kind() -> dict[str, list]:
    """Impulses and reports of a few substeps of tanks and cars (both tyres), over the
    terrain and on ground cast beforehand: what the plain-Python and the compiled kernel
    are compared on."""
    from game.config import load_config
    config = load_config()
    terrain = build_terrain(MapChoice.parse("desert"), config.game.terrain, 4)
    out = {}
    for kind in ("tank", "car-grip", "car-slip"):
        rng = np.random.default_rng(3)
        ours, _ = models(vehicle_spec(config, kind), config, 4)
        near = np.repeat(np.array([True, False, False, True]), ours.anchors)
        for substep in range(3):
            states = random_states(rng, terrain, 4)
            plane = MovingPlane(float(states.position_ws[0, 2]) - 0.8, (0.5, 0.2, 0.0))
            impulses = ours.step(states, random_command(rng, (4, ours.anchors), True),
                                 SUBSTEP_S, terrain, plane, near)
            out[f"{kind}-{substep}"] = [impulses.linear_ws.tolist(),
                                        impulses.angular_ws.tolist(),
                                        ours.report.load_n.tolist(),
                                        ours.report.spin_speed_rad_s.tolist(),
                                        [impulses.finite]]
    return out


def test_the_plain_python_kernel_gives_the_compiled_numbers(repo_root):
    """Without numba the same functions run as plain Python: the same numbers to 1e-9
    (Python's math.hypot may differ from the C library's in the last bit)."""
    done = subprocess.run([sys.executable, "-c", PLAIN_PYTHON_RUN], cwd=repo_root,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    plain = json.loads(done.stdout)
    compiled_run = substeps_of_every_kind()
    assert plain.keys() == compiled_run.keys()
    for key, values in compiled_run.items():
        for ours, theirs in zip(plain[key], values):
            np.testing.assert_allclose(ours, theirs, **TOLERANCE, err_msg=key)


def test_without_numba_the_game_runs_on_the_plain_loops(repo_root):
    """A platform numba does not support: everything falls back and a battle still runs."""
    script = ("import sys; sys.modules['numba'] = None\n"
              "from game.config import load_config\n"
              "from bench.soak import random_battle\n"
              "from common import compiled\n"
              "assert not compiled.AVAILABLE\n"
              "loop = random_battle(load_config(), 3, 2)\n"
              "simulation = loop.simulation\n"
              "loop.run(120)\n"
              "assert all(vehicle.current.position_ws[2] > -100.0\n"
              "           for vehicle in simulation.vehicles)\n"
              "print('ran', len(simulation.vehicles), 'vehicles')\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=repo_root, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "ran 4 vehicles" in done.stdout
