"""One Gearbox stepping vehicles of several kinds (physics/model/gearbox.py): the light,
medium and heavy tanks of config/ (and a made-up kind with fewer gears and a shorter torque
curve, so that the per-kind tables are padded) in one fleet, each vehicle driving exactly
as it would in a gearbox of its kind alone; gear names and requests per kind; removing a
vehicle keeps the others' kinds. Both the compiled loop and its plain-Python form."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import physics.model.gearbox as gearbox_module
from game.config import load_config
from physics.model.anchors import derive_constants
from physics.model.engine import (CURVE_POINTS, ENGINE_SETTINGS, Driveline, engine_settings,
                                  engine_torque_nm, torque_curve_table)
from physics.model.gear_stepping import step_gearboxes
from physics.model.gearbox import Gearbox, GearboxSpec, GearRequest, gate_layout
from physics.model.kernel_tables import (DRIVELINE_COLUMNS, DRIVELINE_DRIVE,
                                         DRIVELINE_FREE_LOAD, DRIVELINE_GRIPPING,
                                         DRIVELINE_GROUNDED, DRIVELINE_RIM, DRIVELINE_STEER)

DT_S = 1.0 / 60.0
STEPS = 480
"""Eight seconds of driving: long enough for shifts, automatic ones too, in every kind."""
REQUEST_EVERY_STEPS = 53
"""How often each vehicle may be asked for a gear: a prime, so that requests fall on every
phase of the shifts, and more steps than the slowest kind's shift takes, so that some
shifts finish."""
GEAR_CHOICES = ("R", "N", "1", "2", "3", "4", "5")
SHORT_KIND_DROPPED_RPM = (1000.0, 1800.0)
"""Torque curve points the made-up short kind leaves out of the light tank's curve."""
FREE_LOAD_SPREAD_N = 300.0
"""How much force the non-gripping anchors pass, at random (N)."""
STEER_SPREAD_MPS = 0.5
"""Half the tracks' speed difference, at random (m/s)."""
ROLLING_SHARE = 0.04
"""Rolling resistance as a share of the vehicle's weight, against its motion."""


@pytest.fixture(scope="module")
def config():
    return load_config()


def driveline_of(config, tank_name: str, spec: GearboxSpec) -> Driveline:
    """What tank class ``tank_name``'s engine drives, with gearbox ``spec``, as the fleet
    makes it."""
    tank = config.tanks[tank_name]
    constants = derive_constants(tank.suspension, tank.grip, tank.hull.mass_kg,
                                 config.game.simulation.gravity_m_s2, tracked=tank.tracked)
    return tank.driveline(spec, constants)


def short_spec(spec: GearboxSpec) -> GearboxSpec:
    """``spec`` without its 5th gear and with a shorter torque curve."""
    curve = tuple(point for point in spec.engine.torque_curve
                  if point.rpm not in SHORT_KIND_DROPPED_RPM)
    return replace(spec, gears=tuple(gear for gear in spec.gears if gear.name != "5"),
                   engine=replace(spec.engine, torque_curve=curve))


@pytest.fixture(scope="module")
def kinds(config) -> list[tuple[GearboxSpec, Driveline, float]]:
    """(gearbox spec, driveline, mass in kg) of each kind: the tank classes of config/,
    then a light tank with four gears and a shorter curve."""
    made = []
    for name in ("light", "medium", "heavy"):
        spec = config.tank_gearboxes[name]
        made.append((spec, driveline_of(config, name, spec), config.tanks[name].hull.mass_kg))
    short = short_spec(config.tank_gearboxes["light"])
    made.append((short, driveline_of(config, "light", short), config.tanks["light"].hull.mass_kg))
    assert len({len(spec.gears) for spec, _, _ in made}) > 1
    assert len({len(spec.engine.torque_curve) for spec, _, _ in made}) > 1
    return made


@pytest.fixture(params=["compiled", "plain"])
def loop_path(request, monkeypatch) -> str:
    """Every Gearbox in the test steps with the compiled loop, or with its plain-Python
    form (what runs where numba is not installed)."""
    if request.param == "plain":
        monkeypatch.setattr(gearbox_module, "step_gearboxes",
                            getattr(step_gearboxes, "py_func", step_gearboxes))
    return request.param


class Driven:
    """One vehicle's inputs, made up step by step (the same for it in both gearboxes), and
    its speed: a point mass driven as the anchors drive it."""

    def __init__(self, seed: int, mass_kg: float):
        self.rng = np.random.default_rng(seed)
        self.mass_kg = mass_kg
        self.speed_mps = 0.0
        self.drive_n = 0.0

    def inputs(self, step: int) -> tuple[float, np.ndarray, str | None, bool | None]:
        """This step's throttle, driveline row, gear request (None: none) and automatic
        switch (None: unchanged)."""
        rng = self.rng
        throttle = float(rng.choice([1.0, -1.0, 0.0, rng.uniform(-1.0, 1.0)]))
        row = np.zeros(DRIVELINE_COLUMNS)
        row[DRIVELINE_RIM] = self.speed_mps
        row[DRIVELINE_GRIPPING] = rng.choice([1.0, rng.uniform(0.0, 1.0)])
        row[DRIVELINE_GROUNDED] = rng.choice([1.0, 1.0, 0.0])
        row[DRIVELINE_DRIVE] = self.drive_n
        row[DRIVELINE_FREE_LOAD] = rng.normal(0.0, FREE_LOAD_SPREAD_N)
        row[DRIVELINE_STEER] = rng.normal(0.0, STEER_SPREAD_MPS)
        gear = str(rng.choice(GEAR_CHOICES)) if step % REQUEST_EVERY_STEPS == 0 else None
        switch = bool(rng.integers(2)) if step % (3 * REQUEST_EVERY_STEPS) == 1 else None
        return throttle, row, gear, switch

    def follow(self, rim_speed_mps: float, force_n: float, gravity_m_s2: float) -> None:
        """Drive the mass toward the rim speed with at most the force, against rolling."""
        wanted_n = self.mass_kg * (rim_speed_mps - self.speed_mps) / DT_S
        self.drive_n = float(np.clip(wanted_n, -force_n, force_n))
        rolling_n = ROLLING_SHARE * self.mass_kg * gravity_m_s2 * np.sign(self.speed_mps)
        self.speed_mps += (self.drive_n - rolling_n) * DT_S / self.mass_kg


FIRST_VEHICLES = (1, 3, 0, 1, 3, 3, 0)
"""The kinds (indices into the ``kinds`` fixture) of the vehicles there from the start."""
LATER_VEHICLES = (2, 0, 2, 1)
"""The kinds of those added a third of the way in, with the heavy tank's kind."""
LEAVING_VEHICLE = 4
"""Which vehicle leaves half way."""
AUTOMATIC_EVERY = 3
"""Every third vehicle starts in automatic (requests and switches change it later)."""
SEED = 100
"""Vehicle ``i``'s inputs are drawn from seed ``SEED + i``."""


def test_a_fleet_of_kinds_drives_each_vehicle_as_its_kind_alone(config, kinds, loop_path):
    gravity_m_s2 = config.game.simulation.gravity_m_s2
    spec, driveline, _ = kinds[3]  # kind 0: the short one (the fleet pads its tables)
    fleet = Gearbox(spec, 0, driveline=driveline)
    number = {3: 0, 0: fleet.add_kind(*kinds[0][:2]), 1: fleet.add_kind(*kinds[1][:2])}
    assert list(number.values()) == [0, 1, 2]
    # Each vehicle's kind (index into ``kinds``), inputs, and gearbox of its kind alone.
    vehicles: list[tuple[int, Driven, Gearbox]] = []

    def add(kind: int) -> None:
        spec, driveline, mass_kg = kinds[kind]
        automatic = len(vehicles) % AUTOMATIC_EVERY == 0
        index = fleet.add_vehicle(automatic, kind=number[kind])
        assert index == len(vehicles)
        alone = Gearbox(spec, 1, automatic, driveline=driveline)
        vehicles.append((kind, Driven(SEED + index, mass_kg), alone))

    for kind in FIRST_VEHICLES:
        add(kind)
    seen: dict[int, set[str]] = {kind: set() for kind in range(len(kinds))}
    shifts = 0
    for step in range(STEPS):
        if step == STEPS // 3:  # a kind added after vehicles, mid-run, and vehicles of it
            number[2] = fleet.add_kind(*kinds[2][:2])
            assert number[2] == 3
            for kind in LATER_VEHICLES:
                add(kind)
        if step == STEPS // 2:  # a vehicle leaves: the others keep their kinds and state
            fleet.remove_vehicle(LEAVING_VEHICLE)
            del vehicles[LEAVING_VEHICLE]
        assert fleet.kind.tolist() == [number[kind] for kind, _, _ in vehicles]
        throttles, rows = [], []
        for vehicle, (_, driven, alone) in enumerate(vehicles):
            throttle, row, gear, switch = driven.inputs(step)
            throttles.append(throttle)
            rows.append(row)
            if switch is not None:
                fleet.set_automatic(vehicle, switch)
                alone.set_automatic(0, switch)
            if gear is not None:
                assert (fleet.request(vehicle, gear, driven.speed_mps)
                        == alone.request(0, gear, driven.speed_mps))
        speeds = np.array([driven.speed_mps for _, driven, _ in vehicles])
        together = fleet.step(DT_S, speeds, np.array(throttles), np.array(rows))
        for vehicle, (kind, driven, alone) in enumerate(vehicles):
            own = alone.step(DT_S, speeds[vehicle:vehicle + 1],
                             np.array(throttles[vehicle:vehicle + 1]),
                             rows[vehicle][np.newaxis])
            for field in ("rim_speed_mps", "force_n", "rpm", "hold", "push_n"):
                assert (getattr(together.command, field)[vehicle]
                        == getattr(own.command, field)[0]), (step, vehicle, field)
            assert together.started[vehicle] == own.started[0], (step, vehicle)
            assert together.finished[vehicle] == own.finished[0], (step, vehicle)
            assert fleet.vehicle_state(vehicle) == alone.vehicle_state(0), (step, vehicle)
            assert fleet.gear_name(vehicle) == alone.gear_name(0)
            assert fleet.selected_name(vehicle) == alone.selected_name(0)
            assert fleet.shift_names(vehicle) == alone.shift_names(0)
            seen[kind].add(fleet.gear_name(vehicle))
            shifts += int(own.finished[0])
            driven.follow(float(own.command.rim_speed_mps[0]), float(own.command.force_n[0]),
                          gravity_m_s2)
    # The run went through several gears of every kind.
    assert all(len(gears) >= 3 for gears in seen.values()), seen
    assert shifts > len(vehicles), shifts


@pytest.fixture(scope="module")
def car_kind(config) -> tuple[GearboxSpec, Driveline]:
    """The car's gearbox and driveline: another engine, idling faster than the tanks'."""
    car, spec = config.car, config.car_gearbox
    constants = derive_constants(car.suspension, car.grip, car.hull.mass_kg,
                                 config.game.simulation.gravity_m_s2, tracked=car.tracked)
    return spec, car.driveline(spec, constants)


def test_gear_names_and_requests_follow_each_vehicles_kind(kinds):
    medium, short = kinds[1], kinds[3]
    fleet = Gearbox(medium[0], 1, driveline=medium[1])
    short_kind = fleet.add_kind(short[0], short[1])
    four = fleet.add_vehicle(kind=short_kind)
    five = fleet.add_vehicle()
    assert fleet.kind_of(four) is fleet.kinds[short_kind]
    assert fleet.kind_of(five) is fleet.kinds[0]
    assert fleet.kind_of(four).names == ("R", "N", "1", "2", "3", "4")
    assert fleet.kind_of(five).names == ("R", "N", "1", "2", "3", "4", "5")
    assert fleet.kind_of(four).gate == gate_layout(4)
    assert fleet.kind_of(five).gate == gate_layout(5)
    assert fleet.kind_of(four).top == 5 and fleet.kind_of(five).top == 6
    # A kind without a 5th gear refuses "5" as unknown; one with it shifts.
    assert fleet.request(four, "5", 0.0) == GearRequest("refused", "N", "5", "unknown")
    assert fleet.request(five, "5", 0.0) == GearRequest("started", "N", "5")
    # Over-revving is each kind's own: the short (light) kind's 4th tops out above the
    # medium's 4th.
    fast_mps = fleet.kind_of(0).top_mps[fleet.kind_of(0).names.index("4")] * 1.01
    assert fleet.request(0, "4", fast_mps) == GearRequest("refused", "N", "4", "over_rev")
    assert fleet.request(four, "4", fast_mps) == GearRequest("started", "N", "4")
    assert fleet.gear_names() == ["N", "N", "N"]
    assert [fleet.selected_name(vehicle) for vehicle in range(3)] == ["N", "4", "5"]
    assert fleet.shift_names(four) == ("N", "4") and fleet.shift_names(five) == ("N", "5")


def test_removing_a_vehicle_keeps_the_others_kinds(kinds):
    fleet = Gearbox(kinds[0][0], 2, driveline=kinds[0][1])
    for spec, driveline, _ in kinds[1:]:
        fleet.add_kind(spec, driveline)
    for kind in (3, 1, 2, 3):
        fleet.add_vehicle(kind=kind)
    fleet.request(3, "2", 0.0)
    assert fleet.kind.tolist() == [0, 0, 3, 1, 2, 3]
    fleet.remove_vehicle(2)
    assert fleet.kind.tolist() == [0, 0, 1, 2, 3] and fleet.count == 5
    assert len(fleet.gear_index) == len(fleet.rpm) == len(fleet.power_share) == 5
    assert fleet.selected_name(2) == "2" and fleet.kind_of(2) is fleet.kinds[1]
    fleet.remove_vehicle(0)
    assert fleet.kind.tolist() == [0, 1, 2, 3] and fleet.kind.dtype == np.int64


def test_a_vehicle_of_an_unknown_kind_is_refused(kinds):
    fleet = Gearbox(kinds[0][0], 0, driveline=kinds[0][1])
    with pytest.raises(ValueError):
        fleet.add_vehicle(kind=1)
    assert fleet.count == 0


def test_each_vehicle_idles_at_its_own_kinds_idle(kinds, car_kind):
    tank_spec, tank_driveline, _ = kinds[1]
    car_spec, car_driveline = car_kind
    assert car_spec.idle_rpm != tank_spec.idle_rpm
    fleet = Gearbox(tank_spec, 1, driveline=tank_driveline)
    car = fleet.add_vehicle(kind=fleet.add_kind(car_spec, car_driveline))
    assert fleet.rpm.tolist() == [tank_spec.idle_rpm, car_spec.idle_rpm]
    fleet.rpm[:] = car_spec.redline_rpm
    fleet.relax(0)
    fleet.relax(car)
    assert fleet.rpm.tolist() == [tank_spec.idle_rpm, car_spec.idle_rpm]


def test_the_torque_curve_is_read_only_to_its_own_points(kinds):
    spec, driveline, _ = kinds[3]
    settings = np.array(engine_settings(spec.engine, spec.clutch, spec.idle_rpm,
                                        spec.redline_rpm, driveline))
    assert settings.shape == (ENGINE_SETTINGS,)
    assert settings[CURVE_POINTS] == len(spec.engine.torque_curve)
    curve = np.array(torque_curve_table(spec.engine))
    padding = np.full((len(GEAR_CHOICES), curve.shape[1]), np.nan)  # read, it would show
    padded = np.concatenate([curve, padding])
    speeds_rpm = np.linspace(0.0, 2.0 * curve[-1, 0], 101)
    for rpm in speeds_rpm:
        for throttle in (0.0, 0.5, 1.0):
            assert (engine_torque_nm(rpm, throttle, padded, settings)
                    == engine_torque_nm(rpm, throttle, curve, settings))


def test_the_stacked_tables_pad_the_shorter_kinds(kinds):
    short, light = kinds[3], kinds[0]
    fleet = Gearbox(short[0], 1, driveline=short[1])
    fleet.add_kind(light[0], light[1])
    gears, curve = fleet._gears, fleet._curve
    assert gears.shape == (2, 7, 4) and curve.shape[:2] == (2, len(light[0].engine.torque_curve))
    padded = gears[0, len(fleet.kinds[0].names):]
    assert (padded[:, 0] == 0.0).all() and (padded[:, 1] > 0.0).all()
    assert (padded[:, 2] == np.inf).all() and (padded[:, 3] == -np.inf).all()
    assert fleet._engine.shape == (2, ENGINE_SETTINGS) and fleet._settings.shape == (2, 3)
