"""Who can see whom: the rules the bots shoot by (and the HUD's markers will draw by).

A vehicle is spotted when the line from the viewer's eye to the middle of its hull is
clear of the terrain (tested on our own height array: fast, and the same every run) and,
where the caller passes the physics world, of the bodies that hide it (rocks, props and
wrecks: a filtered Bullet ray, cast only once the terrain lets the line through), and it
is within spotting range: the looker's tank's ``view_range_m`` (``sight_range_m`` for
a looker with none of its own) for one standing still, further for one raising dust (by
its speed) and, for a while after it fires, out to ``firing_range_m`` (the flash and the
smoke give it away).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from common.compiled import compiled, compiled_loop
from common.spec import Spec, tuning
from physics.bullet import groups
from physics.model.ray_narrowing import segment_meets_any_sphere
from physics.model.terrain_base import plane_under


@dataclass(frozen=True)
class SpottingSpec(Spec):
    sight_range_m: float = tuning("a still vehicle in clear sight is spotted this far by a "
                                  "looker with no view range of its own (a tank's is in its "
                                  "class's file)", minimum=10.0, maximum=20000.0)
    dust_range_per_mps: float = tuning("a moving one raises dust: spotted this much further "
                                       "for each m/s", minimum=0.0, maximum=1000.0)
    firing_range_m: float = tuning("one that fired is spotted this far ...", minimum=10.0,
                                   maximum=20000.0)
    firing_seen_s: float = tuning("... for this long after", minimum=0.0, maximum=60.0)
    sight_step_m: float = tuning("the line of sight is tested against the ground every this "
                                 "many metres", minimum=0.25, maximum=20.0)
    sight_clearance_m: float = tuning("... and must pass this far above it (a line that grazes "
                                      "a crest is not a clear one)", minimum=0.0, maximum=5.0)


def hull_middle_ws(vehicle, state=None) -> np.ndarray:
    """The middle of a vehicle's hull box (in ``state``; default its current one), where a
    sight line or a gun aims, and from where a blast's distance is measured."""
    state = vehicle.current if state is None else state
    drop_m = vehicle.spec.hull.centre_of_mass_drop_m
    position_x, position_y, position_z = state.position_ws.tolist()
    up_x, up_y, up_z = state.axes_ws()[2].tolist()
    return np.array([position_x + up_x * drop_m, position_y + up_y * drop_m,
                     position_z + up_z * drop_m])


def sight_clear(terrain, from_ws, to_ws, step_m: float, clearance_m: float = 0.0) -> bool:
    """Whether the straight line between two points passes ``clearance_m`` above the ground
    everywhere between them (tested every ``step_m``; the ends themselves are not).

    On a terrain with :class:`~physics.model.terrain.TerrainTables` (a whole map or a
    tiled one) the samples are taken one by one in a
    compiled loop that stops at the first one under the ground (a bot looks several
    times a second, most lines are a few hundred samples long); the points and heights
    are the ones the array form takes, to the last bit."""
    start, end = np.asarray(from_ws, dtype=float), np.asarray(to_ws, dtype=float)
    if not hasattr(terrain, "tables"):
        return bool(clear_views(terrain, start, end, step_m, clearance_m)[0])
    (start_x, start_y, start_z), (end_x, end_y, end_z) = start.tolist(), end.tolist()
    samples = max(1, math.ceil(math.dist((start_x, start_y, start_z), (end_x, end_y, end_z))
                               / step_m))
    # numpy's minimum and maximum, equal values (0.0 and -0.0) giving the second one
    terrain.prepare_box(start_x if start_x < end_x else end_x,
                        start_y if start_y < end_y else end_y,
                        start_x if start_x > end_x else end_x,
                        start_y if start_y > end_y else end_y)
    tables = terrain.tables
    return bool(_clear_over_planes(tables.planes, tables.directory, tables.lookup, start, end,
                                   samples, clearance_m))


def clear_views(terrain, eyes_ws: np.ndarray, target_ws: np.ndarray, step_m: float,
                clearance_m: float) -> np.ndarray:
    """For each eye (N, 3), whether the straight line from it to ``target_ws`` passes
    ``clearance_m`` above the ground everywhere between (tested at least every ``step_m``;
    the ends themselves are not)."""
    eyes = np.asarray(eyes_ws, dtype=float).reshape(-1, 3)
    target = np.asarray(target_ws, dtype=float)
    offsets = target - eyes
    longest = float(np.maximum.reduce(np.linalg.norm(offsets, axis=1))) if len(eyes) else 0.0
    samples = max(1, math.ceil(longest / step_m))
    if _clear_views_over_planes is not None and hasattr(terrain, "tables") and len(eyes):
        # Line by line in a compiled loop that leaves each line at its first sample under
        # the ground: the same points and heights as the arrays below, without sampling
        # every line to its end (a bot's search asks of some sixty points at once).
        # The ufuncs' own reductions: the arrays' min and max methods go through Python.
        low = np.minimum(np.minimum.reduce(eyes[:, :2]), target[:2])
        high = np.maximum(np.maximum.reduce(eyes[:, :2]), target[:2])
        terrain.prepare_box(*low.tolist(), *high.tolist())
        tables = terrain.tables
        clear = np.empty(len(eyes), dtype=bool)
        _clear_views_over_planes(tables.planes, tables.directory, tables.lookup, eyes, target,
                                 samples, clearance_m, clear)
        return clear
    shares = np.arange(1, samples) / samples
    if not len(shares):
        return np.ones(len(eyes), dtype=bool)
    points = eyes[:, None, :] + offsets[:, None, :] * shares[None, :, None]
    ground = terrain.height_at(points[..., 0], points[..., 1])
    return np.all(points[..., 2] > ground + clearance_m, axis=1)


@compiled_loop
def _clear_over_planes(planes, directory, lookup, start, end, samples, clearance_m):
    """:func:`sight_clear` on a terrain's plane table: the points at ``k / samples`` of the
    way (0 < k < samples), each ``start + (end - start) * share`` as numpy forms it."""
    offset_x, offset_y, offset_z = end[0] - start[0], end[1] - start[1], end[2] - start[2]
    for k in range(1, samples):
        share = k / samples
        x = start[0] + offset_x * share
        y = start[1] + offset_y * share
        z = start[2] + offset_z * share
        if not z > plane_under(planes, directory, lookup, x, y)[0] + clearance_m:
            return False
    return True


def _clear_views_over_planes(planes, directory, lookup, eyes, target, samples, clearance_m,
                             clear):
    """:func:`clear_views` on a terrain's plane table: ``clear[i]`` for the line from
    ``eyes[i]`` to ``target``, each sampled at ``k / samples`` of the way."""
    for eye in range(eyes.shape[0]):
        clear[eye] = _clear_over_planes(planes, directory, lookup, eyes[eye], target, samples,
                                        clearance_m)


_clear_views_over_planes = compiled(_clear_views_over_planes)
"""None without numba: a plain-Python loop over every sample of tens of lines is slower
than the arrays."""


def spotting_range_m(spec: SpottingSpec, target, time_s: float, looker=None) -> float:
    """How far away ``target`` can be spotted now (dust, a shot lately) by ``looker`` (its
    tank's view range; None, or a vehicle with none: ``spec.sight_range_m``)."""
    velocity_x, velocity_y, velocity_z = target.current.velocity_ws.tolist()
    # numpy's norm, summed in its order
    speed = math.sqrt(velocity_x * velocity_x + velocity_y * velocity_y + velocity_z * velocity_z)
    sight_m = getattr(getattr(looker, "spec", None), "view_range_m", spec.sight_range_m)
    parts = getattr(looker, "parts", None)
    if parts is not None:  # a hurt commander sees less far
        sight_m *= parts.effects.view_share
    reach = sight_m + spec.dust_range_per_mps * speed
    if time_s - getattr(target, "fired_at_s", -math.inf) <= spec.firing_seen_s:
        reach = max(reach, spec.firing_range_m)
    return reach


def spotted(spec: SpottingSpec, terrain, eye_ws, target, time_s: float, world=None,
            looker=None, middle_ws=None, screens: SightScreens | None = None) -> bool:
    """Whether a viewer at ``eye_ws`` spots ``target`` now: in range, in clear sight (of the
    terrain; and, given the physics ``world``, of the bodies that hide it, the ``looker``'s
    own and the target's aside; ``screens``: the world's :class:`SightScreens`, which spare
    Bullet the lines that pass by them all). ``middle_ws``: the target's
    :func:`hull_middle_ws`, where the caller has it already."""
    middle = hull_middle_ws(target) if middle_ws is None else middle_ws
    if math.dist(np.asarray(eye_ws).tolist(), middle.tolist()) > spotting_range_m(
            spec, target, time_s, looker):
        return False
    if not sight_clear(terrain, eye_ws, middle, spec.sight_step_m, spec.sight_clearance_m):
        return False
    if world is None or (screens is not None and not screens.near_line(eye_ws, middle)):
        return True
    return not bodies_hide(world, eye_ws, middle, (
        target.body, *((looker.body,) if looker is not None else ())))


def bodies_hide(world, from_ws, to_ws, exclude) -> bool:
    """Whether a body that hides what is behind it lies on the line between two points:
    a rock, a prop or a wreck (a living vehicle does not: it moves on, and the bots would
    lose each other behind their own side), the ``exclude`` nodes aside."""
    for node in world.nodes_on_line(from_ws, to_ws, groups.SIGHT_BLOCKERS, exclude):
        if getattr(world.handles.owner_of(node), "destroyed", True):
            return True
    return False


SCREEN_SLACK_M = 0.1
"""Room added round every screen's sphere: more than Bullet's collision margin round a
rock's hull (0.04 m) and its single-precision shapes stand out of the shapes themselves."""


class SightScreens:
    """Everything of a simulation that may hide a vehicle besides the ground (what
    :func:`bodies_hide` finds: its rocks, plates and wrecks), each as a sphere round it,
    gathered once a step. A line that passes by every sphere meets none of them, so
    Bullet's ray need not be cast; a line through one is asked of Bullet, which says
    exactly. Most sight lines in a battle pass by every rock, and Bullet would test them
    against every living hull they cross as well."""

    def __init__(self, simulation):
        self.simulation = simulation
        self._step: int | None = None
        self._fixed_key: tuple | None = None
        self._fixed = (np.zeros((0, 3)), np.zeros(0))
        """The rocks' and plates' spheres (they never move), and what they were made of."""
        self.centres_ws, self.radii_m = self._fixed

    def near_line(self, from_ws, to_ws) -> bool:
        """Whether the line between two points passes through any screen's sphere."""
        self._gather()
        (from_x, from_y, from_z), (to_x, to_y, to_z) = (np.asarray(from_ws).tolist(),
                                                        np.asarray(to_ws).tolist())
        return bool(segment_meets_any_sphere(from_x, from_y, from_z, to_x, to_y, to_z,
                                             self.centres_ws, self.radii_m))

    def _gather(self) -> None:
        """The spheres of this step: the rocks and plates (again only when they changed),
        then the wrecks where they lie now."""
        simulation = self.simulation
        step = simulation.world.step_count
        if step == self._step:
            return
        self._step = step
        rocks, plates = simulation.rocks, simulation.plates
        key = (simulation.arena.rocks_revision, len(rocks), len(plates))
        if key != self._fixed_key:
            self._fixed_key = key
            self._fixed = (
                np.array([rock.position_ws for rock in rocks]
                         + [plate.position_ws for plate in plates], np.float64).reshape(-1, 3),
                np.array([rock.reach_m for rock in rocks]
                         + [math.hypot(*plate.half_extents_m) for plate in plates],
                         np.float64) + SCREEN_SLACK_M)
        wrecks = [vehicle for vehicle in simulation.vehicles if vehicle.destroyed]
        if not wrecks:
            self.centres_ws, self.radii_m = self._fixed
            return
        self.centres_ws = np.vstack([self._fixed[0]] + [hull_middle_ws(wreck)
                                                        for wreck in wrecks])
        self.radii_m = np.concatenate([self._fixed[1], [
            math.hypot(*wreck.spec.hull.half_extents_m) + SCREEN_SLACK_M for wreck in wrecks]])
