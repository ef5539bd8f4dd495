"""The player's camera: a chase view on springs, mouse orbit and zoom, and a gun sight.

Chase view: the camera sits behind and above the vehicle and aims at a point ahead
of it, so the ground in front fills the screen. Its distances are multiples of
the vehicle's length. It follows the drawn (interpolated) pose through critically
damped springs (the pivot's position and the heading it swings behind), which
never overshoot and, given a long frame, glide on rather than snap. It never goes
under the terrain and never behind anything solid: a ray from the vehicle to the
camera (through the Bullet world, the vehicle excluded) pulls it in front of what
it meets, at once, and lets it back out smoothly.

Holding the orbit button and moving the mouse swings the camera round the vehicle;
on release it springs back behind. The mouse wheel zooms. The gun-sight view puts
the camera on the gun, looking along the bore.

:class:`ChaseCamera` only needs a NodePath to move, the terrain and a ray function,
so it runs headless in tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from panda3d.core import NodePath, Point3, Vec3

from common.spec import Spec, SpecError, tuning
from game.view.draw.colours import rgb
from physics.model.terrain import Terrain


@dataclass(frozen=True)
class CameraSpec(Spec):
    distance_lengths: float = tuning("how far behind the vehicle the chase camera sits, in "
                                     "vehicle lengths", minimum=0.2, maximum=20.0)
    height_lengths: float = tuning("how far above the vehicle it sits, in vehicle lengths",
                                   minimum=0.0, maximum=10.0)
    look_ahead_lengths: float = tuning("it aims at a point this far ahead of the vehicle, in "
                                       "vehicle lengths (so the ground in front shows)",
                                       minimum=0.0, maximum=20.0)
    aim_height_lengths: float = tuning("height of that aim point above the vehicle's centre, "
                                       "in vehicle lengths", minimum=-2.0, maximum=5.0)
    field_of_view_deg: float = tuning("vertical field of view of the chase view",
                                      minimum=20.0, maximum=120.0)
    gunsight_field_of_view_deg: float = tuning("vertical field of view through the gun sight",
                                               minimum=2.0, maximum=90.0)
    gunsight_offset_m: tuple[float, ...] = tuning(
        "the sight's eye from the gun's trunnion: right, forward, up (m)", minimum=-5.0,
        maximum=5.0, length=(3, 3))
    reticle_colour: tuple[float, ...] = rgb("gun-sight reticle, 0..1")
    reticle_size: float = tuning("reticle's half size, in shares of the window's half height",
                                 minimum=0.01, maximum=1.0)
    reticle_thickness_px: float = tuning("reticle's line width", minimum=0.5, maximum=10.0)
    follow_frequency_hz: float = tuning("natural frequency of the critically damped spring the "
                                        "camera's pivot follows the vehicle with", minimum=0.1,
                                        maximum=20.0)
    heading_frequency_hz: float = tuning("natural frequency of the critically damped spring "
                                         "that swings the camera behind the vehicle's heading",
                                         minimum=0.1, maximum=20.0)
    max_frame_s: float = tuning("longest frame the springs take in one go: after a hitch the "
                                "camera glides on instead of snapping", minimum=0.01,
                                maximum=1.0)
    orbit_deg_per_screen: float = tuning("orbit angle for a mouse move across the whole "
                                         "window", minimum=10.0, maximum=2000.0)
    orbit_pitch_limits_deg: tuple[float, ...] = tuning(
        "lowest and highest orbit pitch from the chase view (deg)", minimum=-80.0,
        maximum=80.0, length=(2, 2))
    orbit_return_frequency_hz: float = tuning("natural frequency of the spring that brings "
                                              "an orbit back behind the vehicle once the mouse "
                                              "button is released", minimum=0.1, maximum=20.0)
    zoom_step: float = tuning("distance factor of one mouse-wheel click", minimum=1.01,
                              maximum=3.0)
    zoom_limits: tuple[float, ...] = tuning("nearest and farthest zoom, as factors of the "
                                            "chase distance", minimum=0.1, maximum=10.0,
                                            length=(2, 2))
    terrain_clearance_m: float = tuning("the camera never goes lower than this above the "
                                        "ground", minimum=0.5, maximum=10.0)
    obstacle_margin_m: float = tuning("the camera stays this far in front of a rock or "
                                      "anything else between it and the vehicle",
                                      minimum=0.0, maximum=5.0)
    near_clip_m: float = tuning("the near clipping distance", minimum=0.01, maximum=10.0)
    far_clip_m: float = tuning("the far clipping distance", minimum=100.0, maximum=20000.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("orbit_pitch_limits_deg", "zoom_limits"):
            low, high = getattr(self, name)
            if low > high:
                raise SpecError(name, getattr(self, name), "[lowest, highest]")


CHASE, GUNSIGHT = "chase", "gunsight"

RayCast = Callable[[np.ndarray, np.ndarray], "np.ndarray | None"]
"""(from, to) world points -> the first hit's position, or None."""


def critically_damped(position, velocity, target, frequency_hz: float, dt_s: float):
    """Exact step of a critically damped spring toward ``target``: never overshoots,
    and a long frame (a hitch) simply arrives instead of exploding."""
    omega = 2.0 * math.pi * frequency_hz
    offset = position - target
    decay = math.exp(-omega * dt_s)
    blend = (velocity + omega * offset) * dt_s
    return target + (offset + blend) * decay, (velocity - omega * blend) * decay


def wrap_angle(angle_rad: float) -> float:
    """The same angle in (-pi, pi]."""
    return math.pi - (math.pi - angle_rad) % (2.0 * math.pi)


def compass_heading(rotation: np.ndarray, fallback: float) -> float:
    """Heading of a rotation's forward axis on the ground (0 = +Y, + toward +X)."""
    forward = rotation[:, 1]
    if math.hypot(forward[0], forward[1]) < 1e-6:
        return fallback
    return math.atan2(forward[0], forward[1])


class ChaseCamera:
    """Moves ``camera`` each frame; ``field_of_view_deg`` says what the lens should use."""

    def __init__(self, camera: NodePath, terrain: Terrain, spec: CameraSpec,
                 ray_cast: RayCast | None = None):
        self.camera = camera
        self.terrain = terrain
        self.spec = spec
        self.ray_cast = ray_cast
        self.mode = CHASE
        self.pivot = None
        self.pivot_velocity = np.zeros(3)
        self.heading = 0.0
        self.heading_velocity = 0.0
        self.orbit_held = False
        self.orbit_yaw = 0.0
        self.orbit_pitch = 0.0
        self._orbit_velocity = np.zeros(2)
        self.zoom_target = 1.0
        self.zoom = 1.0
        self._zoom_velocity = 0.0
        self.reach = 1.0
        """Share of the wanted distance the camera may go out to (pulled in by obstacles)."""
        self._reach_velocity = 0.0
        self.position = None
        self._dt_s = 0.0

    @property
    def field_of_view_deg(self) -> float:
        return (self.spec.gunsight_field_of_view_deg if self.mode == GUNSIGHT
                else self.spec.field_of_view_deg)

    # ----- input ----------------------------------------------------------------------

    def toggle_view(self) -> None:
        self.mode = GUNSIGHT if self.mode == CHASE else CHASE

    def hold_orbit(self, held: bool) -> None:
        self.orbit_held = held
        if held:
            self._orbit_velocity[:] = 0.0

    def orbit(self, across_screens: float, up_screens: float) -> None:
        """Swing round by mouse travel, in window widths (+ right / + up)."""
        self.swing(across_screens * self.spec.orbit_deg_per_screen,
                   up_screens * self.spec.orbit_deg_per_screen)

    def swing(self, right_deg: float, up_deg: float) -> None:
        """Swing round by angles while the orbit is held (a pad's stick: its rate times the
        frame); + right / + up looks that way, as moving the mouse does."""
        if not self.orbit_held:
            return
        self.orbit_yaw += math.radians(right_deg)
        low, high = (math.radians(a) for a in self.spec.orbit_pitch_limits_deg)
        self.orbit_pitch = min(max(self.orbit_pitch - math.radians(up_deg), low), high)

    def zoom_by(self, clicks: float) -> None:
        """+ zooms in (closer), - out."""
        low, high = self.spec.zoom_limits
        self.zoom_target = min(max(self.zoom_target * self.spec.zoom_step ** -clicks, low), high)

    # ----- per frame ------------------------------------------------------------------

    def update(self, dt_s: float, vehicle_position: np.ndarray, rotation: np.ndarray,
               length_m: float, gun_pose=None) -> None:
        """Follow the drawn pose; ``gun_pose`` = (eye point, axes) for the gun sight."""
        spec = self.spec
        dt_s = float(dt_s)
        dt_s = min(max(dt_s, 0.0), spec.max_frame_s) if math.isfinite(dt_s) else 0.0
        self._dt_s = dt_s
        target_heading = compass_heading(rotation, self.heading)
        if self.pivot is None:
            self.pivot = np.array(vehicle_position, dtype=np.float64)
            self.heading = target_heading
        else:
            self.pivot, self.pivot_velocity = critically_damped(
                self.pivot, self.pivot_velocity, np.asarray(vehicle_position, dtype=np.float64),
                spec.follow_frequency_hz, dt_s)
            # Swing the short way round.
            offset = wrap_angle(self.heading - target_heading)
            swung, self.heading_velocity = critically_damped(
                target_heading + offset, self.heading_velocity, target_heading,
                spec.heading_frequency_hz, dt_s)
            self.heading = wrap_angle(swung)
        if not self.orbit_held:
            orbit, self._orbit_velocity = critically_damped(
                np.array([wrap_angle(self.orbit_yaw), self.orbit_pitch]), self._orbit_velocity,
                np.zeros(2), spec.orbit_return_frequency_hz, dt_s)
            self.orbit_yaw, self.orbit_pitch = float(orbit[0]), float(orbit[1])
        self.zoom, self._zoom_velocity = critically_damped(
            self.zoom, self._zoom_velocity, self.zoom_target, spec.follow_frequency_hz, dt_s)

        if self.mode == GUNSIGHT and gun_pose is not None:
            eye, axes = gun_pose
            self.position = np.array(eye, dtype=np.float64)
            self.camera.setPos(Point3(*self.position))
            self.camera.lookAt(Point3(*(self.position + axes[:, 1])), Vec3(*axes[:, 2]))
            return
        self.position = self._chase_position(length_m)
        yaw = self.heading + self.orbit_yaw
        aim = (self.pivot + length_m * spec.look_ahead_lengths
               * np.array([math.sin(yaw), math.cos(yaw), 0.0])
               + np.array([0.0, 0.0, length_m * spec.aim_height_lengths]))
        self.camera.setPos(Point3(*self.position))
        self.camera.lookAt(Point3(*aim))

    def _chase_position(self, length_m: float) -> np.ndarray:
        spec = self.spec
        distance = spec.distance_lengths * length_m * self.zoom
        height = spec.height_lengths * length_m * self.zoom
        radius = math.hypot(distance, height)
        elevation = math.atan2(height, distance) + self.orbit_pitch
        yaw = self.heading + self.orbit_yaw
        back = np.array([-math.sin(yaw) * math.cos(elevation),
                         -math.cos(yaw) * math.cos(elevation), math.sin(elevation)])
        wanted = self.pivot + back * radius
        # Obstacles: in at once, out gently.
        allowed = 1.0
        if self.ray_cast is not None:
            hit = self.ray_cast(self.pivot, wanted)
            if hit is not None:
                gap = float(np.linalg.norm(np.asarray(hit) - self.pivot)) - spec.obstacle_margin_m
                allowed = min(max(gap / radius, 0.0), 1.0)
        if allowed < self.reach:
            self.reach, self._reach_velocity = allowed, 0.0
        else:
            self.reach, self._reach_velocity = critically_damped(
                self.reach, self._reach_velocity, allowed, spec.follow_frequency_hz, self._dt_s)
        position = self.pivot + back * radius * self.reach
        ground = float(self.terrain.height_at(position[0], position[1]))
        position[2] = max(position[2], ground + spec.terrain_clearance_m)
        return position

    def destroy(self) -> None:
        self.camera = None
