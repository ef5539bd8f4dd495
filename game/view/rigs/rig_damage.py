"""What a tank's damage changes of its drawing: a broken track lying off its wheels, and a
turret an ammo rack threw off its hull.

:class:`DamageLook` follows one tank rig's vehicle. When a side's track is destroyed
(``vehicle.parts``) that side's belt is dropped: a copy of the belts' mesh showing it alone,
lying on the ground (:mod:`game.view.rigs.broken_track`), is left in the world where the
hull stood, and the rig draws no belt round that side's wheels; once mended (damaged) the
dropped one is gone and the belt is a whole band round the wheels again. While its turret is thrown
(a :class:`game.sim.part_damage.ThrownTurret` of the simulation's, handed in each frame)
the turret node, with the gun and everything that turns with the turret under it, is drawn
where the thrown body is, blended between the last two steps like the hull; once the thrown
turret is gone (a new round) it stands on its ring again, aimed as the vehicle aims.

A whole tank pays one look at its parts per step and nothing per frame but the call.
"""

from __future__ import annotations

import numpy as np
from panda3d.core import LQuaternionf, Point3

from game.view.draw.meshes import write_rows
from game.view.rigs.broken_track import ROW_FLOATS, BrokenBelts, LyingTrack, folded
from game.view.step_latch import StepLatch
from physics.model.parts import DESTROYED, LEFT_TRACK, RIGHT_TRACK
from physics.model.pose import blend_pose_arrays

TRACKS = (LEFT_TRACK, RIGHT_TRACK)
"""Each side's track part, in the belts' order (left, right)."""
WHOLE_TRACKS = (False, False)


class DamageLook:
    """Draws ``rig``'s (a :class:`game.view.rigs.tank_rig.TankRig`) broken tracks and thrown
    turret; ``outward``: per side, which way is out across the hull (-1 left, +1 right)."""

    def __init__(self, rig, outward: tuple[float, float]):
        self.rig = rig
        self.belt_data = rig.belt_data
        """The belts' own vertex data (``rig.belt_data`` is wrapped while a track is broken)."""
        template = rig.belt_template
        points = template.path_y.shape[1] + 1  # a whole belt's rows close its loop
        self.lying = [LyingTrack.of(shape, template.first_moving, points, rig.spec, side_out)
                      for shape, side_out in zip(rig.belt_shapes, outward)]
        self.broken = WHOLE_TRACKS
        """Per side, whether its track is drawn broken."""
        self.dropped: list = [None, None]
        """Per side, its belt left lying in the world (a NodePath; None: on its wheels)."""
        self._parts_seen = None
        """The vehicle's step state when its parts were last looked at."""
        self.thrown = None
        """The thrown turret drawn (None: the turret is on its hull)."""
        self._thrown_latch: StepLatch | None = None
        self._on_hull = rig.turret.getTransform()
        """The turret's transform on the hull, as it was aimed when thrown."""

    def follow(self, thrown) -> None:
        """Draw what the vehicle's parts and ``thrown`` (its thrown turret, None: none) say,
        at the rig's last update."""
        state = self.rig.vehicle.current
        if state is not self._parts_seen:  # parts change in steps
            self._parts_seen = state
            self._follow_tracks()
        if thrown is not self.thrown:
            self._follow_turret(thrown)
        if self.thrown is not None:
            self._place_turret()

    def _follow_tracks(self) -> None:
        parts = getattr(self.rig.vehicle, "parts", None)
        broken = WHOLE_TRACKS if parts is None else tuple(
            parts.state(track) == DESTROYED for track in TRACKS)
        if broken == self.broken:
            return
        for side, (now, before) in enumerate(zip(broken, self.broken)):
            if now and not before:
                self._drop(side)
            elif before and not now:
                self._pick_up(side)
        self.broken = broken
        rig = self.rig
        rig.belt_data = BrokenBelts(self.belt_data, broken) if any(broken) else self.belt_data
        rig.shown_travelled_m = np.full(2, np.nan)  # shown nowhere: the belts are rewritten

    def _drop(self, side: int) -> None:
        """Leave ``side``'s belt lying where the hull stands now: a copy of the belts' mesh,
        in the world, with that belt laid flat under where its road wheels are and the
        other folded away."""
        rig = self.rig
        rows = np.frombuffer(memoryview(self.belt_data.getArray(0)).cast("B"),
                             dtype=np.float32).reshape(2, -1, ROW_FLOATS)
        laid = rows.copy()
        laid[side] = self.lying[side].rows(rows[side])
        laid[1 - side] = folded(rows[1 - side])
        belts, world = rig.belts[0], rig.root.getParent()
        dropped = belts.copyTo(world)
        dropped.setTransform(belts.getTransform(world))
        write_rows(dropped.node().modifyGeom(0).modifyVertexData(), laid.reshape(-1, ROW_FLOATS))
        self.dropped[side] = dropped

    def _pick_up(self, side: int) -> None:
        """``side``'s track is mended: the belt it left lying is gone."""
        dropped, self.dropped[side] = self.dropped[side], None
        if dropped is not None:
            dropped.removeNode()

    def destroy(self) -> None:
        """The tracks left lying go with the rig."""
        for side in range(len(self.dropped)):
            self._pick_up(side)

    def _follow_turret(self, thrown) -> None:
        turret = self.rig.turret
        if self.thrown is None:
            self._on_hull = turret.getTransform()
        self.thrown = thrown
        if thrown is None:
            self._thrown_latch = None
            turret.setTransform(self._on_hull)  # what the turret rig last aimed it to ...
            self.rig.aim_turret()               # ... so that aiming it again is exact
        else:
            self._thrown_latch = StepLatch(thrown.pose)

    def _place_turret(self) -> None:
        """The turret at the thrown body's pose blended as the hull is."""
        rig = self.rig
        (start_ws, start_q), (end_ws, end_q) = self._thrown_latch.update(rig.vehicle.current)
        position, quaternion = blend_pose_arrays(start_ws, end_ws, start_q, end_q,
                                                 rig.step_alpha)
        rig.turret.setPosQuat(rig.root.getParent(), Point3(*position.tolist()),
                              LQuaternionf(*quaternion.tolist()))
