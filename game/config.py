"""Loading config/*.toml into validated, frozen specs.

Each file is read with the standard library's tomllib and handed to
:func:`physics.model.spec.build_spec`, which rejects unknown keys, missing keys,
wrong types and out-of-range values. Any problem becomes a :class:`UserError`
naming the file, the key, the value and what was expected.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from game.sim.ai import AISpec
from game.audio.sounds import AudioSpec
from game.sim.battle import BattleSpec
from game.sim.combat import RangeSpec
from game.sim.controls import GEAR_NAMES
from game.errors import UserError
from game.input.gamepad import GamepadSpec
from game.input.keyboard import KeyboardSpec, MouseSpec
from game.sim.local_players import LocalPlayersSpec
from physics.model.gearbox import GearboxSpec
from physics.model.spec import Spec, SpecError, build_spec, tuning
from physics.model.rocks import RockSpec
from physics.model.terrain import TerrainSpec
from physics.model.wheels import CarSpec
from physics.model.tracks import TankSpec
from physics.model.stepping import SimulationSpec

CONFIG_DIR = Path(__file__).resolve().parent.parent / "config"


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; every way it can fail is a one-line UserError."""
    try:
        with open(path, "rb") as stream:
            return tomllib.load(stream)
    except FileNotFoundError:
        raise UserError(path, None, "a TOML file, but there is no such file") from None
    except IsADirectoryError:
        raise UserError(path, None, "a TOML file, but this is a folder") from None
    except PermissionError:
        raise UserError(path, None, "a readable TOML file, but permission was denied") from None
    except OSError as error:  # e.g. a file where a folder on the path should be
        raise UserError(path, None, f"a readable TOML file ({error.strerror})") from None
    except UnicodeDecodeError:
        raise UserError(path, None, "UTF-8 text in TOML syntax") from None
    except tomllib.TOMLDecodeError as error:
        raise UserError(path, None, f"valid TOML syntax ({error})") from None


def load_spec(path: Path, cls: type) -> Any:
    """Read one TOML file into a ``cls`` spec."""
    table = read_toml(path)
    if not table:
        raise UserError(path, None, "TOML tables for " + ", ".join(
            field for field in cls.__dataclass_fields__) + ", but the file is empty")
    try:
        return build_spec(cls, table)
    except SpecError as error:
        raise UserError(path, error.key, error.expected, error.value, has_value=True) from None


@dataclass(frozen=True)
class ControlsSpec(Spec):
    keyboard: KeyboardSpec = tuning("keyboard bindings")
    mouse: MouseSpec = tuning("the mouse in the gun sight")
    gamepad: GamepadSpec = tuning("gamepad bindings, dead zones and response curves")


@dataclass(frozen=True)
class WindowSpec(Spec):
    title: str = tuning("window title")
    width_px: int = tuning("window width", minimum=320, maximum=7680)
    height_px: int = tuning("window height", minimum=200, maximum=4320)
    multisamples: int = tuning("antialiasing samples per pixel (0: off; costly on a software "
                               "renderer)", minimum=0, maximum=16)


def _colour(doc: str, maximum: float = 1.0):
    return tuning(doc + ", RGB", minimum=0.0, maximum=maximum, length=(3, 3))


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
    reticle_colour: tuple[float, ...] = _colour("gun-sight reticle, 0..1")
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


@dataclass(frozen=True)
class SceneSpec(Spec):
    sky_colour: tuple[float, ...] = _colour("sky colour at the zenith, 0..1")
    fog_colour: tuple[float, ...] = _colour("sky colour at the horizon, which distant ground "
                                            "fades into, 0..1")
    fog_density_per_m: float = tuning("haze: visibility falls as exp(-(density x distance)^2)",
                                      minimum=0.0, maximum=0.1)
    sky_gradient_exponent: float = tuning("how quickly the sky turns from the horizon colour "
                                          "to the zenith colour (< 1: quickly)", minimum=0.05,
                                          maximum=5.0)
    sun_glow_strength: float = tuning("brightness of the glow round the sun, in the sky and "
                                      "the haze", minimum=0.0, maximum=2.0)
    sun_glow_exponent: float = tuning("tightness of that glow", minimum=1.0, maximum=1000.0)
    sun_disc_radius_deg: float = tuning("angular radius of the sun's disc", minimum=0.0,
                                        maximum=10.0)
    sky_dome_radius_m: float = tuning("radius of the sky dome round the camera (inside the "
                                      "far clip)", minimum=10.0, maximum=10000.0)
    sun_heading_deg: float = tuning("compass direction the sunlight comes from",
                                    minimum=-360.0, maximum=360.0)
    sun_elevation_deg: float = tuning("sun's height above the horizon", minimum=1.0,
                                      maximum=90.0)
    sun_colour: tuple[float, ...] = _colour("sunlight colour and strength", maximum=4.0)
    ambient_colour: tuple[float, ...] = _colour("sky light on up-facing surfaces", maximum=4.0)
    ground_light_colour: tuple[float, ...] = _colour("light bounced off the sand onto "
                                                     "down-facing surfaces", maximum=4.0)
    sand_light_colour: tuple[float, ...] = _colour("colour of crests, 0..1")
    sand_dark_colour: tuple[float, ...] = _colour("colour of troughs, 0..1")
    rock_colour: tuple[float, ...] = _colour("rocks, 0..1")
    rock_colour_variation: float = tuning("rocks' brightness differs by up to this share",
                                          minimum=0.0, maximum=1.0)
    vehicle_colour: tuple[float, ...] = _colour("vehicle paint, 0..1")
    track_colour: tuple[float, ...] = _colour("tracks, 0..1")
    wreck_shade: tuple[float, ...] = _colour("a destroyed vehicle's colours are multiplied by "
                                             "this (burnt), 0..1")


@dataclass(frozen=True)
class SandSpec(Spec):
    """The sand's generated detail texture and how the shader tiles it."""

    texture_size_px: int = tuning("side of the generated detail texture (a power of two)",
                                  minimum=16, maximum=2048)
    ripples_per_tile: float = tuning("wind ripples across one texture tile", minimum=1.0,
                                     maximum=128.0)
    ripple_slope: float = tuning("tilt of the ripples' flanks in the normal detail",
                                 minimum=0.0, maximum=4.0)
    grain_slope: float = tuning("tilt from fine grain noise in the normal detail",
                                minimum=0.0, maximum=4.0)
    fine_tile_m: float = tuning("ground covered by one tile at the fine scale", minimum=0.1,
                                maximum=1000.0)
    coarse_tile_m: float = tuning("ground covered by one tile at the coarse scale (turned, "
                                  "so its repeats never line up with the fine ones)",
                                  minimum=0.1, maximum=1000.0)
    blend_mask_tile_m: float = tuning("size of the blotches of the mask that blends the two "
                                      "scales", minimum=1.0, maximum=10000.0)
    fine_detail_distance_m: float = tuning("the fine scale is drawn out to this distance (beyond "
                                           "it, it is finer than a pixel)", minimum=0.0,
                                           maximum=10000.0)
    normal_strength: float = tuning("how strongly the detail tilts the sand's normals",
                                    minimum=0.0, maximum=4.0)
    fine_variation: float = tuning("brightness variation from the detail", minimum=0.0,
                                   maximum=1.0)
    coarse_variation: float = tuning("brightness variation from the large blotches",
                                     minimum=0.0, maximum=1.0)


@dataclass(frozen=True)
class ShadowSpec(Spec):
    """Sun shadows: a depth map from an orthographic camera that follows the player."""

    map_size_px: int = tuning("side of the shadow map", minimum=128, maximum=8192)
    extent_m: float = tuning("side of the shadowed square round the player", minimum=10.0,
                             maximum=2000.0)
    depth_range_m: float = tuning("depth the shadow camera sees along the sunlight",
                                  minimum=10.0, maximum=5000.0)
    depth_bias_m: float = tuning("depth bias against shadow acne", minimum=0.0, maximum=5.0)
    slope_bias_m: float = tuning("extra bias on surfaces turned away from the sun",
                                 minimum=0.0, maximum=5.0)


@dataclass(frozen=True)
class TerrainViewSpec(Spec):
    """How the terrain is drawn: tiles, detail levels and the apron round the map."""

    tile_cells: int = tuning("height-sample cells along a tile's side", minimum=2,
                             maximum=1024)
    lod_distances_m: tuple[float, ...] = tuning(
        "beyond each distance a tile draws every 2nd, 4th, ... sample", minimum=1.0,
        maximum=100000.0, length=(0, 6))
    lod_far_m: float = tuning("tiles farther than this are not drawn", minimum=10.0,
                              maximum=100000.0)
    skirt_depth_m: float = tuning("tile skirts hang this far down (hides cracks between "
                                  "detail levels)", minimum=0.0, maximum=50.0)
    apron_extent_m: float = tuning("how far the apron reaches beyond the map's edge",
                                   minimum=0.0, maximum=20000.0)
    apron_spacing_m: float = tuning("spacing of the apron's coarse grid", minimum=1.0,
                                    maximum=2000.0)
    apron_fade_m: float = tuning("beyond the edge the apron levels out over this distance",
                                 minimum=1.0, maximum=20000.0)


@dataclass(frozen=True)
class TankRigSpec(Spec):
    """The drawn tank's shape, in proportion to its hull box where it can be."""

    road_wheels_per_side: int = tuning("road wheels on each side, spread from the rearmost to "
                                       "the foremost anchor", minimum=2, maximum=16)
    road_wheel_radius_m: float = tuning("road wheel radius", minimum=0.05, maximum=2.0)
    drive_wheel_radius_m: float = tuning("radius of the sprocket (rear) and idler (front)",
                                         minimum=0.05, maximum=2.0)
    drive_wheel_gap_m: float = tuning("sprocket and idler stand this far beyond the end road "
                                      "wheels", minimum=0.0, maximum=3.0)
    drive_wheel_raise_m: float = tuning("and this far above the road wheels' centres at "
                                        "ride height", minimum=0.0, maximum=2.0)
    track_thickness_m: float = tuning("track belt thickness", minimum=0.01, maximum=0.5)
    track_link_length_m: float = tuning("length of one track link (one texture repeat)",
                                        minimum=0.05, maximum=2.0)
    track_arc_segments: int = tuning("segments round each end of the track belt",
                                     minimum=2, maximum=32)
    wheel_sides: int = tuning("facets round a wheel", minimum=6, maximum=64)
    fender_height_share: float = tuning("underside of the fenders over the tracks, as a share "
                                        "of the hull's height from its floor", minimum=0.1,
                                        maximum=0.9)
    glacis_length_share: float = tuning("share of the hull's length taken by the sloped upper "
                                        "front plate", minimum=0.05, maximum=0.6)
    nose_height_share: float = tuning("height of the nose (where the front plates meet) as a "
                                      "share of the hull's height", minimum=0.05,
                                      maximum=0.9)
    rear_slope_share: float = tuning("share of the hull's length taken by the sloped rear "
                                     "plate", minimum=0.0, maximum=0.4)
    turret_width_share: float = tuning("turret width as a share of the hull's", minimum=0.2,
                                       maximum=1.0)
    turret_length_share: float = tuning("turret length as a share of the hull's",
                                        minimum=0.1, maximum=1.0)
    turret_height_m: float = tuning("turret height above the deck", minimum=0.1, maximum=3.0)
    turret_offset_share: float = tuning("turret ring's centre ahead (+) of the hull's middle, "
                                        "as a share of the half length", minimum=-1.0,
                                        maximum=1.0)
    turret_taper: float = tuning("turret roof size as a share of its base", minimum=0.3,
                                 maximum=1.0)
    gun_length_m: float = tuning("barrel length from the mantlet", minimum=0.5, maximum=12.0)
    gun_radius_m: float = tuning("barrel radius", minimum=0.02, maximum=0.5)
    muzzle_length_m: float = tuning("muzzle brake length", minimum=0.0, maximum=2.0)
    muzzle_radius_m: float = tuning("muzzle brake radius", minimum=0.02, maximum=1.0)
    wheel_colour: tuple[float, ...] = _colour("road wheels, 0..1")
    rubber_colour: tuple[float, ...] = _colour("wheel rims' rubber, 0..1")
    metal_colour: tuple[float, ...] = _colour("bare steel (muzzle, hubs), 0..1")
    specular: float = tuning("sheen of the paint in the sun", minimum=0.0, maximum=2.0)
    track_texture_px: tuple[float, ...] = tuning("generated track texture: pixels across, "
                                                 "along one link", minimum=2.0, maximum=256.0,
                                                 length=(2, 2))


@dataclass(frozen=True)
class CarRigSpec(Spec):
    """The drawn car, a desert buggy: a tub in proportion to its hull box, a roll cage,
    fenders, and knobbly wheels on the anchors."""

    tub_width_share: float = tuning("the tub's width as a share of the hull box's (the wheels "
                                    "stand outside it)", minimum=0.2, maximum=1.0)
    nose_height_share: float = tuning("height of the nose tip as a share of the hull's height",
                                      minimum=0.0, maximum=1.0)
    deck_height_share: float = tuning("height of the tub's sides as a share of the hull's",
                                      minimum=0.2, maximum=1.0)
    hood_length_share: float = tuning("share of the length taken by the sloped hood",
                                      minimum=0.05, maximum=0.6)
    cage_height_m: float = tuning("roll cage's roof above the tub's sides", minimum=0.1,
                                  maximum=3.0)
    cage_tube_radius_m: float = tuning("roll cage tubes' radius", minimum=0.005, maximum=0.2)
    wheel_width_m: float = tuning("tyre width", minimum=0.05, maximum=1.0)
    wheel_sides: int = tuning("facets round a tyre", minimum=6, maximum=64)
    tread_blocks: int = tuning("tread blocks round a tyre (they show it turning)", minimum=4,
                               maximum=64)
    tread_depth_m: float = tuning("how far the tread blocks stand out", minimum=0.0,
                                  maximum=0.2)
    spokes: int = tuning("spokes on each rim", minimum=2, maximum=12)
    rim_radius_share: float = tuning("rim radius as a share of the wheel's", minimum=0.2,
                                     maximum=0.9)
    fender_gap_m: float = tuning("fenders arch this far above the tyre at ride height",
                                 minimum=0.0, maximum=1.0)
    driver_eye_m: tuple[float, ...] = tuning("the driver's eye (the V view for a car), body "
                                             "frame: right, forward, up", minimum=-10.0,
                                             maximum=10.0, length=(3, 3))
    body_colour: tuple[float, ...] = _colour("paint, 0..1")
    cage_colour: tuple[float, ...] = _colour("roll cage and bumpers, 0..1")
    seat_colour: tuple[float, ...] = _colour("seats, 0..1")
    tyre_colour: tuple[float, ...] = _colour("tyres, 0..1")
    rim_colour: tuple[float, ...] = _colour("rims, 0..1")
    spoke_colour: tuple[float, ...] = _colour("spokes and hub caps, 0..1")
    light_colour: tuple[float, ...] = _colour("headlamps, 0..1")
    specular: float = tuning("sheen of the paint in the sun", minimum=0.0, maximum=2.0)


@dataclass(frozen=True)
class CombatViewSpec(Spec):
    """How shells in flight and the firing range's plates are drawn."""

    tracer_length_m: float = tuning("a tracer's streak, at most (it never reaches back past "
                                    "the muzzle)", minimum=0.1, maximum=200.0)
    tracer_width_m: float = tuning("a tracer's width", minimum=0.01, maximum=5.0)
    tracer_head_colour: tuple[float, ...] = _colour("a tracer's bright head, 0..1")
    tracer_tail_colour: tuple[float, ...] = _colour("its fading tail, 0..1")
    plate_colour: tuple[float, ...] = _colour("steel plates, 0..1")
    post_colour: tuple[float, ...] = _colour("the plates' posts, 0..1")
    post_width_m: float = tuning("side of a post's square section", minimum=0.02,
                                 maximum=2.0)


def _rgba(doc: str, maximum: float = 1.0):
    return tuning(doc + ", RGBA", minimum=0.0, maximum=maximum, length=(4, 4))


def _pair(doc: str, minimum: float, maximum: float):
    return tuning(doc + " [least, most]", minimum=minimum, maximum=maximum, length=(2, 2))


@dataclass(frozen=True)
class EmitterSpec(Spec):
    """One kind of particle burst or stream: how many, how they fly, grow and fade."""

    count: int = tuning("particles per burst at the high quality setting (a stream: per "
                        "second, or per second per m/s)", minimum=0, maximum=5000)
    life_s: tuple[float, ...] = _pair("each particle lives a random time in", 0.01, 60.0)
    speed_mps: tuple[float, ...] = _pair("launch speed", 0.0, 500.0)
    spread_deg: float = tuning("half-angle of the cone the particles leave in, round the "
                               "emitter's direction (180: every way)", minimum=0.0,
                               maximum=180.0)
    jitter_m: float = tuning("particles start up to this far from the emitter's point",
                             minimum=0.0, maximum=20.0)
    size_m: tuple[float, ...] = tuning("sprite diameter at birth and at death",
                                       minimum=0.001, maximum=100.0, length=(2, 2))
    colour_start: tuple[float, ...] = _rgba("colour at birth, 0..", maximum=8.0)
    colour_end: tuple[float, ...] = _rgba("colour at death (alpha 0: fades out), 0..",
                                          maximum=8.0)
    drag_per_s: float = tuning("air drag: speed falls as exp(-drag x t)", minimum=0.0,
                               maximum=100.0)
    lift_m_s2: float = tuning("vertical acceleration (+: rises like hot smoke, -9.81: falls "
                              "like debris)", minimum=-50.0, maximum=50.0)
    additive: bool = tuning("glows (added to what is behind) instead of covering it")

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("life_s", "speed_mps"):
            low, high = getattr(self, name)
            if low > high:
                raise SpecError(name, getattr(self, name), "[least, most]")


QUALITY_LEVELS = ("low", "medium", "high")


@dataclass(frozen=True)
class EffectsSpec(Spec):
    """Particles spawned from the simulation's events, and dust under moving vehicles."""

    capacity: int = tuning("most particles alive at once (the oldest make room for new ones)",
                           minimum=16, maximum=200000)
    quality_scale: tuple[float, ...] = tuning("share of each emitter's count drawn at the "
                                              "low, medium and high graphics quality",
                                              minimum=0.0, maximum=1.0, length=(3, 3))
    sort_back_to_front: bool = tuning("draw far particles first (correct smoke over smoke; "
                                      "costs a sort a frame)")
    dust_min_speed_mps: float = tuning("tracks and wheels raise no dust slower than this",
                                      minimum=0.0, maximum=50.0)
    dust_max_speed_mps: float = tuning("dust grows with speed up to this speed", minimum=0.1,
                                      maximum=200.0)
    wreck_smoke_s: float = tuning("a wreck smokes this long after it is destroyed (it keeps "
                                  "smoking until the round restarts if longer)",
                                  minimum=0.0, maximum=3600.0)
    muzzle_flash: EmitterSpec = tuning("the burst of flame out of the muzzle")
    muzzle_smoke: EmitterSpec = tuning("the smoke of a shot, along the barrel")
    sparks: EmitterSpec = tuning("a hit on metal (a tank or a plate): sparks off the face")
    impact_flash: EmitterSpec = tuning("the flash of any hit")
    sand_burst: EmitterSpec = tuning("a hit on the ground: sand thrown up along the normal")
    sand_clods: EmitterSpec = tuning("heavier clods of a ground hit, falling back")
    explosion: EmitterSpec = tuning("a tank destroyed: the fireball")
    debris: EmitterSpec = tuning("a tank destroyed: dark fragments thrown out, falling")
    smoke_column: EmitterSpec = tuning("a tank destroyed: the column of smoke rising")
    wreck_smoke: EmitterSpec = tuning("a wreck's smoke (count: particles per second)")
    track_dust: EmitterSpec = tuning("dust behind each track or wheel on the ground (count: "
                                     "particles per second at dust_max_speed_mps)")
    slide_dust: EmitterSpec = tuning("extra dust where a track or wheel slides (count: "
                                     "particles per second)")


@dataclass(frozen=True)
class HudSpec(Spec):
    """The heads-up display: sizes in shares of the window's half height (aspect2d)."""

    text_scale: float = tuning("height of normal text", minimum=0.01, maximum=0.3)
    margin: float = tuning("distance of every panel from the window's edges", minimum=0.0,
                           maximum=0.5)
    text_colour: tuple[float, ...] = _rgba("text")
    shadow_colour: tuple[float, ...] = _rgba("text's drop shadow")
    panel_colour: tuple[float, ...] = _rgba("panels' backing")
    gate_size: float = tuning("the gear gate's height", minimum=0.05, maximum=1.0)
    gate_colour: tuple[float, ...] = _rgba("the gate's slots")
    lever_colour: tuple[float, ...] = _rgba("the lever's knob")
    shifting_colour: tuple[float, ...] = _rgba("the knob while a shift is under way")
    lever_speed_per_s: float = tuning("the drawn knob follows the lever at this many gate "
                                      "units per second", minimum=0.5, maximum=100.0)
    bar_size: tuple[float, ...] = tuning("rpm and health bars: width, height", minimum=0.005,
                                         maximum=2.0, length=(2, 2))
    rpm_colour: tuple[float, ...] = _rgba("the rpm bar")
    redline_colour: tuple[float, ...] = _rgba("the rpm bar's red zone")
    redline_share: float = tuning("the red zone starts at this share of the redline",
                                  minimum=0.5, maximum=1.0)
    health_colour: tuple[float, ...] = _rgba("the health bar when healthy")
    low_health_colour: tuple[float, ...] = _rgba("the health bar at zero")
    reload_radius: float = tuning("the reload ring's radius", minimum=0.01, maximum=0.5)
    reload_width: float = tuning("the reload ring's width", minimum=0.002, maximum=0.2)
    reload_segments: int = tuning("segments round the reload ring", minimum=8, maximum=256)
    reload_colour: tuple[float, ...] = _rgba("the reload ring while reloading")
    ready_colour: tuple[float, ...] = _rgba("the reload ring when loaded")
    crosshair_size: float = tuning("the crosshair's half size", minimum=0.005, maximum=0.5)
    crosshair_colour: tuple[float, ...] = _rgba("the crosshair")
    crosshair_every_frames: int = tuning("the predicted impact point is worked out once in "
                                         "this many frames", minimum=1, maximum=60)
    crosshair_max_flight_s: float = tuning("it follows the shell's arc at most this long",
                                           minimum=0.1, maximum=60.0)
    minimap_size: float = tuning("the minimap's side", minimum=0.1, maximum=1.5)
    minimap_range_m: float = tuning("the minimap shows this far round the player",
                                    minimum=10.0, maximum=10000.0)
    minimap_colour: tuple[float, ...] = _rgba("the minimap's backing")
    minimap_dot_px: float = tuning("a vehicle's dot on the minimap", minimum=1.0,
                                   maximum=32.0)
    player_colour: tuple[float, ...] = _rgba("the player on the minimap")
    enemy_colour: tuple[float, ...] = _rgba("enemies on the minimap")
    wreck_colour: tuple[float, ...] = _rgba("wrecks on the minimap")
    message_s: float = tuning("a message stays this long", minimum=0.5, maximum=30.0)
    message_lines: int = tuning("most messages shown at once", minimum=1, maximum=10)


@dataclass(frozen=True)
class DebugOverlaySpec(Spec):
    """F3: every anchor's ray, contact normal, spring force and sliding, from the reports."""

    line_px: float = tuning("line width", minimum=0.5, maximum=10.0)
    relaxed_colour: tuple[float, ...] = _rgba("a ray with its spring unloaded")
    compressed_colour: tuple[float, ...] = _rgba("a ray with its spring fully compressed")
    airborne_colour: tuple[float, ...] = _rgba("a ray that found no ground")
    normal_colour: tuple[float, ...] = _rgba("the contact normal")
    normal_length_m: float = tuning("the drawn normal's length", minimum=0.05, maximum=10.0)
    force_colour: tuple[float, ...] = _rgba("the spring-force bar")
    force_m_per_kn: float = tuning("the spring-force bar's length per kN", minimum=0.0001,
                                   maximum=1.0)
    sliding_colour: tuple[float, ...] = _rgba("the cross marking a sliding anchor")
    sliding_size_m: float = tuning("that cross's half size", minimum=0.05, maximum=5.0)
    text_scale: float = tuning("height of the text block", minimum=0.01, maximum=0.2)
    text_colour: tuple[float, ...] = _rgba("the text block")


@dataclass(frozen=True)
class MenuSpec(Spec):
    """The pause menu (Esc), its settings page and the controls help."""

    text_scale: float = tuning("button text height", minimum=0.02, maximum=0.3)
    panel_colour: tuple[float, ...] = _rgba("the menu's backing")
    button_colour: tuple[float, ...] = _rgba("buttons")
    text_colour: tuple[float, ...] = _rgba("text")
    key_colour: tuple[float, ...] = _rgba("the keys and pad controls on the Controls page")
    dim_colour: tuple[float, ...] = _rgba("the veil over the paused game")
    field_of_view_limits_deg: tuple[float, ...] = tuning(
        "the field-of-view slider's range", minimum=20.0, maximum=120.0, length=(2, 2))
    controls_text_scale: float = tuning("text height on the Controls page", minimum=0.01,
                                        maximum=0.2)
    controls_row_spacing: float = tuning("from one row of the Controls page to the next",
                                         minimum=0.02, maximum=0.3)
    controls_columns_x: tuple[float, ...] = tuning(
        "the left edges of the Controls page's action, keyboard and gamepad columns",
        minimum=-1.5, maximum=1.5, length=(3, 3))
    key_cell_colour: tuple[float, ...] = _rgba("an action's keys: a button that rebinds them")
    capture_colour: tuple[float, ...] = _rgba("that button while it waits for a key")
    key_cell_gap: float = tuning("space between two actions' key buttons in one row",
                                 minimum=0.0, maximum=0.2)
    key_cell_padding: tuple[float, ...] = tuning(
        "a key button's margin round its text (across, up and down)", minimum=0.0,
        maximum=0.1, length=(2, 2))
    note_text_scale: float = tuning("the Controls page's note and status lines",
                                    minimum=0.01, maximum=0.2)


@dataclass(frozen=True)
class UserSettingsSpec(Spec):
    """A player's own settings (saved per user; these are the defaults and their bounds)."""

    volume: float = tuning("sound volume, 0..1", minimum=0.0, maximum=1.0)
    field_of_view_deg: float = tuning("the chase view's vertical field of view",
                                      minimum=20.0, maximum=120.0)
    invert_x: bool = tuning("mouse left/right reversed (look round and gun-sight aim)")
    invert_y: bool = tuning("mouse up/down reversed (look round and gun-sight aim)")
    quality: str = tuning("graphics quality (particle counts)", choices=QUALITY_LEVELS)


@dataclass(frozen=True)
class SpawnSpec(Spec):
    drop_height_m: float = tuning("vehicles start this far above their ride height",
                                  minimum=0.0, maximum=50.0)
    start_gear: str = tuning("the gear vehicles start in", choices=GEAR_NAMES)
    swap_offset_m: float = tuning("a vehicle the player swaps into appears this far to the "
                                  "right", minimum=3.0, maximum=50.0)
    below_ground_limit_m: float = tuning("a vehicle's centre this far below the ground has "
                                         "fallen through: it is set back on top", minimum=0.1,
                                         maximum=50.0)


@dataclass(frozen=True)
class GameSpec(Spec):
    simulation: SimulationSpec = tuning("fixed-step physics")
    terrain: TerrainSpec = tuning("maps")
    rocks: RockSpec = tuning("rocks on the desert")
    range: RangeSpec = tuning("the firing range map")
    battle: BattleSpec = tuning("rounds against the bots")
    ai: AISpec = tuning("how the bots drive and shoot")
    spawn: SpawnSpec = tuning("where vehicles start")
    window: WindowSpec = tuning("the game window")
    camera: CameraSpec = tuning("the chase camera and the gun sight")
    scene: SceneSpec = tuning("sky, sun, fog and colours")
    sand: SandSpec = tuning("the sand's detail texture")
    shadows: ShadowSpec = tuning("sun shadows")
    terrain_view: TerrainViewSpec = tuning("how the terrain is drawn")
    tank_rig: TankRigSpec = tuning("the drawn tank's shape")
    car_rig: CarRigSpec = tuning("the drawn car's shape")
    combat_view: CombatViewSpec = tuning("how shells and plates are drawn")
    effects: EffectsSpec = tuning("particles: shots, hits, explosions, wrecks, dust")
    hud: HudSpec = tuning("the heads-up display")
    debug_overlay: DebugOverlaySpec = tuning("the suspension-ray overlay (F3)")
    menu: MenuSpec = tuning("the pause menu")
    user_settings: UserSettingsSpec = tuning("defaults of the player's own settings")
    audio: AudioSpec = tuning("the engine note and the sounds' falloff")
    local_players: LocalPlayersSpec = tuning("two players on one machine (--players 2)")


@dataclass(frozen=True)
class GameConfig:
    """Everything the game reads from config/, loaded once at start."""

    game: GameSpec
    tank: TankSpec
    tank_gearbox: GearboxSpec
    car: CarSpec
    car_gearbox: GearboxSpec
    controls: ControlsSpec


def load_gearbox(path: Path, name: str, used_by: Path) -> GearboxSpec:
    """The gearbox table ``name`` of gearboxes.toml; every table in the file is checked."""
    gearboxes = {}
    for table_name, table in read_toml(path).items():
        try:
            gearboxes[table_name] = build_spec(GearboxSpec, table, prefix=table_name + ".")
        except SpecError as error:
            raise UserError(path, error.key, error.expected, error.value,
                            has_value=True) from None
    if name not in gearboxes:
        raise UserError(used_by, "gearbox", "the name of a table in " + path.name + " (one of "
                        + ", ".join(sorted(gearboxes)) + ")", name, has_value=True)
    return gearboxes[name]


def load_config(config_dir: Path = CONFIG_DIR) -> GameConfig:
    config_dir = Path(config_dir)
    tank_path = config_dir / "tank.toml"
    tank = load_spec(tank_path, TankSpec)
    car_path = config_dir / "car.toml"
    car = load_spec(car_path, CarSpec)
    gearboxes = config_dir / "gearboxes.toml"
    return GameConfig(game=load_spec(config_dir / "game.toml", GameSpec), tank=tank,
                      tank_gearbox=load_gearbox(gearboxes, tank.gearbox, tank_path),
                      car=car, car_gearbox=load_gearbox(gearboxes, car.gearbox, car_path),
                      controls=load_spec(config_dir / "controls.toml", ControlsSpec))
