"""Our four-anchor tanks against Bullet's C++ ``BulletVehicle``, on the desert map.

Both models drive the same number of 45 t tanks (``config/tank.toml``) on the
same procedural desert heightfield, from the same places, each in its own
Bullet world stepped the same way (:class:`physics.bullet.world.PhysicsWorld`: the
shipped ``simulation.substeps`` Bullet steps per fixed 1/60 s step).

- **ours**: a :class:`physics.bullet.fleet.VehicleFleet` exactly as the game
  runs it, in gear 1 at full throttle with some steer; each fixed step costs the
  gearbox and drive command (``update_drive``) plus the world step, whose
  substep hook gathers poses, finds the ground and applies the anchors' impulses.
- **BulletVehicle**: ``btRaycastVehicle`` with the same hull body (mass, box,
  friction, angular damping), one wheel at each anchor, a ray of the same length,
  and springs and dampers equal to our derived ones (Bullet scales them by the
  chassis mass, so they are given as ``k / M`` and ``c / M``). Its engine force
  and steering are set once: a constant push of ``_BULLET_ACCELERATION_M_S2``,
  with linear damping that makes gear 1's top speed its terminal speed, so no
  Python runs between its steps and its time is Bullet's C++ alone.

Every timed run starts from the same places at rest, on a grid 46 m apart where the map
has room (wider than the circles the tanks drive, so they never meet; 1000 tanks on the
512 m desert stand closer and crowd, ``--map desert:2048`` gives them the room): a
warm-up engages the gear and gets them moving, then the steps are timed one by one.
Every model at every count runs in turns (each repeat times ours and Bullet's at the
first count, then at the next, ...), so all meet the same machine noise, and a model's
time per tank at one count compares fairly with its own at another (``per_tank_growth``,
each model's); each figure is the median over the repeats.
The distance reported is the mean path each vehicle drove in a timed run.
"""

from __future__ import annotations

import gc
import math
import statistics
import time

import numpy as np
from panda3d.bullet import BulletVehicle, ZUp
from panda3d.core import Point3, TransformState, Vec3

from common.spec import KMH_PER_MPS
from game.config import GameConfig
from physics.bullet.bodies import make_hull_body, map_walls, terrain_collider
from physics.bullet.fleet import VehicleFleet
from physics.bullet.poses import ground_aligned_rotation, positions_ws
from physics.bullet.terrain_tiles import StreamedColliders
from physics.bullet.world import PhysicsWorld
from physics.model.anchors import derive_constants
from physics.model.terrain import MapChoice, Terrain, build_terrain
from physics.model.tiled_terrain import TiledTerrain

DEFAULT_COUNTS = (1, 10, 100)
DEFAULT_STEPS = 300
DEFAULT_REPEATS = 5
DEFAULT_WARMUP_STEPS = 60
"""One second: the shift into gear (0.4 s) is done and the tanks are at speed."""
DEFAULT_SEED = 1
DEFAULT_MAP = "desert"

GEAR = "1"
_SPACING_M = 46.0
"""Grid spacing of the start points: wider than the circles the tanks drive, so they never meet."""
_EDGE_MARGIN_M = 50.0
_STEER = (0.3, 0.5)
"""Steer magnitudes, alternating left and right: the tanks drive circles."""
_BULLET_STEER_DEG_PER_UNIT = 50.0
"""BulletVehicle's front wheels turn this many degrees per unit of steer (15-25 degrees)."""
_BULLET_ACCELERATION_M_S2 = 2.0
_BULLET_MAX_LOAD_RATIO = 10.0
"""BulletVehicle caps each wheel's suspension force; ours has no cap, so set it far above the
static load."""


def start_points(count: int, terrain: Terrain) -> list[tuple[float, float, float, float]]:
    """(x, y, heading_deg, steer) per tank: a centred grid, as wide as the map allows."""
    side = math.ceil(math.sqrt(count))
    usable = 2.0 * (min(terrain.half_extent_x_m, terrain.half_extent_y_m) - _EDGE_MARGIN_M)
    spacing = min(_SPACING_M, usable / max(side - 1, 1))
    points = []
    for number in range(count):
        row, column = divmod(number, side)
        x = (column - (side - 1) / 2) * spacing
        y = (row - (side - 1) / 2) * spacing
        steer = _STEER[number % 2] * (1.0 if number % 3 else -1.0)
        points.append((x, y, (number * 47.0) % 360.0, steer))
    return points


def _place_at_start(config: GameConfig, terrain: Terrain, points, bodies) -> None:
    """Each tank upright on the ground at its point, at ride height, still."""
    anchors = config.tank.suspension.anchors
    lift_m = (config.tank.suspension.ride_height_m
              - sum(anchor.z_m for anchor in anchors) / len(anchors))
    for body, (x, y, heading, _) in zip(bodies, points):
        ground_m, normal = terrain.surface_at(x, y)
        position = np.array([x, y, float(ground_m)]) + normal * lift_m
        body.setTransform(TransformState.makePosQuatScale(
            Point3(*position), ground_aligned_rotation(normal, heading), Vec3(1, 1, 1)))
        body.setLinearVelocity(Vec3(0, 0, 0))
        body.setAngularVelocity(Vec3(0, 0, 0))


class _Ground:
    """The map's colliders in a harness's world: the whole map's one, or a big desert's
    tiles streamed round the tanks before each step, by the game's rule (on the clock)."""

    def __init__(self, config: GameConfig, terrain: Terrain):
        self.world = PhysicsWorld(config.game.simulation)
        self.world.add_body(map_walls(terrain))
        self.colliders = None
        if isinstance(terrain, TiledTerrain):
            self.colliders = StreamedColliders(self.world, terrain)
        else:
            self.world.add_body(terrain_collider(terrain))

    def follow(self, bodies) -> None:
        """A big desert's tiles and colliders round the bodies (nothing on other maps)."""
        if self.colliders is not None:
            self.colliders.follow(positions_ws(bodies)[:, :2])

    def destroy(self) -> None:
        if self.colliders is not None:
            self.colliders.destroy()
        self.world.destroy()


class AnchorTanks:
    """Our model: a VehicleFleet of tanks, stepped as the game steps it."""

    label = "ours"

    def __init__(self, config: GameConfig, terrain: Terrain, points):
        self.ground = _Ground(config, terrain)
        self.world = self.ground.world
        self.fleet = VehicleFleet(self.world, terrain, config.tank, config.tank_gearbox)
        self.bodies = []
        for number, (x, y, heading, steer) in enumerate(points):
            body = make_hull_body(config.tank.hull, f"tank-{number}")
            self.world.add_body(body)
            index = self.fleet.add(body)
            self.bodies.append(body)
            self.fleet.request_gear(index, GEAR)
            self.fleet.set_controls(index, 1.0, steer, 0.0, False)
        _place_at_start(config, terrain, points, self.bodies)

    def step(self) -> None:
        self.ground.follow(self.bodies)
        self.fleet.update_drive(self.world.step_s)
        self.world.step()

    def positions(self) -> np.ndarray:
        return positions_ws(self.bodies)

    def destroy(self) -> None:
        self.fleet.destroy()
        self.ground.destroy()


class BulletVehicleTanks:
    """The yardstick: Bullet's btRaycastVehicle with our hull, anchors and springs."""

    label = "bullet_vehicle"

    def __init__(self, config: GameConfig, terrain: Terrain, points):
        self.ground = _Ground(config, terrain)
        self.world = self.ground.world
        spec = config.tank
        mass = spec.hull.mass_kg
        constants = derive_constants(spec.suspension, spec.grip, mass,
                                     config.game.simulation.gravity_m_s2, tracked=spec.tracked)
        top_mps = next(gear.top_speed_kmh for gear in config.tank_gearbox.gears
                      if gear.name == GEAR) / KMH_PER_MPS
        # Bullet damps velocity by (1 - d)^dt: a decay rate of a / v_top makes v_top terminal.
        damping = 1.0 - math.exp(-_BULLET_ACCELERATION_M_S2 / top_mps)
        engine_n = mass * _BULLET_ACCELERATION_M_S2 / len(constants.position_bs)
        self.bodies, self.vehicles = [], []
        for number, (x, y, heading, steer) in enumerate(points):
            body = make_hull_body(spec.hull, f"bullet-tank-{number}")
            body.setLinearDamping(damping)
            self.world.add_body(body)
            vehicle = BulletVehicle(self.world.bullet, body)
            vehicle.setCoordinateSystem(ZUp)
            self.world.bullet.attachVehicle(vehicle)
            for index, position in enumerate(constants.position_bs):
                front = position[1] > 0.0
                wheel = vehicle.createWheel()
                wheel.setChassisConnectionPointCs(Point3(*position))
                wheel.setWheelDirectionCs(Vec3(0, 0, -1))
                wheel.setWheelAxleCs(Vec3(1, 0, 0))
                wheel.setFrontWheel(bool(front))
                # Bullet's rest length is fixed at creation: the radius makes up our ray length.
                wheel.setWheelRadius(constants.ray_length_m - wheel.getSuspensionRestLength())
                wheel.setMaxSuspensionTravelCm(constants.travel_m * 100.0)
                wheel.setSuspensionStiffness(constants.stiffness_n_m[index] / mass)
                wheel.setWheelsDampingCompression(constants.damping_n_s_m[index] / mass)
                wheel.setWheelsDampingRelaxation(constants.damping_n_s_m[index] / mass)
                wheel.setMaxSuspensionForce(_BULLET_MAX_LOAD_RATIO
                                            * constants.static_load_n[index])
                wheel.setFrictionSlip(spec.grip.grip)
                vehicle.applyEngineForce(engine_n, index)
                vehicle.setSteeringValue(steer * _BULLET_STEER_DEG_PER_UNIT if front else 0.0,
                                         index)
            self.bodies.append(body)
            self.vehicles.append(vehicle)
        _place_at_start(config, terrain, points, self.bodies)
        for vehicle in self.vehicles:
            vehicle.resetSuspension()

    def step(self) -> None:
        self.ground.follow(self.bodies)
        self.world.step()

    def positions(self) -> np.ndarray:
        return positions_ws(self.bodies)

    def destroy(self) -> None:
        for vehicle in self.vehicles:
            self.world.bullet.removeVehicle(vehicle)
        self.vehicles.clear()
        self.ground.destroy()


def _timed_run(harness, steps: int, warmup_steps: int) -> dict:
    """A harness just built, at its start points: ``warmup_steps`` untimed, then ``steps``
    timed one by one (positions are read between steps, off the clock, to measure the
    path driven)."""
    for _ in range(warmup_steps):
        harness.step()
    gc.collect()
    elapsed = 0.0
    path = np.zeros(len(harness.bodies))
    last = harness.positions()
    for _ in range(steps):
        began = time.perf_counter()
        harness.step()
        elapsed += time.perf_counter() - began
        now = harness.positions()
        path += np.linalg.norm((now - last)[:, :2], axis=1)
        last = now
    return {"ms_per_step": 1000.0 * elapsed / steps, "mean_distance_m": float(path.mean()),
            "min_distance_m": float(path.min()), "finite": bool(np.isfinite(last).all())}


def _summary(runs: list[dict], count: int) -> dict:
    ms_per_step = statistics.median(run["ms_per_step"] for run in runs)
    return {"ms_per_step": ms_per_step, "ms_per_tank": ms_per_step / count,
            "runs_ms_per_step": [round(run["ms_per_step"], 4) for run in runs],
            "mean_distance_m": statistics.mean(run["mean_distance_m"] for run in runs),
            "min_distance_m": min(run["min_distance_m"] for run in runs),
            "finite": all(run["finite"] for run in runs)}


def _per_tank_growth(runs: list[dict], count: int, first_runs: list[dict],
                     first_count: int) -> float:
    """A model's time per tank at ``count`` against its own at the first count: the median,
    over the repeats, of each repeat's two runs' ratio (timed seconds apart, so both met
    the same minute of the machine, where the medians of each count may not have)."""
    return statistics.median((run["ms_per_step"] / count) / (first["ms_per_step"] / first_count)
                             for run, first in zip(runs, first_runs))


def run(config: GameConfig, counts=DEFAULT_COUNTS, steps: int = DEFAULT_STEPS,
        repeats: int = DEFAULT_REPEATS, warmup_steps: int = DEFAULT_WARMUP_STEPS,
        seed: int = DEFAULT_SEED, progress=None, map_name: str = DEFAULT_MAP) -> dict:
    """The benchmark's parameters and one result per vehicle count."""
    terrain = build_terrain(MapChoice.parse(map_name), config.game.terrain, seed)
    parameters = {"counts": list(counts), "steps": steps, "repeats": repeats,
                  "warmup_steps": warmup_steps, "seed": seed, "map": map_name,
                  "vehicle": "tank", "gear": GEAR,
                  "step_hz": config.game.simulation.step_hz,
                  "substeps": config.game.simulation.substeps}
    models = (AnchorTanks, BulletVehicleTanks)
    runs = [{model.label: [] for model in models} for _ in counts]
    for _ in range(repeats):
        for count, timed in zip(counts, runs):  # in turns, so all meet the same noise
            points = start_points(count, terrain)
            for model in models:
                # A world of its own for every run: a world run before carries its
                # contacts, and a fleet its springs, gears and links, into the next run,
                # which then drives another crowd.
                harness = model(config, terrain, points)
                try:
                    timed[model.label].append(_timed_run(harness, steps, warmup_steps))
                finally:
                    harness.destroy()
    results = []
    for count, timed in zip(counts, runs):
        result = {"count": count, **{label: _summary(each, count)
                                     for label, each in timed.items()}}
        result["ratio"] = result["ours"]["ms_per_step"] / result["bullet_vehicle"]["ms_per_step"]
        for label, each in timed.items():
            result[label]["per_tank_growth"] = _per_tank_growth(each, count,
                                                                runs[0][label], counts[0])
        result["per_tank_growth"] = result["ours"]["per_tank_growth"]
        results.append(result)
        if progress is not None:
            progress(result)
    if isinstance(terrain, TiledTerrain):
        terrain.destroy()
    return {"parameters": parameters, "results": results}


def table(report: dict) -> str:
    """The results as a plain-text table."""
    p = report["parameters"]
    lines = [f"vehicles: tanks on the {p['map']} map (seed {p['seed']}), gear {p['gear']}, "
             f"full throttle with steer; {p['steps']} steps of 1/{p['step_hz']:g} s x "
             f"{p['substeps']} substeps, median of {p['repeats']} runs, each after "
             f"{p['warmup_steps']} warm-up steps",
             f"{'tanks':>6} {'ours ms/step':>13} {'Bullet ms/step':>15} {'ours/Bullet':>12} "
             f"{'ours ms/tank':>13} {'per tank x':>11} {'Bullet x':>9} "
             f"{'ours moved m':>13} {'Bullet moved m':>15}"]
    for r in report["results"]:
        ours, bullet = r["ours"], r["bullet_vehicle"]
        lines.append(f"{r['count']:>6} {ours['ms_per_step']:>13.3f} "
                     f"{bullet['ms_per_step']:>15.3f} {r['ratio']:>11.2f}x "
                     f"{ours['ms_per_tank']:>13.4f} {r['per_tank_growth']:>10.2f}x "
                     f"{bullet['per_tank_growth']:>8.2f}x "
                     f"{ours['mean_distance_m']:>13.1f} {bullet['mean_distance_m']:>15.1f}")
    return "\n".join(lines)
