"""The windowed (or offscreen) game: a ShowBase that wires systems together and owns the loop.

Each rendered frame: the fixed-step clock says how many physics steps are due,
the simulation takes them (reading controls, writing telemetry; each step's events
spawn particles and HUD messages), then every view draws the state blended
between the last two steps, the HUD and, when on (F3), the suspension overlay.

With ``--players 2`` the window is split: each player has a view of their own
(:mod:`game.view.player_view`), player 2 drives a second vehicle with a pad
(:mod:`game.input.player_input`).

Esc opens the pause menu: the fixed-step clock stops (no physics step is taken)
until it closes. Scripted and offscreen runs (``--inputs``, ``--seconds``,
``--offscreen``) never open it: there Esc leaves at once, as it always did. Keys and pad
controls rebound on its Controls page are used at once
(:meth:`TankBattleApp.apply_bindings`).
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from direct.showbase.DirectObject import DirectObject
from direct.showbase.ShowBase import ShowBase
from panda3d.core import ClockObject, Filename, loadPrcFileData

from game.sim.battle import Battle
from game.audio.sounds import GameAudio, PandaSoundPlayer
from game.view.combat_view import CombatView
from game.config import GameConfig
from game.sim.controls import ScriptedInputs
from game.view.debug_overlay import DebugOverlay
from game.view.effects import Effects
from game.errors import UserError
from game.input.gamepad import GamepadSpec
from game.input.keyboard import ActionKeys, KeyboardSpec, PandaKeyCapture
from game.sim.local_players import SECOND_PLAYER, add_second_player
from game.input.pad_input import PadButtonCapture, PandaPads
from game.input.player_input import LocalInputs, mouse_in_window
from game.view.player_view import (SECOND_VIEW_MASK, Divider, PlayerView, extra_screen, main_screen,
                              player_regions)
from game.input.rebinding import UserBindings
from game.view.scene import DesertScene
from game.settings import UserSettings
from game.view.shadows import MAIN_CAMERA_MASK
from game.sim.simulation import Simulation
from game.sim.telemetry import TelemetryWriter, telemetry_record
from game.view.vehicle_view import VehicleView
from physics.model.stepping import FixedStepClock
from physics.model.terrain import MapChoice


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
                 debug_rays: bool = False, settings: UserSettings | None = None,
                 players: int = 1, bindings: UserBindings | None = None):
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
        self.scripted_inputs = inputs
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
        self.step_ms: float | None = None
        """Mean wall time of the last frame's physics steps (the overlay shows it)."""
        self.fixed_clock = FixedStepClock(simulation.step_s,
                                          config.game.simulation.max_steps_per_frame)
        if offscreen:  # frames advance exactly one step's time, as fast as they render
            self.clock.setMode(ClockObject.MNonRealTime)
            self.clock.setFrameRate(config.game.simulation.step_hz)
        game = config.game
        scene_spec = game.scene
        self.setBackgroundColor(*scene_spec.fog_colour, 1.0)
        self.disableMouse()

        self.scene = self._add(DesertScene(self, self.render, self.camera, simulation.terrain,
                                           simulation.rocks, scene_spec, game.sand, game.shadows,
                                           game.terrain_view))
        self.vehicle_views: dict[int, VehicleView] = {}
        """One view per vehicle in the simulation, by id(vehicle); made as vehicles appear."""
        self.views = self._make_views(players)
        """Each local player's camera, HUD and reticle, player 1 first."""
        self._followed: list[VehicleView | None] = [None] * len(self.views)
        self._sync_views()
        self.combat_view = self._add(CombatView(self.render, simulation, game.combat_view))
        self.effects = self._add(Effects(simulation, game.effects, self.render, simulation.seed,
                                         self.user.quality))
        self.effects.particles.set_haze(scene_spec.fog_colour, scene_spec.fog_density_per_m)
        self._particle_projection = None
        audio_spec = config.game.audio
        self.sounds = PandaSoundPlayer(self, audio_spec)
        self.audio = self._add(GameAudio(simulation, self.sounds, audio_spec))
        self._throttle = 0.0
        self.overlay = self._add(DebugOverlay(self.render, self.a2dTopLeft, simulation,
                                              game.debug_overlay, visible=debug_rays))
        # Hot plug: a pad connected mid-game drives at once; unplugging one in use pauses the
        # game (the menu opens) rather than leaving a vehicle driverless.
        controls = (replace(config.controls, keyboard=bindings.current,
                            gamepad=bindings.gamepad) if bindings is not None
                    else config.controls)
        pads = None if self.scripted else PandaPads(self)
        self.player_inputs = self._add(LocalInputs(
            self, controls, self.views, pad_source=pads,
            mouse=lambda: mouse_in_window(self), user=lambda: self.user, on_unplug=self.pause))
        self.menu = None
        # The app's own keys hold off while the menu waits for a key to bind (Esc cancels).
        self.action_keys = self._add(ActionKeys(
            DirectObject(), {"quit": self.finish, "debug_overlay": self.overlay.toggle,
                             "pause": self.finish if self.scripted else self.toggle_pause},
            controls.keyboard, blocked=lambda: self.menu is not None and self.menu.capturing))
        if not self.scripted:
            from game.view.menu import PauseMenu
            capture = (PandaKeyCapture(self.buttonThrowers[0].node(), DirectObject())
                       if self.buttonThrowers else None)
            self.menu = self._add(PauseMenu(
                self.aspect2d, game.menu, settings or UserSettings(game.user_settings),
                controls, on_resume=self.resume, on_restart=self.restart_game,
                on_quit=self.finish, on_settings=self.apply_settings, sounds=self.sounds,
                bindings=bindings or UserBindings(config.controls.keyboard,
                                                  config.controls.gamepad),
                key_capture=capture, pad_capture=PadButtonCapture(pads),
                on_bindings=self.apply_bindings))
        self.apply_settings(self.user)
        self.taskMgr.add(self._frame, "tank-battle-frame")
        self._draw(frame_s=0.0)

    def _add(self, system):
        self._systems.append(system)
        return system

    def _make_views(self, players: int) -> list[PlayerView]:
        """Player 1 through ShowBase's camera; with two players, the window split in two
        and player 2 through a second camera, with a line between the halves."""
        game = self.game_config.game
        spec = game.local_players
        regions = player_regions(players, spec.split)
        screens = [main_screen(self, regions[0], MAIN_CAMERA_MASK)]
        follows = [lambda: self.simulation.player]
        if players > 1:
            screen = extra_screen(self, regions[1], SECOND_VIEW_MASK, SECOND_PLAYER)
            self.scene.add_view(screen.camera, screen.mask)
            screens.append(screen)
            follows.append(lambda: self.simulation.vehicle_named(SECOND_PLAYER))
            self._add(Divider(self.render2d, spec.split, spec.divider_width,
                              spec.divider_colour))
        return [self._add(PlayerView(screen, game, self.simulation.terrain, follow,
                                     self._ray_cast, self.win, spec.notice_scale,
                                     spec.notice_colour))
                for screen, follow in zip(screens, follows)]

    def _ray_cast(self, start, end, exclude):
        # In the game now running (a restart makes a new one).
        return self.simulation.world.ray_closest(start, end, exclude=exclude)

    def _sync_views(self) -> None:
        """A view for every vehicle in the simulation (spawned mid-game too), none for
        those gone; each player's camera follows its vehicle (player 1's can swap)."""
        vehicles = {id(vehicle): vehicle for vehicle in self.simulation.vehicles}
        for key in [key for key in self.vehicle_views if key not in vehicles]:
            self.vehicle_views.pop(key).destroy()
        for key, vehicle in vehicles.items():
            if key not in self.vehicle_views:
                view = VehicleView(self.render, vehicle, self.game_config.game,
                                   self.simulation.step_s)
                view.update(self.fixed_clock.alpha)
                self.vehicle_views[key] = view
        for index, player in enumerate(self.views):
            vehicle = player.follow()
            followed = self.vehicle_views.get(id(vehicle)) if vehicle is not None else None
            if followed is not self._followed[index]:
                if self._followed[index] is not None:
                    self._followed[index].show_gun(True, player.screen.mask)
                self._followed[index] = followed

    # ----- pause menu, settings, restart ------------------------------------------------

    def toggle_pause(self) -> None:
        if self.paused:
            self.resume()
        else:
            self.pause()

    def pause(self) -> None:
        # Scripted or offscreen: never wait on a menu. Paused already (a pad unplugged):
        # the menu stays on its page.
        if self.menu is None or self.paused:
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

    def apply_bindings(self, keyboard: KeyboardSpec, gamepad: GamepadSpec) -> None:
        """Use the keys and pad controls rebound on the menu's Controls page now: driving,
        the app's own keys and every player's pad."""
        self.player_inputs.keyboard.rebind(keyboard)
        self.action_keys.rebind(keyboard)
        self.player_inputs.rebind_pads(gamepad)

    def restart_game(self) -> None:
        """A fresh game (same map, seed, vehicle and bots): views rebuilt, clock reset."""
        if self._make_game is None:
            self.resume()
            return
        old = self.simulation
        for view in self.vehicle_views.values():
            view.destroy()
        self.vehicle_views.clear()
        self._followed = [None] * len(self.views)
        self.simulation, self.battle = self._make_game()
        for system in (self.combat_view, self.effects, self.overlay, self.audio):
            system.simulation = self.simulation
        self.effects.clear()
        self.fixed_clock = FixedStepClock(self.simulation.step_s,
                                          self.game_config.game.simulation.max_steps_per_frame)
        old.destroy()
        for player in self.views:
            player.reset()
            player.message("Restarted")
        self.resume()
        self._draw(frame_s=0.0)

    # ----- the frame ---------------------------------------------------------------------

    def _frame(self, task):
        frame_s = self.clock.getDt()
        if self.paused:  # the fixed-step clock stands still: no step, nothing ages
            self.player_inputs.poll_pads()
            # Start resumes, unless the menu is waiting for a button (Start cancels that).
            if self.player_inputs.pause_pressed() and not self.menu.capturing:
                self.resume()
            self.menu.poll_pads()
            self._draw(0.0)
            return task.cont
        steps = self.fixed_clock.advance(frame_s)
        started = time.perf_counter()
        for _ in range(steps):
            simulation = self.simulation
            controls = (self.scripted_inputs.controls_at(simulation.time_s)
                        if self.scripted_inputs is not None
                        else self.player_inputs.player_one(simulation.player.gear))
            self._throttle = controls.throttle
            events = simulation.step(controls, self.player_inputs.others(simulation))
            if self.telemetry is not None:
                self.telemetry.write(telemetry_record(simulation, events))
            self.effects.on_events(events)
            self.audio.on_events(events)
            for player in self.views:
                player.on_events(events)
        if self.player_inputs.pause_pressed():
            self.pause()
        if steps:
            self.step_ms = (time.perf_counter() - started) * 1000.0 / steps
        self.audio.update(0.0 if self.paused else self._throttle)
        self._draw(frame_s)
        if self.seconds is not None and self.simulation.time_s >= self.seconds:
            self.finish()
        return task.cont

    def _draw(self, frame_s: float) -> None:
        alpha = self.fixed_clock.alpha
        self._sync_views()
        for view in self.vehicle_views.values():
            view.update(alpha, frame_s)
        self.player_inputs.update(frame_s)
        for player, followed in zip(self.views, self._followed):
            player.update(frame_s, followed, self.simulation, self.battle,
                          self.user.field_of_view_deg)
        # Tracers face, and particles sort for, player 1's camera; the sun's shadows
        # cover the ground round the players' vehicles.
        eye = self.views[0].eye
        self.combat_view.update(alpha, eye)
        followed = [view.position for view in self._followed if view is not None]
        if followed:
            self.scene.update(np.mean(followed, axis=0))
        self._draw_effects(frame_s, eye)
        self.overlay.update(self.step_ms)

    def _draw_effects(self, frame_s: float, eye: np.ndarray) -> None:
        lens = self.views[0].screen.lens
        projection = (lens.getFov()[1], lens.getAspectRatio())
        if projection != self._particle_projection:  # zoom, the gun sight, a resized window
            self.effects.particles.set_projection(*projection)
            self._particle_projection = projection
        frame_s = min(max(float(frame_s), 0.0), self.game_config.game.camera.max_frame_s)
        self.effects.update(frame_s, eye)

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
                 debug_rays: bool = False, players: int = 1, new_recorder=None,
                 on_quit=None) -> int:
    """Run the game in a window (or offscreen) for ``players`` local players (2: split
    screen). ``new_recorder()`` gives each game (and each restart) a replay recorder;
    ``on_quit(recorder)`` gets the last game's when it ends."""
    def make_game():
        simulation = Simulation(config, map_choice, seed, player_vehicle=player_vehicle)
        simulation.recorder = new_recorder() if new_recorder else None
        battle = Battle(simulation, config.game.battle, bots)
        if players > 1:
            add_second_player(simulation, battle, config.game.local_players)
        return simulation, battle

    simulation, battle = make_game()
    # A person's own settings only in an interactive game: scripted and offscreen runs
    # (tests, screenshots) look the same on every machine.
    interactive = not offscreen and inputs is None and seconds is None
    settings = UserSettings(config.game.user_settings) if interactive else None
    bindings = (UserBindings(config.controls.keyboard, config.controls.gamepad)
                if interactive else None)
    app = None
    try:
        app = TankBattleApp(config, simulation, offscreen=offscreen, inputs=inputs,
                            telemetry=telemetry, seconds=seconds, battle=battle,
                            make_game=make_game, debug_rays=debug_rays, settings=settings,
                            players=players, bindings=bindings)
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
