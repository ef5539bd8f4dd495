"""The frame benchmark: the whole windowed game, offscreen, one fixed step a frame.

    python -m bench frame [--bots 7 | --tanks N] [--frames 600] [--warmup 60] [--size 640x360]

Builds :class:`game.app.TankBattleApp` as the game does for ``--offscreen`` (the clock
then advances one fixed step a frame, however long the frame takes), the player's tank
driven by the bot brain (``player_ai``) so that there is driving, firing, dust and
explosions, at the player's default settings (graphics quality, effects, shadows). The
window's size is the config's ``[window]`` with ``--size`` in its place.

Each measured frame is one ``taskMgr.step()``, timed three ways:

- ``app_ms``: our own frame work, the app's frame task (``TankBattleApp._frame``: the
  fixed steps with AI and physics, views, rigs, cameras, HUD, effects, audio); of it,
  ``steps_ms`` is the fixed steps alone;
- ``render_ms``: Panda's ``igLoop`` task, which is ``graphicsEngine.renderFrame()``
  (cull and draw);
- ``frame_ms``: the whole task manager step: app and render plus Panda's own small tasks
  (input devices, events, intervals, 3-D sound);
- ``draw_cpu_ms``: the processor time this thread spent on the frame's work outside the
  fixed steps (the app's ``_draw`` and the sound's update): less disturbed than the wall
  times by other work on the machine, it compares the view side before and after a change;
- ``draw_ms``: ``app_ms`` beside the steps, part by part (:data:`DRAW_PARTS`, each timed
  by wrappers on the app's own objects), and ``other``, what the steps and the parts leave.

The measured frames come in blocks of :data:`STATIC_BLOCK_FRAMES`; after each block,
nothing updated, ``renderFrame()`` alone is timed for as many frames: ``static_ms``, the
floor that drawing that scene graph from that camera costs. ``frame_over_static`` is
``frame_ms / static_ms`` (medians). Taken by turns, the game's frames and the floor's see
the same scenes and the same minutes of a machine whose speed wanders. Each
figure is the median and the 95th percentile over the measured frames; the warm-up
frames before them (numba's compiled loops loading, first use of every shader and
buffer) are not counted. ``gl-finish`` is on, so that a frame's drawing is done when
``renderFrame()`` returns rather than spilling into the next frame's figures.

``--tanks N`` sets N - 1 bots on rows in front of the player, facing it, inside the
camera's view (and puts them back there each round): N tanks on screen.
``tanks_in_view`` says how many the camera had in its view (median and fewest).

It opens a window of its own: run it in a fresh process (``python -m bench`` with no
benchmark named runs it in a child process).
"""

from __future__ import annotations

import cProfile
import io
import json
import math
import os
import pstats
import subprocess
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from bench.parts import PartTimer

DEFAULT_BOTS = 7
DEFAULT_FRAMES = 600
DEFAULT_WARMUP_FRAMES = 60
DEFAULT_SIZE = (640, 360)
PLAYER_AI = "normal"
"""The bot brain's level that drives the player's tank."""
PERCENTILE = 95.0
STATIC_BLOCK_FRAMES = 50
"""The measured frames come in blocks of this many, each followed by as many static ones."""
FAN_NEAREST_M = 30.0
"""``--tanks``: the first row of bots this far in front of the player."""
FAN_SPACING_M = 12.0
"""``--tanks``: bots this far apart along a row, and the rows this far apart."""
FAN_VIEW_SHARE = 0.8
"""``--tanks``: the rows span this share of the camera's horizontal field of view."""
PROFILE_LINES = 25
"""``--profile``: the functions listed by cumulative time, and again by their own time."""
CHILD_TIMEOUT_S = 3600.0
"""A frame benchmark run in a child process is given up after this long."""
WATCHED_EVENTS = ("shot", "hit", "destroyed", "round_start")
DRAW_PARTS = ("vehicles", "rigs", "camera", "hud", "effects", "scene", "audio")
"""The parts of ``app_ms`` beside the steps timed apart (:func:`draw_parts`); ``other``
is what is left of it (the inputs, the rest of each view's update, the frame task's own)."""


def size_limits() -> tuple[tuple[int, int], tuple[int, int]]:
    """The least and the most (width, height) a window may have (config [window]'s bounds)."""
    from game.view.window import WindowSpec
    fields = WindowSpec.__dataclass_fields__
    return tuple((int(fields[name].metadata["minimum"]), int(fields[name].metadata["maximum"]))
                 for name in ("width_px", "height_px"))


def parse_size(text: str) -> tuple[int, int]:
    """(width, height) of a "WIDTHxHEIGHT" size inside the window's bounds; ValueError if not."""
    from common.settings import AUTO_RESOLUTION, parse_resolution
    try:
        size = parse_resolution(text) if text != AUTO_RESOLUTION else None
    except ValueError:
        size = None
    if size is None:
        raise ValueError(f"{text!r}: expected WIDTHxHEIGHT, e.g. 640x360")
    for value, (least, most), name in zip(size, size_limits(), ("width", "height")):
        if not least <= value <= most:
            raise ValueError(f"{text!r}: expected a {name} of {least} to {most} pixels")
    return size


def fan_spots(count: int, half_angle_rad: float) -> list[tuple[float, float]]:
    """``count`` places (forward_m, right_m) on rows ``FAN_SPACING_M`` apart from
    ``FAN_NEAREST_M`` on, each place within ``half_angle_rad`` either side of straight ahead
    and ``FAN_SPACING_M`` from its neighbours; nearest rows first."""
    spots: list[tuple[float, float]] = []
    forward_m = FAN_NEAREST_M
    while len(spots) < count:
        reach_m = forward_m * math.tan(half_angle_rad)
        across = min(int(2.0 * reach_m / FAN_SPACING_M) + 1, count - len(spots))
        for index in range(across):  # centred on straight ahead
            spots.append((forward_m, (index - (across - 1) / 2.0) * FAN_SPACING_M))
        forward_m += FAN_SPACING_M
    return spots


def arrange_in_view(app) -> None:
    """The bots on rows in front of the player, facing it, across ``FAN_VIEW_SHARE`` of the
    camera's horizontal view; each round starts them there again."""
    simulation, battle = app.session.simulation, app.session.battle
    player = simulation.player
    _, forward, _ = player.current.axes_ws()
    flat_forward = np.array([forward[0], forward[1]]) / math.hypot(forward[0], forward[1])
    flat_right = np.array([flat_forward[1], -flat_forward[0]])
    here = player.current.position_ws[:2]
    half_angle_rad = math.radians(app.views[0].screen.lens.getFov()[0]) / 2.0 * FAN_VIEW_SHARE
    limit_m = (min(simulation.terrain.half_extent_x_m, simulation.terrain.half_extent_y_m)
               - simulation.specs.rocks.edge_clearance_m)
    for name, (ahead_m, across_m) in zip(battle.bots, fan_spots(len(battle.bots),
                                                                 half_angle_rad)):
        x, y = np.clip(here + ahead_m * flat_forward + across_m * flat_right, -limit_m, limit_m)
        facing_deg = math.degrees(math.atan2(here[0] - x, here[1] - y))
        simulation.place(simulation.vehicle_named(name), float(x), float(y), facing_deg)
        battle.spawns[name] = (float(x), float(y), facing_deg)


class TaskTimer:
    """Times one task each time it runs, by wrapping its function in place; a profiler, when
    given, is on only while the task runs."""

    def __init__(self, task, profiler: cProfile.Profile | None = None):
        self.last_ms = 0.0
        self.profiler = profiler
        function = task.getFunction()

        def timed(*arguments):
            started = time.perf_counter()
            if self.profiler is not None:
                self.profiler.enable()
            try:
                return function(*arguments)
            finally:
                if self.profiler is not None:
                    self.profiler.disable()
                self.last_ms = (time.perf_counter() - started) * 1000.0

        task.setFunction(timed)


def _task(app, name: str | None = None, function=None):
    """The app's task called ``name``, or the one that runs ``function``."""
    for task in app.taskMgr.getAllTasks():
        if (name is not None and task.name == name) or (
                function is not None and task.getFunction() == function):
            return task
    raise RuntimeError(f"no task {name or function!r} in the task manager")


def build_app(size: tuple[int, int], bots: int):
    """The game offscreen at ``size``, ``bots`` bots, the player driven by the bot brain."""
    from panda3d.core import loadPrcFileData
    loadPrcFileData("frame-benchmark", "audio-library-name null\ngl-finish true")
    from game.app import TankBattleApp
    from game.sim.session import GameOptions
    from game.window_config import load_window_config
    from game.runs.windowed_run import WindowedRun
    config = load_window_config()
    window = replace(config.view.window, width_px=size[0], height_px=size[1])
    config = replace(config, view=replace(config.view, window=window))
    return TankBattleApp(config, WindowedRun(GameOptions(bots=bots, player_ai=PLAYER_AI),
                                             offscreen=True))


def _tanks_in_view(app) -> int:
    view = app.views[0]
    return sum(view.project(vehicle.current.position_ws) is not None
               for vehicle in app.session.simulation.vehicles)


class Timers(NamedTuple):
    """What times each measured frame: the app's task, the render task, the processor time
    of the drawing, and the drawing's parts."""

    app: TaskTimer
    render: TaskTimer
    draw_cpu: PartTimer
    parts: PartTimer


def draw_processor(app) -> PartTimer:
    """A timer of this thread's processor time in the frame's work outside the fixed steps
    (the app's ``_draw`` and the sound's update), as one part, ``draw``."""
    timer = PartTimer(("draw",), clock=time.thread_time)
    timer.wrap(app, "_draw", "draw")
    timer.wrap(app.audio, "update", "draw")
    return timer


def draw_parts(app) -> PartTimer:
    """A timer of each of :data:`DRAW_PARTS`, set on the app's own objects."""
    timer = PartTimer(DRAW_PARTS)
    session_view = app.session_view
    timer.wrap(session_view, "sync_vehicles", "vehicles")
    timer.wrap(session_view, "update_vehicles", "vehicles")
    timer.wrap(session_view, "pose_seen_vehicles", "rigs")
    for view in app.views:
        timer.wrap(view.chase_camera, "update", "camera")
        timer.wrap(view, "_draw_hud", "hud")
    timer.wrap(session_view, "update_effects", "effects")
    timer.wrap(app.scene, "update", "scene")
    timer.wrap(app.audio, "update", "audio")
    return timer


def _measure(app, frames: int, timers: Timers) -> dict:
    """Per-frame figures of ``frames`` task manager steps."""
    figures: dict[str, list] = {key: [] for key in ("app_ms", "steps_ms", "render_ms",
                                                    "frame_ms", "draw_cpu_ms", "steps",
                                                    "tanks_in_view", "draw_parts")}
    simulation = app.session.simulation
    app_timer, render_timer = timers.app, timers.render
    for _ in range(frames):
        app_timer.last_ms = render_timer.last_ms = 0.0
        timers.draw_cpu.clear()
        timers.parts.clear()
        time_s = simulation.time_s
        started = time.perf_counter()
        app.taskMgr.step()
        figures["frame_ms"].append((time.perf_counter() - started) * 1000.0)
        figures["app_ms"].append(app_timer.last_ms)
        figures["render_ms"].append(render_timer.last_ms)
        figures["draw_cpu_ms"].append(timers.draw_cpu.take()["draw"])
        steps = round((simulation.time_s - time_s) / simulation.step_s)
        figures["steps_ms"].append(app.step_ms * steps if steps else 0.0)
        figures["steps"].append(steps)
        parts = timers.parts.take()
        parts["other"] = figures["app_ms"][-1] - figures["steps_ms"][-1] - sum(parts.values())
        figures["draw_parts"].append(parts)
        figures["tanks_in_view"].append(_tanks_in_view(app))
    return figures


def blocks(frames: int) -> list[int]:
    """``frames`` measured frames as the blocks they are taken in, each followed by as many
    static frames: :data:`STATIC_BLOCK_FRAMES` each, the last one what is left."""
    whole, rest = divmod(frames, STATIC_BLOCK_FRAMES)
    return [STATIC_BLOCK_FRAMES] * whole + ([rest] if rest else [])


def _static_ms(app, frames: int) -> list[float]:
    """``renderFrame()`` alone, ``frames`` times: the same scene graph, nothing updated."""
    times = []
    for _ in range(frames):
        started = time.perf_counter()
        app.graphicsEngine.renderFrame()
        times.append((time.perf_counter() - started) * 1000.0)
    return times


def _summary(values) -> dict:
    return {"median": round(float(np.median(values)), 3),
            "p95": round(float(np.percentile(values, PERCENTILE)), 3)}


def _profile_text(profiler: cProfile.Profile) -> str:
    """The functions that took longest, with what they called, then by their own time."""
    stream = io.StringIO()
    for order in ("cumulative", "tottime"):
        stream.write(f"==== top {PROFILE_LINES} by {order} time ====\n")
        pstats.Stats(profiler, stream=stream).sort_stats(order).print_stats(PROFILE_LINES)
    return stream.getvalue()


def run(bots: int = DEFAULT_BOTS, tanks: int | None = None, frames: int = DEFAULT_FRAMES,
        size: tuple[int, int] = DEFAULT_SIZE, warmup: int = DEFAULT_WARMUP_FRAMES,
        profile: Path | None = None) -> dict:
    """Time ``frames`` frames of the game after ``warmup``, and as many static frames (in
    turns, :func:`blocks`).
    ``tanks``: that many tanks set in the camera's view (``bots`` is then ``tanks - 1``).
    ``profile``: write a cProfile of the app's frame task over the measured frames there
    (the profiler slows that work: the figures of such a run are not comparable)."""
    if tanks is not None:
        bots = tanks - 1
    app = build_app(size, bots)
    try:
        if tanks is not None:
            arrange_in_view(app)
        app_timer = TaskTimer(_task(app, function=app._frame))
        timers = Timers(app_timer, TaskTimer(_task(app, name="igLoop")),
                        draw_processor(app), draw_parts(app))
        _measure(app, warmup, timers)
        tally = _Tally(app)
        if profile is not None:
            app_timer.profiler = cProfile.Profile()
        figures: dict[str, list] = {"static_ms": []}
        for block in blocks(frames):
            for key, values in _measure(app, block, timers).items():
                figures.setdefault(key, []).extend(values)
            figures["static_ms"] += _static_ms(app, block)
        happened = tally.since()
        if profile is not None:
            Path(profile).write_text(_profile_text(app_timer.profiler), encoding="utf-8")
        parameters = {"bots": bots, "tanks": bots + 1, "arranged_in_view": tanks is not None,
                      "frames": frames, "warmup_frames": warmup, "size": f"{size[0]}x{size[1]}",
                      "player_ai": PLAYER_AI, "quality": app.user.quality, "gl_finish": True,
                      "profiled": profile is not None}
    finally:
        app.destroy()
    return {"parameters": parameters, **_figures_report(figures), **happened}


def _figures_report(figures: dict) -> dict:
    """Median and 95th percentile of each timing, their ratio, the tanks seen, steps taken."""
    report = {key: _summary(figures[key]) for key in ("app_ms", "steps_ms", "render_ms",
                                                      "frame_ms", "static_ms", "draw_cpu_ms")}
    report["frame_over_static"] = round(report["frame_ms"]["median"]
                                        / report["static_ms"]["median"], 2)
    report["tanks_in_view"] = {"median": float(np.median(figures["tanks_in_view"])),
                               "fewest": int(min(figures["tanks_in_view"]))}
    report["steps"] = int(sum(figures["steps"]))
    report["draw_ms"] = {part: _summary([frame[part] for frame in figures["draw_parts"]])
                         for part in (*DRAW_PARTS, "other")}
    return report


class _Tally:
    """What happened from now on: the game's events and the effects' bursts."""

    def __init__(self, app):
        self.effects = app.session_view.effects
        self.effects_before = Counter(self.effects.counts)
        self.events: Counter = Counter()
        app.loop.subscribe(self._on_events)

    def _on_events(self, events) -> None:
        self.events.update(event.TYPE for event in events if event.TYPE in WATCHED_EVENTS)

    def since(self) -> dict:
        return {"events": {name: self.events[name] for name in WATCHED_EVENTS},
                "effects": dict(sorted((Counter(self.effects.counts)
                                        - self.effects_before).items()))}


def run_in_child(bots: int = DEFAULT_BOTS, tanks: int | None = None,
                 frames: int = DEFAULT_FRAMES, size: tuple[int, int] = DEFAULT_SIZE,
                 warmup: int = DEFAULT_WARMUP_FRAMES) -> dict:
    """:func:`run` in a child process (``python -m bench frame --json``): its window stays
    out of this process, which may open one of its own."""
    arguments = [sys.executable, "-m", "bench", "frame", "--json", "--frames", str(frames),
                 "--warmup", str(warmup), "--size", f"{size[0]}x{size[1]}"]
    arguments += ["--tanks", str(tanks)] if tanks is not None else ["--bots", str(bots)]
    root = str(Path(__file__).resolve().parents[1])
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [root, environment.get("PYTHONPATH")]))
    done = subprocess.run(arguments, capture_output=True, text=True, env=environment,
                          timeout=CHILD_TIMEOUT_S)
    if done.returncode != 0:
        raise RuntimeError(f"the frame benchmark failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout)["results"]["frame"]


def table(report: dict) -> str:
    parameters = report["parameters"]
    rows = [f"frame: {parameters['tanks']} tanks ({report['tanks_in_view']['median']:g} in "
            f"view), {parameters['size']}, {parameters['frames']} frames after "
            f"{parameters['warmup_frames']} warm-up, quality {parameters['quality']}",
            f"  {'':<14}{'median ms':>10}{'p95 ms':>10}"]
    for key, label in (("app_ms", "app"), ("steps_ms", "  of it steps"),
                       ("draw_cpu_ms", "draw (cpu)"), ("render_ms", "render"),
                       ("frame_ms", "frame"), ("static_ms", "static")):
        rows.append(f"  {label:<14}{report[key]['median']:>10.2f}{report[key]['p95']:>10.2f}")
    rows.append("  of app beside the steps, median ms: " + ", ".join(
        f"{part} {summary['median']:.2f}" for part, summary in report["draw_ms"].items()))
    rows.append(f"  frame / static {report['frame_over_static']:.2f}x; events {report['events']}")
    return "\n".join(rows)
