"""Tracks: a tank's controls and drivetrain become per-anchor commands.

Each track has one belt speed, the rim speed the engine drives toward plus or minus the
steer's differential (right steer runs the left track faster), and one force limit, half
the engine's plus half the steer unit's, shared evenly among its anchors. Steering is
nothing but the two belts running at different speeds, so with the throttle at zero and
the stick over, the tank pivots on the spot. The steer unit is fed from the engine ahead of
the clutch, geared like first gear: pivoting governs the engine up to its speed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from common.compiled import compiled_loop
from common.spec import KMH_PER_MPS, Spec, tuning
from physics.model.anchor_model import AnchorModel
from physics.model.anchors import AnchorCommand, AnchorConstants, GripSpec, SuspensionSpec
from physics.model.armour import PlateLayout
from physics.model.ballistics import ArmourSpec, GunSpec
from physics.model.engine import Driveline
from physics.model.gearbox import FIRST, DriveCommand, GearboxSpec
from physics.model.hull import HullSpec
from physics.model.parts import PartsLayout

PIVOT, STEERING, BRAKING, TRACK_SETTINGS = range(4)
"""Columns of a drive's per-vehicle settings: the pivot's track speed (m/s), and each
track's most steering and braking force (N)."""

_SIDES = np.array([1.0, -1.0])
"""Left and right track: + steer (right) speeds the left one up and slows the right one."""


@dataclass(frozen=True)
class TrackSpec(Spec):
    """Drive and brakes of the two tracks."""

    sprocket_radius_m: float = tuning("radius at which the drive sprockets move the belts",
                                      minimum=0.05, maximum=2.0)
    brake_force_n: float = tuning("most braking force of both tracks together", minimum=0.0,
                                  maximum=5e6)
    pivot_track_speed_kmh: float = tuning("each track's speed difference from the mean at "
                                          "full steer", minimum=0.0, maximum=50.0)
    steering_force_n: float = tuning("most force of the steer unit, both tracks together, on "
                                     "top of the engine's through the gearbox: in gear it "
                                     "drives the tracks toward the speed difference the stick "
                                     "asks with up to this; in a pivot (clutch out) with the "
                                     "stick's share of it", minimum=0.0, maximum=5e6)


def track_shares(constants: AnchorConstants) -> tuple[np.ndarray, np.ndarray]:
    """Each anchor's share of its track's force (the same for all: the belt pulls along
    the whole run on the ground, whichever sprocket drives it), and its side: + 1 on the
    left track, - 1 on the right."""
    left = constants.position_bs[:, 0] < 0.0
    return (np.where(left, 1.0 / left.sum(), 1.0 / (~left).sum()),
            np.where(left, _SIDES[0], _SIDES[1]))


class TrackDrive:
    """Turns controls and the gearbox's command into track belt speeds and force limits.

    Its vehicles may be of several kinds (tank classes: their own tracks and anchors, as
    many anchors each): made for its first kind, :meth:`add_kind` adds more, and each
    vehicle reads its kind's numbers in the one loop over them all."""

    def __init__(self, spec: TrackSpec, constants: AnchorConstants):
        self.spec = spec
        """The first kind's tracks."""
        share, side = track_shares(constants)
        self._kind_shares, self._kind_sides = share[None], side[None]
        """Per kind (K, A): each anchor's share of its track's force (a sprocket at the front
        or the rear does not pitch the hull: the pull acts at the ground either way, where
        the grip stage applies it, and its squat comes from the centre of mass standing above
        that line); and how its track's belt follows the steer (+ left, - right)."""
        self._kind_settings = np.array([[spec.pivot_track_speed_kmh / KMH_PER_MPS,
                                         spec.steering_force_n / 2.0,
                                         spec.brake_force_n / 2.0]])
        """Per kind (K, TRACK_SETTINGS): the pivot's track speed, and each track's most
        steering and braking force."""
        self.kind = np.zeros(0, dtype=np.int64)
        """Each vehicle's kind."""
        self._rows: tuple[np.ndarray, np.ndarray, np.ndarray] = self._vehicle_rows()
        self._idle = AnchorCommand.idle(0, share.shape[0])
        """Steer angles (none: tracks turn by their speeds) and grip scales (whole), kept
        and handed out read-only for as long as the number of vehicles stays the same."""

    def add_kind(self, other: TrackDrive) -> int:
        """Drive vehicles of ``other``'s first kind too (a drive made for it, with as many
        anchors); return the number of that kind here."""
        if other._kind_shares.shape[1] != self._kind_shares.shape[1]:
            raise ValueError("a kind of tank with another number of anchors")
        self._kind_shares = np.concatenate([self._kind_shares, other._kind_shares[:1]])
        self._kind_sides = np.concatenate([self._kind_sides, other._kind_sides[:1]])
        self._kind_settings = np.concatenate([self._kind_settings, other._kind_settings[:1]])
        return len(self._kind_settings) - 1

    def add_vehicle(self, kind: int = 0) -> None:
        """One more vehicle, of ``kind``, after the others."""
        self.kind = np.append(self.kind, np.int64(kind))
        self._rows = self._vehicle_rows()

    def _vehicle_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each vehicle's shares, sides and settings: its kind's."""
        return (np.ascontiguousarray(self._kind_shares[self.kind]),
                np.ascontiguousarray(self._kind_sides[self.kind]),
                np.ascontiguousarray(self._kind_settings[self.kind]))

    def vehicle_state(self, vehicle: int) -> None:
        """Tracks keep nothing per vehicle between steps."""

    def set_vehicle_state(self, vehicle: int, state: None) -> None:
        """Tracks keep nothing per vehicle between steps."""

    def remove(self, vehicle: int) -> None:
        """Forget one vehicle's kind; the vehicles after it move down one index."""
        self.kind = np.delete(self.kind, vehicle)
        self._rows = self._vehicle_rows()

    def relax(self, vehicle: int) -> None:
        """Tracks keep nothing per vehicle between steps."""

    def command(self, drive: DriveCommand, shifting: np.ndarray, steer: np.ndarray,
                brake: np.ndarray, handbrake: np.ndarray, step_s: float,
                forward_speed_mps: np.ndarray) -> AnchorCommand:
        vehicles = len(steer)
        shares, sides, settings = self._rows
        anchors = shares.shape[1]
        belt_mps = np.empty((vehicles, anchors))
        force_n = np.empty((vehicles, anchors))
        bias_n = np.empty((vehicles, anchors))
        _track_commands(drive.rim_speed_mps, drive.push_n, drive.hold, shifting, steer, brake,
                        handbrake, sides, shares, settings, belt_mps, force_n, bias_n)
        return AnchorCommand(belt_mps, force_n, *self._constant(vehicles), bias_n)

    def _constant(self, vehicles: int) -> tuple[np.ndarray, np.ndarray]:
        if self._idle.steer_rad.shape[0] != vehicles:
            self._idle = AnchorCommand.idle(vehicles, self._kind_shares.shape[1])
            for values in (self._idle.steer_rad, self._idle.grip_scale):
                values.setflags(write=False)
        return self._idle.steer_rad, self._idle.grip_scale

    def body_impulses(self, states, substep_s: float) -> np.ndarray | None:
        """Forces on the whole body besides the anchors': none for a tank."""
        return None


@compiled_loop
def _track_commands(rim_speed_mps, engine_push_n, hold, shifting, steer, brake, handbrake,
                    side, share, settings, belt_mps, force_n, bias_n):
    """Each anchor's belt speed, force limit and force bias (V, A), in place (compiled where
    numba is installed). Right steer (+) runs the left track faster than the right one,
    about the engine's rim speed (none with the clutch out: a neutral steer); no steer while
    shifting; held tracks stop, with the brake's force if it is the greater (the gearbox's
    hill hold too, unless the stick is over: then the tank pivots).

    Steering in gear, each track passes its half of what the clutch passes (the bias), and
    the steer unit, geared to the engine, drives them apart toward the speed difference
    the stick asks with up to its whole force either way (the limit): the inner track is
    held back by the steer unit alone, so the tracks never pull against each other with
    the engine's force and the tank keeps going as it turns, at a rate set by the stick."""
    for vehicle in range(steer.shape[0]):
        pivot_mps, track_steering_n = settings[vehicle, PIVOT], settings[vehicle, STEERING]
        track_brake_n = settings[vehicle, BRAKING]
        stick = 0.0 if shifting[vehicle] else steer[vehicle]
        push_n = engine_push_n[vehicle]
        steering_n = abs(stick) * track_steering_n
        drive_n = abs(push_n) / 2.0 + steering_n
        bias = 0.0
        braking = max(brake[vehicle], 1.0 if handbrake[vehicle]
                      or (hold[vehicle] and stick == 0.0) else 0.0)
        # With the clutch out, steering is a neutral steer: the gearbox's output held, the
        # tracks run opposite ways and the tank pivots where it stands.
        mean_mps = rim_speed_mps[vehicle] if push_n != 0.0 or stick == 0.0 else 0.0
        if braking > 0.0:
            drive_n = max(drive_n, braking * track_brake_n)
        elif stick != 0.0 and push_n != 0.0:
            bias, drive_n = push_n / 2.0, track_steering_n
        for anchor in range(share.shape[1]):
            belt_mps[vehicle, anchor] = (0.0 if braking > 0.0 else
                                        mean_mps + (stick * pivot_mps) * side[vehicle, anchor])
            force_n[vehicle, anchor] = drive_n * share[vehicle, anchor]
            bias_n[vehicle, anchor] = bias * share[vehicle, anchor]


@dataclass(frozen=True)
class TankSpec(Spec):
    """Everything physical about one class of tank (config/tanks/NAME.toml)."""

    gearbox: str = tuning("name of its gearbox (a table in config/gearboxes.toml)")
    view_range_m: float = tuning("its crew spot a still vehicle in clear sight this far",
                                 minimum=10.0, maximum=20000.0)
    hull: HullSpec = tuning("the rigid body")
    suspension: SuspensionSpec = tuning("anchors, springs and dampers")
    grip: GripSpec = tuning("how the tracks hold the ground")
    tracks: TrackSpec = tuning("drive and brakes")
    gun: GunSpec = tuning("turret, gun and shells")
    armour: ArmourSpec = tuning("health")
    plates: PlateLayout = tuning("the armour plates: hull and turret")
    parts: PartsLayout = tuning("what a shell that gets through can break: tracks, engine, "
                                "turret ring, gun, ammo rack, crew")

    tracked = True

    def make_drive(self, constants: AnchorConstants) -> TrackDrive:
        return TrackDrive(self.tracks, constants)

    def make_model(self, constants: AnchorConstants) -> AnchorModel:
        share, side = track_shares(constants)
        return AnchorModel(constants, self.grip, drive_share=share / 2.0, side=side)

    def driveline(self, gearbox: GearboxSpec, constants: AnchorConstants) -> Driveline:
        """What the engine drives: the sprockets, the tank's mass, and the steer unit
        geared like first gear (every anchor's track is driven: ``constants`` add nothing)."""
        return Driveline(self.tracks.sprocket_radius_m, self.hull.mass_kg, 0.0,
                         gearbox.rad_s_per_mps(FIRST))
