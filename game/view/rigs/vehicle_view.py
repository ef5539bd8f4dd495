"""A vehicle drawn at its pose blended between the last two physics steps.

:class:`VehicleView` picks the rig by ``vehicle.kind`` (a tank: :class:`TankRig`; a car:
:class:`CarRig`) and gives the app one interface to both. A destroyed vehicle
(``vehicle.destroyed``) is drawn as a burnt wreck: every colour of its rig is
multiplied by the scene's ``wreck_shade``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from panda3d.core import Geom, InternalName, NodePath

from common.spec import Spec, tuning
from game.view.ground.desert_scene import SceneSpec
from game.view.rigs.car_rig import CarRig, CarRigSpec
from game.view.rigs.rig_culling import reach_m, spheres_seen
from game.view.rigs.rig_pose import latch_step_values, place_tank_rigs, pose_tank_parts
from game.view.rigs.tank_rig import TankRig, TankRigSpec


def _row_floats(data) -> int | None:
    """Floats per row if ``data`` has our layout (one float32 array: position, normal,
    colour at floats 6..9, maybe UVs), else None."""
    vertex_format = data.getFormat()
    if vertex_format.getNumArrays() != 1:
        return None
    array = vertex_format.getArray(0)
    colour = array.getColumn(InternalName.getColor())
    if (colour is None or colour.getStart() != 24 or colour.getNumComponents() != 4
            or colour.getNumericType() != Geom.NT_float32 or array.getStride() % 4):
        return None
    return array.getStride() // 4


@dataclass(frozen=True)
class VehicleDetailSpec(Spec):
    full_rate_within_m: float = tuning(
        "nearer a player's camera than this, a vehicle's wheels and tracks move every frame",
        minimum=0.0, maximum=100000.0)
    far_every_frames: int = tuning(
        "farther, every this many frames, the far vehicles taking turns: a road wheel is a "
        "few pixels there (1: every frame)", minimum=1, maximum=10)


@dataclass(frozen=True)
class VehicleLooks:
    """What drawing a vehicle reads of the config: each rig's shape, and the paint."""

    tank_rig: TankRigSpec
    car_rig: CarRigSpec
    scene: SceneSpec
    """Its vehicle, track and wreck colours."""


def make_rig(parent: NodePath, vehicle, looks: VehicleLooks, step_s: float = 1.0 / 60.0):
    """The rig that draws ``vehicle``, by its kind."""
    kind = getattr(vehicle, "kind", "tank")
    if kind == "car":
        return CarRig(parent, vehicle, looks.car_rig, step_s)
    if kind == "tank":
        return TankRig(parent, vehicle, looks.tank_rig, looks.scene.vehicle_colour,
                       looks.scene.track_colour)
    raise ValueError(f"no rig draws a vehicle of kind {kind!r}")


def update_views(views: list[VehicleView], alpha: float, frame_s: float,
                 pose_parts: bool = True, thrown_turrets=()) -> None:
    """:meth:`VehicleView.update` for every view in ``views``, the tanks' per-step values
    read and their hulls placed for all of them at once; their turrets and moving parts
    too with ``pose_parts``. A tank's broken tracks are drawn lying, and its turret where
    it flies or lies if it is among the ``thrown_turrets`` (the simulation's)."""
    tanks = [view for view in views if view.has_gun]
    rigs = [view.rig for view in tanks]
    latch_step_values(rigs)
    place_tank_rigs(rigs, alpha, frame_s)
    thrown = {turret.vehicle: turret for turret in thrown_turrets}
    for view in views:
        if view.has_gun:
            view.follow_wreck()
            view.rig.follow_damage(thrown.get(view.vehicle.name))
        else:
            view.update(alpha, frame_s, pose_parts=False)
    if pose_parts:
        pose_views(views)


def pose_views(views: list[VehicleView]) -> None:
    """The moving parts of every view in ``views`` at its last update's pose: the tanks'
    in one batched pass."""
    pose_tank_parts([view.rig for view in views if view.has_gun])
    for view in views:
        if not view.has_gun:
            view.rig.pose_parts()


def views_seen(views: list[VehicleView], frustums) -> list[VehicleView]:
    """Those of ``views`` that any of ``frustums`` may see: whose reach (a sphere of
    :attr:`VehicleView.reach_m` about its drawn position) meets a frustum, given as
    (camera NodePath, its lens's bounds in the camera's frame) pairs. The views under
    each parent node are tested together."""
    by_parent: dict[int, tuple[NodePath, list]] = {}
    for view in views:
        by_parent.setdefault(view.parent_key, (view.parent, []))[1].append(view)
    seen = []
    for parent, group in by_parent.values():
        mask = spheres_seen(parent, np.array([view.position for view in group]),
                            np.array([view.reach_m for view in group]), frustums)
        seen += [view for view, visible in zip(group, mask) if visible]
    return seen


def pose_views_if_seen(views: list[VehicleView], frustums,
                       detail: VehicleDetailSpec | None = None, eyes_ws=(),
                       frame: int = 0) -> None:
    """Pose the moving parts of the views not posed yet this frame that some camera may
    see (:func:`views_seen`), all together. With a ``detail`` and the players'
    ``eyes_ws``, a view farther than its ``full_rate_within_m`` from every eye is posed
    only on its turn: on frame ``frame`` where that is its ``parts_turn`` modulo
    ``far_every_frames``."""
    seen = views_seen([view for view in views if not view.rig.parts_posed], frustums)
    if seen and detail is not None and len(eyes_ws) and detail.far_every_frames > 1:
        every = detail.far_every_frames
        offsets = (np.array([view.position for view in seen])[:, None]
                   - np.asarray(eyes_ws, dtype=float)[None])
        nearest_m = np.sqrt(np.einsum("vei,vei->ve", offsets, offsets).min(axis=1))
        seen = [view for view, near in zip(seen, nearest_m < detail.full_rate_within_m)
                if near or view.parts_turn % every == frame % every]
    pose_views(seen)


class ColourShade:
    """Multiplies the vertex colours of every mesh under a node, and puts them back."""

    def __init__(self, root: NodePath):
        self.root = root
        self._original: dict = {}  # GeomVertexData -> its rows as they were built

    def apply(self, shade) -> None:
        factor = np.asarray(shade, dtype=np.float32)
        for path in self.root.findAllMatches("**/+GeomNode"):
            node = path.node()
            for g in range(node.getNumGeoms()):
                data = node.modifyGeom(g).modifyVertexData()
                width = _row_floats(data)
                if width is None or data in self._original:
                    continue
                view = memoryview(data.modifyArray(0)).cast("B")
                rows = np.frombuffer(view, dtype=np.float32).reshape(-1, width).copy()
                self._original[data] = rows.copy()
                rows[:, 6:9] *= factor
                view[:] = rows.tobytes()

    def restore(self) -> None:
        for data, rows in self._original.items():
            memoryview(data.modifyArray(0)).cast("B")[:] = rows.tobytes()
        self._original.clear()


class VehicleView:
    """The rig that follows one simulation vehicle; exposes the drawn pose."""

    def __init__(self, parent: NodePath, vehicle, looks: VehicleLooks,
                 step_s: float = 1.0 / 60.0, parts_turn: int = 0):
        self.vehicle = vehicle
        self.parts_turn = parts_turn
        """Far from every camera, its parts are posed on the frames of this turn
        (:func:`pose_views_if_seen`)."""
        self.rig = make_rig(parent, vehicle, looks, step_s)
        self.root = self.rig.root
        self.parent = self.root.getParent()
        """The node the rig hangs under (a rig is never moved to another), and its key."""
        self.parent_key = self.parent.getKey()
        self.length_m = self.rig.shape.length_m
        """The hull's length: the chase camera's distances scale with it."""
        self.has_gun = isinstance(self.rig, TankRig)
        """A tank (a :class:`TankRig`); else a car."""
        # The wheels move from where they were built by at most a ray's length (a tank's
        # wheel set's bounds hold that already); a belt's outer face swings with its run.
        travel_m = float(vehicle.constants.ray_length_m)
        if self.has_gun:
            travel_m += 2.0 * looks.tank_rig.track_thickness_m
        self.reach_m = reach_m(self.root) + travel_m
        """A sphere this big about the rig's origin holds it, however its parts move."""
        self._wreck_shade = looks.scene.wreck_shade
        self._shade = ColourShade(self.root)
        self.wrecked = False

    @property
    def position(self) -> np.ndarray:
        return self.rig.position

    @property
    def rotation(self) -> np.ndarray:
        return self.rig.rotation

    def update(self, alpha: float, frame_s: float = 0.0, pose_parts: bool = True) -> None:
        """The rig at the blended pose; its moving parts (wheels, belts) only with
        ``pose_parts``, else by :func:`pose_views_if_seen` once the cameras are placed."""
        self.rig.update(alpha, frame_s, pose_parts)
        self.follow_wreck()

    def follow_wreck(self) -> None:
        """Drawn burnt while the vehicle is destroyed, as built while it is not."""
        destroyed = bool(getattr(self.vehicle, "destroyed", False))
        if destroyed != self.wrecked:
            self._set_wrecked(destroyed)

    def _set_wrecked(self, wrecked: bool) -> None:
        self.wrecked = wrecked
        if isinstance(self.rig, TankRig):  # the belts are rewritten each frame from this
            self.rig.set_belt_shade(self._wreck_shade if wrecked else (1.0, 1.0, 1.0))
        if wrecked:
            self._shade.apply(self._wreck_shade)
        else:
            self._shade.restore()

    def show_gun(self, visible: bool, camera_mask=None) -> None:
        """Hide the gun from the gun sight, whose eye sits beside the barrel: from the
        cameras drawing ``camera_mask`` only (None: from every camera)."""
        if self.has_gun:
            change = self.rig.gun.show if visible else self.rig.gun.hide
            if camera_mask is None:
                change()
            else:
                change(camera_mask)

    def gun_pose_ws(self, offset_m=(0.0, 0.0, 0.0)):
        """The gun sight's eye and axes (a car: the driver's eye)."""
        return self.rig.gun_pose_ws(offset_m)

    def destroy(self) -> None:
        self.rig.destroy()
