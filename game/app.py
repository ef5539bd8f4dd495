"""The windowed (or offscreen) game: a ShowBase that wires systems together and owns the loop.

Each rendered frame: the fixed-step clock says how many physics steps are due,
the simulation takes them (reading controls, writing telemetry), then every
view draws the state blended between the last two steps.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from direct.showbase.ShowBase import ShowBase
from panda3d.core import ClockObject, Filename, WindowProperties, loadPrcFileData

from game.battle import Battle
from game.camera import GUNSIGHT, ChaseCamera
from game.combat_view import CombatView
from game.config import GameConfig
from game.controls import ScriptedInputs
from game.errors import UserError
from game.keyboard import KeyboardInput, mouse_aim
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
        self.vehicle_views: dict[int, VehicleView] = {}
        """One view per vehicle in the simulation, by id(vehicle); made as vehicles appear."""
        self.player_view: VehicleView | None = None
        self._sync_views()
        self.combat_view = self._add(CombatView(self.render, simulation, game.combat_view))

        def camera_ray(start, end):
            # Whoever the player drives now: the swap can change it at any step.
            hit = simulation.world.ray_closest(start, end, exclude=simulation.player.body)
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

    def _sync_views(self) -> None:
        """A view for every vehicle in the simulation (spawned mid-game too), none for
        those gone; the player's view follows ``simulation.player``."""
        vehicles = {id(vehicle): vehicle for vehicle in self.simulation.vehicles}
        for key in [key for key in self.vehicle_views if key not in vehicles]:
            self.vehicle_views.pop(key).destroy()
        for key, vehicle in vehicles.items():
            if key not in self.vehicle_views:
                view = VehicleView(self.render, vehicle, self.game_config.game,
                                   self.simulation.step_s)
                view.update(self.fixed_clock.alpha)
                self.vehicle_views[key] = view
        player = self.vehicle_views[id(self.simulation.player)]
        if player is not self.player_view:
            if self.player_view is not None:
                self.player_view.show_gun(True)
            self.player_view = player

    def _frame(self, task):
        steps = self.fixed_clock.advance(self.clock.getDt())
        for _ in range(steps):
            controls = (self.inputs.controls_at(self.simulation.time_s) if self.inputs
                        else self.keyboard.controls(self._mouse_aim()))
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

    def _mouse_aim(self) -> tuple[float, float] | None:
        """In the gun sight, the mouse's offset from the window's centre aims the gun."""
        spec = self.game_config.controls.mouse
        if (not spec.gunsight_aim or self.chase_camera.mode != GUNSIGHT
                or self.keyboard.action_held("camera_orbit")):
            return None
        watcher = self.mouseWatcherNode
        if watcher is None or not watcher.hasMouse():
            return None
        point = watcher.getMouse()
        return mouse_aim(spec, point.getX(), point.getY())

    def _draw(self, frame_s: float) -> None:
        alpha = self.fixed_clock.alpha
        self._sync_views()
        for view in self.vehicle_views.values():
            view.update(alpha, frame_s)
        self._camera_input()
        player = self.player_view
        gun_pose = player.gun_pose_ws(self.game_config.game.camera.gunsight_offset_m)
        self.chase_camera.update(frame_s, player.position, player.rotation, player.length_m,
                                 gun_pose)
        sighting = self.chase_camera.mode == GUNSIGHT
        # The gun sight magnifies; a car's driver's seat (no gun) sees as the chase view does.
        fov = (self.chase_camera.field_of_view_deg if player.has_gun
               else self.game_config.game.camera.field_of_view_deg)
        if fov != self._fov_deg:
            self.camLens.setMinFov(fov)
            self._fov_deg = fov
        self.reticle.show(sighting and player.has_gun)
        player.show_gun(not sighting)
        self.combat_view.update(alpha, np.array(self.camera.getPos(self.render)))
        self.scene.update(player.position)

    def save_screenshot(self, path: Path) -> None:
        self.graphicsEngine.renderFrame()
        if not self.win.saveScreenshot(Filename.fromOsSpecific(str(path))):
            raise UserError(path, None, "a writable PNG file")

    def finish(self) -> None:
        """Leave the loop at the end of this frame."""
        self.taskMgr.stop()

    def destroy(self) -> None:
        for view in self.vehicle_views.values():
            view.destroy()
        self.vehicle_views.clear()
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
