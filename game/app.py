"""The windowed (or offscreen) game: a ShowBase that wires systems together and owns the loop.

Each rendered frame: the fixed-step clock says how many physics steps are due,
the simulation takes them (reading controls, writing telemetry), then every
view draws the state blended between the last two steps.
"""

from __future__ import annotations

from pathlib import Path

from direct.showbase.ShowBase import ShowBase
from panda3d.core import ClockObject, Filename, WindowProperties, loadPrcFileData

from game.camera import ChaseCamera
from game.config import GameConfig
from game.controls import ScriptedInputs
from game.errors import UserError
from game.keyboard import KeyboardInput
from game.scene import DesertScene
from game.simulation import Simulation
from game.telemetry import TelemetryWriter, telemetry_record
from game.vehicle_view import VehicleView
from physics.fixed_step import FixedStepClock
from physics.terrain import MapChoice


def _configure_panda(config: GameConfig, offscreen: bool) -> None:
    window = config.game.window
    loadPrcFileData("tank-battle", f"""
        window-title {window.title}
        win-size {window.width_px} {window.height_px}
        window-type {'offscreen' if offscreen else 'onscreen'}
        framebuffer-multisample 1
        multisamples 4
        sync-video {'false' if offscreen else 'true'}
        {'audio-library-name null' if offscreen else ''}
    """)


class TankBattleApp(ShowBase):
    """Wires the simulation to its views and runs the frame loop."""

    def __init__(self, config: GameConfig, simulation: Simulation, *, offscreen: bool,
                 inputs: ScriptedInputs | None, telemetry: TelemetryWriter | None,
                 seconds: float | None):
        _configure_panda(config, offscreen)
        self._systems: list = []
        """Everything with a destroy(), in the order made; taken down in reverse."""
        try:
            super().__init__()
        except Exception as error:  # ShowBase raises a bare Exception when no window opens
            raise UserError("window", None, "a display to open the game window on "
                            f"({error} Use --offscreen or --headless without one.)") from None
        self.simulation = simulation
        self.inputs = inputs
        self.telemetry = telemetry
        self.seconds = seconds
        self.offscreen = offscreen
        self.fixed_clock = FixedStepClock(simulation.step_s,
                                          config.game.simulation.max_steps_per_frame)
        if offscreen:  # frames advance exactly one step's time, as fast as they render
            self.clock.setMode(ClockObject.MNonRealTime)
            self.clock.setFrameRate(config.game.simulation.step_hz)
        scene_spec = config.game.scene
        self.setBackgroundColor(*scene_spec.sky_colour, 1.0)
        self.disableMouse()
        camera_spec = config.game.camera
        self.camLens.setMinFov(camera_spec.field_of_view_deg)
        self.camLens.setNearFar(camera_spec.near_clip_m, camera_spec.far_clip_m)

        self.scene = self._add(DesertScene(self.render, simulation.terrain, scene_spec))
        self.vehicle_views = [self._add(VehicleView(self.render, vehicle,
                                                    scene_spec.vehicle_colour,
                                                    scene_spec.track_colour))
                              for vehicle in simulation.vehicles]
        self.player_view = self.vehicle_views[0]
        self.chase_camera = self._add(ChaseCamera(self.camera, simulation.terrain, camera_spec))
        self.keyboard = self._add(KeyboardInput(self, config.controls.keyboard))
        for key in config.controls.keyboard.quit:
            self.accept(key, self.finish)
        self.taskMgr.add(self._frame, "tank-battle-frame")
        self._draw(frame_s=0.0)

    def _add(self, system):
        self._systems.append(system)
        return system

    def _frame(self, task):
        steps = self.fixed_clock.advance(self.clock.getDt())
        for _ in range(steps):
            controls = (self.inputs.controls_at(self.simulation.time_s) if self.inputs
                        else self.keyboard.controls())
            events = self.simulation.step(controls)
            if self.telemetry is not None:
                self.telemetry.write(telemetry_record(self.simulation, events))
        self._draw(self.clock.getDt())
        if self.seconds is not None and self.simulation.time_s >= self.seconds:
            self.finish()
        return task.cont

    def _draw(self, frame_s: float) -> None:
        alpha = self.fixed_clock.alpha
        for view in self.vehicle_views:
            view.update(alpha)
        self.chase_camera.update(frame_s, self.player_view.position, self.player_view.rotation)

    def save_screenshot(self, path: Path) -> None:
        self.graphicsEngine.renderFrame()
        if not self.win.saveScreenshot(Filename.fromOsSpecific(str(path))):
            raise UserError(path, None, "a writable PNG file")

    def finish(self) -> None:
        """Leave the loop at the end of this frame."""
        self.taskMgr.stop()

    def destroy(self) -> None:
        while self._systems:
            self._systems.pop().destroy()
        super().destroy()


def run_windowed(config: GameConfig, map_choice: MapChoice, seed: int, player_vehicle: str, *,
                 inputs: ScriptedInputs | None, telemetry: TelemetryWriter | None,
                 offscreen: bool, seconds: float | None, screenshot: Path | None) -> int:
    simulation = Simulation(config, map_choice, seed, player_vehicle=player_vehicle)
    app = None
    try:
        app = TankBattleApp(config, simulation, offscreen=offscreen, inputs=inputs,
                            telemetry=telemetry, seconds=seconds)
        app.run()
        if screenshot is not None:
            app.save_screenshot(screenshot)
    finally:
        if app is not None:
            app.destroy()
        simulation.destroy()
    return 0
