"""The windowed (or offscreen) game: a ShowBase that wires systems together and owns the loop.

Each rendered frame: the fixed-step clock says how many physics steps are due,
the simulation takes them (reading controls, writing telemetry), then every
view draws the state blended between the last two steps.
"""

from __future__ import annotations

from pathlib import Path

from direct.showbase.ShowBase import ShowBase
from panda3d.core import ClockObject, Filename, WindowProperties, loadPrcFileData

from game.battle import Battle
from game.camera import GUNSIGHT, ChaseCamera
from game.config import GameConfig
from game.controls import ScriptedInputs
from game.errors import UserError
from game.keyboard import KeyboardInput
from game.reticle import Reticle
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
        framebuffer-multisample {1 if window.multisamples else 0}
        multisamples {window.multisamples}
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
        self.game_config = config
        self.inputs = inputs
        self.telemetry = telemetry
        self.seconds = seconds
        self.offscreen = offscreen
        self.fixed_clock = FixedStepClock(simulation.step_s,
                                          config.game.simulation.max_steps_per_frame)
        if offscreen:  # frames advance exactly one step's time, as fast as they render
            self.clock.setMode(ClockObject.MNonRealTime)
            self.clock.setFrameRate(config.game.simulation.step_hz)
        game = config.game
        scene_spec = game.scene
        self.setBackgroundColor(*scene_spec.fog_colour, 1.0)
        self.disableMouse()
        camera_spec = game.camera
        self.camLens.setNearFar(camera_spec.near_clip_m, camera_spec.far_clip_m)
        self._fov_deg = None

        self.scene = self._add(DesertScene(self, self.render, self.camera, simulation.terrain,
                                           simulation.rocks, scene_spec, game.sand, game.shadows,
                                           game.terrain_view))
        self.vehicle_views = [self._add(VehicleView(self.render, vehicle, game.tank_rig,
                                                    scene_spec.vehicle_colour,
                                                    scene_spec.track_colour))
                              for vehicle in simulation.vehicles]
        self.player_view = self.vehicle_views[0]
        player_body = simulation.player.body

        def camera_ray(start, end):
            hit = simulation.world.ray_closest(start, end, exclude=player_body)
            return None if hit is None else hit.position_ws

        self.chase_camera = self._add(ChaseCamera(self.camera, simulation.terrain, camera_spec,
                                                  camera_ray))
        self.reticle = self._add(Reticle(self.aspect2d, camera_spec.reticle_colour,
                                         camera_spec.reticle_size,
                                         camera_spec.reticle_thickness_px))
        self.keyboard = self._add(KeyboardInput(self, config.controls.keyboard))
        self._mouse = None
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

    def _camera_input(self) -> None:
        camera = self.chase_camera
        for action in self.keyboard.take_camera_presses():
            if action == "camera_view":
                camera.toggle_view()
            elif action == "camera_zoom_in":
                camera.zoom_by(1.0)
            elif action == "camera_zoom_out":
                camera.zoom_by(-1.0)
        held = self.keyboard.action_held("camera_orbit")
        camera.hold_orbit(held)
        watcher = self.mouseWatcherNode
        mouse = None
        if watcher is not None and watcher.hasMouse():
            point = watcher.getMouse()
            mouse = (point.getX(), point.getY())
        if held and mouse is not None and self._mouse is not None:
            # Mouse coordinates run -1..1 across the window: 2 units to a window width.
            camera.orbit((mouse[0] - self._mouse[0]) / 2.0, (mouse[1] - self._mouse[1]) / 2.0)
        self._mouse = mouse

    def _draw(self, frame_s: float) -> None:
        alpha = self.fixed_clock.alpha
        for view in self.vehicle_views:
            view.update(alpha, frame_s)
        self._camera_input()
        player = self.player_view
        gun_pose = player.gun_pose_ws(self.game_config.game.camera.gunsight_offset_m)
        self.chase_camera.update(frame_s, player.position, player.rotation, player.length_m,
                                 gun_pose)
        fov = self.chase_camera.field_of_view_deg
        if fov != self._fov_deg:
            self.camLens.setMinFov(fov)
            self._fov_deg = fov
        sighting = self.chase_camera.mode == GUNSIGHT
        self.reticle.show(sighting)
        player.show_gun(not sighting)
        self.scene.update(player.position)

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


def run_windowed(config: GameConfig, map_choice: MapChoice, seed: int, player_vehicle: str,
                 bots: int, *, inputs: ScriptedInputs | None, telemetry: TelemetryWriter | None,
                 offscreen: bool, seconds: float | None, screenshot: Path | None) -> int:
    simulation = Simulation(config, map_choice, seed, player_vehicle=player_vehicle)
    Battle(simulation, config.game.battle, bots)
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
