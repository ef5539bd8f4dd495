"""The windowed (or offscreen) game: a ShowBase that wires systems together and owns the loop.

Each rendered frame: the fixed-step clock says how many physics steps are due,
the simulation takes them (reading controls, writing telemetry; each step's events
spawn particles and HUD messages), then every view draws the state blended
between the last two steps, the HUD and, when on (F3), the suspension overlay.

Esc opens the pause menu: the fixed-step clock stops (no physics step is taken)
until it closes. Scripted and offscreen runs (``--inputs``, ``--seconds``,
``--offscreen``) never open it: there Esc leaves at once, as it always did.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from direct.showbase.ShowBase import ShowBase
from panda3d.core import ClockObject, Filename, Point2, Point3, loadPrcFileData

from game.battle import Battle
from game.audio import GameAudio, PandaSoundPlayer
from game.camera import GUNSIGHT, ChaseCamera
from game.combat_view import CombatView
from game.config import GameConfig
from game.controls import ScriptedInputs
from game.debug_overlay import DebugOverlay
from game.effects import Effects
from game.errors import UserError
from game.pad_input import CombinedInput, GamepadInput, PandaPads
from game.hud import Hud, read_hud_state
from game.keyboard import KeyboardInput, mouse_aim
from game.reticle import Reticle
from game.scene import DesertScene
from game.settings import UserSettings
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
                 seconds: float | None, battle: Battle | None = None, make_game=None,
                 debug_rays: bool = False, settings: UserSettings | None = None):
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
        self.battle = battle
        self._make_game = make_game
        """() -> (simulation, battle): a fresh game for the menu's Restart."""
        self.scripted = offscreen or inputs is not None or seconds is not None
        """No pause menu: nothing may wait for a person who is not there."""
        self.settings = settings
        self.user = (settings.current if settings is not None
                     else config.game.user_settings)
        self.paused = False
        self.frames = 0
        self.step_ms: float | None = None
        """Mean wall time of the last frame's physics steps (the overlay shows it)."""
        self._impact_ws = None
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
        self.effects = self._add(Effects(simulation, game.effects, self.render, simulation.seed,
                                         self.user.quality))
        self.effects.particles.set_haze(scene_spec.fog_colour, scene_spec.fog_density_per_m)
        self._particle_projection = None
        audio_spec = config.game.audio
        self.audio = self._add(GameAudio(simulation, PandaSoundPlayer(self, audio_spec),
                                         audio_spec))
        self._throttle = 0.0

        def camera_ray(start, end):
            # Whoever the player drives now (the swap can change it at any step), in the
            # game now running (a restart makes a new one).
            sim = self.simulation
            hit = sim.world.ray_closest(start, end, exclude=sim.player.body)
            return None if hit is None else hit.position_ws

        self.chase_camera = self._add(ChaseCamera(self.camera, simulation.terrain, camera_spec,
                                                  camera_ray))
        self.reticle = self._add(Reticle(self.aspect2d, camera_spec.reticle_colour,
                                         camera_spec.reticle_size,
                                         camera_spec.reticle_thickness_px))
        corners = {"center": self.aspect2d, "bottom_left": self.a2dBottomLeft,
                   "top_right": self.a2dTopRight, "top_center": self.a2dTopCenter}
        self.hud = self._add(Hud(corners, game.hud))
        self.overlay = self._add(DebugOverlay(self.render, self.a2dTopLeft, simulation,
                                              game.debug_overlay, visible=debug_rays))
        self.keyboard = self._add(KeyboardInput(self, config.controls.keyboard))
        self.gamepad = None
        if config.controls.gamepad.enabled and not self.scripted:
            # Hot plug: a pad connected mid-game drives at once; unplugging the one in use
            # pauses the game (the menu opens) rather than leaving the tank driverless.
            pads = PandaPads(self)
            self.gamepad = self._add(GamepadInput(pads, config.controls.gamepad,
                                                  on_unplug=self.pause))
            pads.listen(self.gamepad)
        self.player_input = CombinedInput(self.keyboard, self.gamepad)
        self._mouse = None
        bindings = config.controls.keyboard
        for key in bindings.quit:
            self.accept(key, self.finish)
        for key in bindings.pause:
            self.accept(key, self.finish if self.scripted else self.toggle_pause)
        for key in bindings.debug_overlay:
            self.accept(key, self.overlay.toggle)
        self.menu = None
        if not self.scripted:
            from game.menu import PauseMenu
            self.menu = self._add(PauseMenu(
                self.aspect2d, game.menu, settings or UserSettings(game.user_settings),
                bindings, on_resume=self.resume, on_restart=self.restart_game,
                on_quit=self.finish, on_settings=self.apply_settings))
        self.apply_settings(self.user)
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

    # ----- pause menu, settings, restart ------------------------------------------------

    def toggle_pause(self) -> None:
        if self.paused:
            self.resume()
        else:
            self.pause()

    def pause(self) -> None:
        if self.menu is None:  # scripted or offscreen: never wait on a menu
            return
        self.paused = True
        self.menu.open()

    def resume(self) -> None:
        self.paused = False
        if self.menu is not None:
            self.menu.close()

    def apply_settings(self, settings) -> None:
        """Use the player's settings now: volume, chase field of view, mouse axes, quality."""
        self.user = settings
        for manager in [*(getattr(self, "sfxManagerList", None) or []),
                        getattr(self, "musicManager", None)]:
            if manager is not None:
                manager.setVolume(settings.volume)
        self.effects.set_quality(settings.quality)
        self._fov_deg = None  # set again on the next draw

    def restart_game(self) -> None:
        """A fresh game (same map, seed, vehicle and bots): views rebuilt, clock reset."""
        if self._make_game is None:
            self.resume()
            return
        old = self.simulation
        for view in self.vehicle_views.values():
            view.destroy()
        self.vehicle_views.clear()
        self.player_view = None
        self.simulation, self.battle = self._make_game()
        for system in (self.combat_view, self.effects, self.overlay, self.audio):
            system.simulation = self.simulation
        self.effects.clear()
        self.fixed_clock = FixedStepClock(self.simulation.step_s,
                                          self.game_config.game.simulation.max_steps_per_frame)
        self._impact_ws = None
        old.destroy()
        self.hud.message("Restarted")
        self.resume()
        self._draw(frame_s=0.0)

    # ----- the frame ---------------------------------------------------------------------

    def _frame(self, task):
        frame_s = self.clock.getDt()
        if self.paused:  # the fixed-step clock stands still: no step, nothing ages
            if self.gamepad is not None:
                self.gamepad.controls()  # read the pad only for its Start button
                if self.gamepad.take_pause_press():
                    self.resume()
            self._draw(0.0)
            return task.cont
        steps = self.fixed_clock.advance(frame_s)
        player = self.simulation.player.name
        started = time.perf_counter()
        for _ in range(steps):
            controls = (self.inputs.controls_at(self.simulation.time_s) if self.inputs
                        else self.player_input.controls(self._mouse_aim(),
                                                        self.simulation.player.gear))
            self._throttle = controls.throttle
            events = self.simulation.step(controls)
            if self.telemetry is not None:
                self.telemetry.write(telemetry_record(self.simulation, events))
            self.effects.on_events(events)
            self.audio.on_events(events)
            self.hud.on_events(events, player)
        if self.gamepad is not None and self.gamepad.take_pause_press():
            self.pause()
        if steps:
            self.step_ms = (time.perf_counter() - started) * 1000.0 / steps
        self.audio.update(0.0 if self.paused else self._throttle)
        self._draw(frame_s)
        if self.seconds is not None and self.simulation.time_s >= self.seconds:
            self.finish()
        return task.cont

    def _camera_input(self) -> None:
        camera = self.chase_camera
        pad_presses = self.gamepad.take_camera_presses() if self.gamepad is not None else []
        for action in self.keyboard.take_camera_presses() + pad_presses:
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
            camera.orbit((mouse[0] - self._mouse[0]) / 2.0 * (-1 if self.user.invert_x else 1),
                         (mouse[1] - self._mouse[1]) / 2.0 * (-1 if self.user.invert_y else 1))
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
        x, y = mouse_aim(spec, point.getX(), point.getY())
        return (-x if self.user.invert_x else x, -y if self.user.invert_y else y)

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
        # The gun sight magnifies; a car's driver's seat (no gun) sees as the chase view does,
        # at the player's own field of view.
        fov = (self.chase_camera.field_of_view_deg if sighting and player.has_gun
               else self.user.field_of_view_deg)
        if fov != self._fov_deg:
            self.camLens.setMinFov(fov)
            self._fov_deg = fov
        self.reticle.show(sighting and player.has_gun)
        player.show_gun(not sighting)
        eye = np.array(self.camera.getPos(self.render))
        self.combat_view.update(alpha, eye)
        self.scene.update(player.position)
        self._draw_effects(frame_s, eye)
        self._draw_hud(frame_s)
        self.overlay.update(self.step_ms)
        self.frames += 1

    def _draw_effects(self, frame_s: float, eye: np.ndarray) -> None:
        lens = (self.camLens.getFov()[1], self.camLens.getAspectRatio())
        if lens != self._particle_projection:  # zoom, the gun sight, a resized window
            self.effects.particles.set_projection(*lens)
            self._particle_projection = lens
        frame_s = min(max(float(frame_s), 0.0), self.game_config.game.camera.max_frame_s)
        self.effects.update(frame_s, eye)

    def _draw_hud(self, frame_s: float) -> None:
        simulation, spec = self.simulation, self.game_config.game.hud
        player = simulation.player
        if player.aim is not None and self.frames % spec.crosshair_every_frames == 0:
            impact = simulation.predicted_impact(player, spec.crosshair_max_flight_s)
            if impact is None:  # nothing within reach: where the barrel points, far off
                from physics.gun import gun_axes
                muzzle, barrel = gun_axes(player.current, player.spec.gun, player.aim)
                impact = muzzle + barrel * self.game_config.game.camera.far_clip_m * 0.5
            self._impact_ws = np.asarray(impact, dtype=float)
        self.hud.set_crosshair(self._project(self._impact_ws))
        self.hud.update(read_hud_state(simulation, self.battle), frame_s)

    def _project(self, point_ws) -> tuple[float, float] | None:
        """A world point on aspect2d, or None when it is behind the camera or off screen."""
        if point_ws is None or self.cam is None:
            return None
        local = self.cam.getRelativePoint(self.render, Point3(*point_ws))
        screen = Point2()
        if not self.camLens.project(local, screen):
            return None
        on_2d = self.aspect2d.getRelativePoint(self.render2d, Point3(screen[0], 0.0, screen[1]))
        return float(on_2d[0]), float(on_2d[2])

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
                 offscreen: bool, seconds: float | None, screenshot: Path | None,
                 debug_rays: bool = False, new_recorder=None, on_quit=None) -> int:
    """Run the game in a window (or offscreen). ``new_recorder()`` gives each game (and each
    restart) a replay recorder; ``on_quit(recorder)`` gets the last game's when it ends."""
    def make_game():
        simulation = Simulation(config, map_choice, seed, player_vehicle=player_vehicle)
        simulation.recorder = new_recorder() if new_recorder else None
        return simulation, Battle(simulation, config.game.battle, bots)

    simulation, battle = make_game()
    # A person's own settings only in an interactive game: scripted and offscreen runs
    # (tests, screenshots) look the same on every machine.
    interactive = not offscreen and inputs is None and seconds is None
    settings = UserSettings(config.game.user_settings) if interactive else None
    app = None
    try:
        app = TankBattleApp(config, simulation, offscreen=offscreen, inputs=inputs,
                            telemetry=telemetry, seconds=seconds, battle=battle,
                            make_game=make_game, debug_rays=debug_rays, settings=settings)
        app.run()
        if screenshot is not None:
            app.save_screenshot(screenshot)
    finally:
        if app is not None:
            simulation = app.simulation  # a restart replaced the first one
            app.destroy()
        recorder = simulation.recorder
        simulation.destroy()
        if on_quit is not None and recorder is not None:
            on_quit(recorder)
    return 0
