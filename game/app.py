"""The windowed (or offscreen) game: a ShowBase that wires systems together and owns the loop.

Each rendered frame the step loop (:class:`game.sim.step_loop.StepLoop`) takes the
fixed steps that are due (reading controls, writing telemetry, handing each step's
events to the particles, the sounds and the HUDs), then every view draws the state
blended between the last two steps, the HUD and, when on (F3), the suspension overlay.

What draws one game session (:class:`game.view.session_view.SessionView`) and its sounds
are made with the session: a restart, or a match the title menu starts, makes a new
session and new ones that listen to it (and puts the gear lever back to the start). The
scene and the players' cameras and HUDs stay (another map only redraws the ground).

With ``--players 2`` the window is split: each player has a view of their own
(:mod:`game.view.player_view`), player 2 drives with a pad (:mod:`game.input.player_input`).

The menus (:mod:`game.menus.coordinator`: title, pause, end of match, help card) stop the
fixed-step clock while they are open; online, the server's game goes on under them,
our controls let go. Scripted and offscreen runs have none (but ``--menu``'s title
menu): there Esc leaves at once.

Where no window can open (no display named, or none that opens) the game stops with one
line saying so and what to run instead (a :class:`~common.errors.UserError`: status 2);
Panda3D's own lines about the displays it tried go to the log, not the console.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from direct.showbase.DirectObject import DirectObject
from direct.showbase.ShowBase import ShowBase
from panda3d.core import ClockObject, Filename

from common.errors import UserError
from common.settings import UserSettings, screenshot_path
from game.applied_settings import AppliedSettings
from game.audio.sounds import GameAudio, PandaSoundPlayer
from game.input.gamepad import GamepadSpec
from game.input.keyboard import ActionKeys, KeyboardSpec, PandaKeyCapture
from game.input.pad_input import PandaPads
from game.input.player_input import LocalInputs, mouse_in_window
from game.input.rebinding import UserBindings
from game.runs.windowed_run import WindowedRun
from game.sim.controls import Controls
from game.sim.local_players import SECOND_PLAYER
from game.sim.net.shown import ClientLoop, ClientSession
from game.sim.replay import ReplayRecorder
from game.sim.session import START_GEARS, GameOptions, GameSession
from game.sim.simulation import IDLE, Simulation
from game.sim.step_loop import StepLoop
from game.view.display import Display
from game.view.ground.desert_scene import DesertScene
from game.view.ground.shadows import MAIN_CAMERA_MASK
from game.view.player_view import (SECOND_VIEW_MASK, Divider, PlayerView, extra_screen, main_screen,
                                   player_regions)
from game.view.session_view import SessionView, SessionViewSpecs
from game.view.window import (WITHOUT_A_DISPLAY, configure_window, panda_lines_held,
                              require_display)
from game.window_config import WindowConfig

class TankBattleApp(ShowBase):
    """Wires the session, its views, the devices and the menu; runs the frame loop."""

    def __init__(self, config: WindowConfig, run: WindowedRun, *,
                 settings: UserSettings | None = None, bindings: UserBindings | None = None):
        if not run.offscreen:
            require_display()
        configure_window(config.view.window, run.offscreen,
                         settings.current if settings is not None else None,
                         config.view.graphics_quality)
        self._systems: list = []
        """What outlives a session, in the order made; destroyed in reverse."""
        try:
            with panda_lines_held():
                super().__init__()
        except Exception as error:  # ShowBase raises a bare Exception when no window opens
            raise UserError("window", None, "a display to open the game window on "
                            f"(Panda3D: {error}); {WITHOUT_A_DISPLAY}") from None
        self.game_config = config
        self.run_options = run
        self.settings = settings
        self.paused = False
        self._title_s = 0.0  # the title menu's time open (``--menu --seconds`` ends it)
        self.step_ms: float | None = None
        """Mean wall time of the last frame's physics steps (the overlay shows it)."""
        if run.offscreen:  # frames advance exactly one step's time, as fast as they render
            self.clock.setMode(ClockObject.MNonRealTime)
            self.clock.setFrameRate(config.game.simulation.step_hz)
        self.setBackgroundColor(*config.view.scene.fog_colour, 1.0)
        self.disableMouse()
        self.online = run.online is not None  # a server's game: it goes on under the menus
        self.player_gearbox = run.options.gearbox  # on a server: ours, not in its options
        if run.online is not None:
            self.session = run.online
        elif run.menu:  # behind the title menu: the player's vehicle alone on the map
            self.session = GameSession(config.session, replace(run.options, bots=0))
        else:
            self.session = GameSession(config.session, run.options,
                                       self.new_recorder(run.options))
        view = config.view
        simulation = self.session.simulation
        self.scene = self._add(DesertScene(self, self.render, self.camera, simulation.terrain,
                                           simulation.rocks, view.scene, view.sand,
                                           view.shadows, view.terrain_view))
        self.display = self._add(Display(self, self.render, view.window,
                                         view.graphics_quality, self.scene.shadow))
        self.views = self._make_views(run.options.players)
        """Each local player's camera, HUD and reticle, player 1 first."""
        self.sounds = self._add(PandaSoundPlayer(self, view.audio))
        self.settings_in_use = AppliedSettings(
            settings, view.user_settings, sounds=self.sounds, display=self.display,
            views=self.views, effects=lambda: self.session_view.effects,
            message=self.views[0].message, refresh_page=self._refresh_settings_page)
        controls = (replace(config.controls, keyboard=bindings.current,
                            gamepad=bindings.gamepad) if bindings is not None
                    else config.controls)
        self._wire_inputs(controls, bindings)
        self._start(self.session, run.debug_rays)
        self.apply_settings(self.user)
        self.taskMgr.add(self._frame, "tank-battle-frame")
        self._draw(frame_s=0.0)

    def _add(self, system):
        self._systems.append(system)
        return system

    def new_recorder(self, options: GameOptions) -> ReplayRecorder | None:
        new_recorder = self.run_options.new_recorder
        return new_recorder(options) if new_recorder is not None else None

    def _make_views(self, players: int) -> list[PlayerView]:
        """Player 1 through ShowBase's camera; with two players, the window split in two
        and player 2 through a second camera, with a line between the halves."""
        view = self.game_config.view
        spec = view.split_screen
        regions = player_regions(players, spec.split)
        screens = [main_screen(self, regions[0], MAIN_CAMERA_MASK)]
        follows = [lambda: self.session.simulation.player]
        if players > 1:
            screen = extra_screen(self, regions[1], SECOND_VIEW_MASK, SECOND_PLAYER)
            self.scene.add_view(screen.camera, screen.mask)
            screens.append(screen)
            follows.append(lambda: self.session.simulation.vehicle_named(SECOND_PLAYER))
            self._add(Divider(self.render2d, spec.split, spec.divider_width,
                              spec.divider_colour))
        return [self._add(PlayerView(screen, view.camera, view.hud,
                                     self.session.simulation.terrain, follow, self._ray_cast,
                                     self.win, spec.notice_scale, spec.notice_colour,
                                     spotting=self.game_config.game.ai.spotting))
                for screen, follow in zip(screens, follows)]

    def _ray_cast(self, start, end, exclude):  # in the game now running (restarts make new)
        return self.session.simulation.world.ray_closest(start, end, exclude=exclude)

    def _wire_inputs(self, controls, bindings: UserBindings | None) -> None:
        """The players' devices, the app's own keys and the menus (:mod:`game.menus.coordinator`).

        Hot plug: a pad connected mid-game drives at once; unplugging one in use pauses
        the game (the menu opens) rather than leaving a vehicle driverless."""
        run = self.run_options
        pads = None if run.scripted else PandaPads(self)
        self.player_inputs = self._add(LocalInputs(
            self, controls, self.views, pad_source=pads,
            mouse=lambda: mouse_in_window(self), user=lambda: self.user, on_unplug=self.pause))
        self.menus = None
        # The app's own keys hold off while the menu waits for a key to bind (Esc cancels).
        self.action_keys = self._add(ActionKeys(
            DirectObject(), {"quit": self.finish, "debug_overlay": self._toggle_overlay,
                             "scoreboard": self._toggle_scoreboard,
                             "screenshot": self.screenshot_to_data_folder, "pause": self._pause_key,
                             "fullscreen": self.settings_in_use.toggle_fullscreen,
                             "hud_compact": self.settings_in_use.toggle_compact_hud,
                             "help_card": self._toggle_help},
            controls.keyboard, blocked=lambda: self.menus is not None and self.menus.capturing,
            taken=lambda key: self.menus is not None and self.menus.takes_key(key)))
        if run.scripted and not run.menu:
            return
        from game.menus.coordinator import Menus  # DirectGUI: only where a menu is answered
        view = self.game_config.view
        capture = (PandaKeyCapture(self.buttonThrowers[0].node(), DirectObject())
                   if self.buttonThrowers and not run.scripted else None)
        self.menus = self._add(Menus(
            self, replace(self.game_config, controls=controls), run,
            settings=self.settings or UserSettings(view.user_settings),
            bindings=bindings or UserBindings(self.game_config.controls.keyboard,
                                              self.game_config.controls.gamepad),
            sounds=self.sounds, pads=pads, key_capture=capture, display=self.display))
        self.paused = self.menus.title_open
        self.show_huds(not self.paused)
        if not self.paused and not run.scripted:
            self.menus.match_started()

    # ----- a session and what listens to it --------------------------------------------

    def _start(self, session: GameSession, debug_rays: bool) -> None:
        """Run ``session``: its views and sounds, and the step loop that feeds them."""
        view = self.game_config.view
        self.session = session
        self.online = isinstance(session, ClientSession)
        self.session_view = SessionView(
            self.render, self.a2dTopLeft, session,
            SessionViewSpecs(self.game_config.vehicle_looks, view.combat_view, view.effects,
                             view.debug_overlay, view.scene.fog_colour,
                             self.scene.fog_density_per_m, view.hud.zone, view.vehicle_detail),
            self.user.quality, debug_rays)
        self.audio = GameAudio(session.simulation, self.sounds, view.audio)
        gearbox = self.player_gearbox if self.online else session.options.gearbox
        self.player_inputs.set_lever(START_GEARS.get(gearbox))
        self._brain = None if self.online else session.player_brain()
        """The bot brain driving the player's vehicle (``--player-ai``), or None."""
        if self.online:
            self.loop = ClientLoop(session, self._player_controls,
                                   telemetry=self.run_options.telemetry)
        else:
            self.loop = StepLoop(session, self._player_controls,
                                 others=self.player_inputs.others,
                                 telemetry=self.run_options.telemetry)
        self.loop.subscribe(self.session_view.on_events)
        self.loop.subscribe(self._on_events)
        self.loop.subscribe(self.audio.on_events)
        for player in self.views:
            self.loop.subscribe(player.on_events)
        self._followed: list = [None] * len(self.views)

    def _player_controls(self, simulation: Simulation) -> Controls:
        if self.paused:  # online, the game goes on under the menu
            return IDLE
        if self._brain is not None:
            return self._brain(simulation)
        inputs = self.run_options.inputs
        if inputs is not None:
            return inputs.controls_at(self.loop.elapsed_s)
        return self.player_inputs.player_one(simulation.player.gear)

    def restart_game(self) -> None:
        """A fresh game (same map, seed, vehicle and bots): new views and sounds for it.
        (Online, the server runs the rounds: nothing to restart here.)"""
        if self.online:
            for player in self.views:
                player.message("Online: the server starts each round")
            self.resume()
            return
        self.replace_session(self.session.restarted(self.new_recorder(self.session.options)))
        for player in self.views:
            player.message("Restarted")
        self.resume()

    def show_title(self) -> None:
        """Back to the title menu (Main menu, the end screen's Menu): without one, quit."""
        if self.menus is None or self.menus.front_door is None:
            self.finish()
        else:
            self.resume()
            self.menus.show_title()

    def show_huds(self, shown: bool) -> None:
        """The players' HUDs drawn or not (not over the title menu)."""
        for player in self.views:
            player.screen.overlay.display_region.setActive(shown)

    def replace_session(self, session) -> None:
        """Play ``session`` instead of the one now: new views and sounds for it, the ground
        redrawn when it is another map."""
        old = self.session
        debug_rays = self.session_view.overlay.visible
        self.session_view.destroy()
        if (old.options.map, old.options.seed) != (session.options.map, session.options.seed):
            simulation = session.simulation
            self.scene.set_ground(simulation.terrain, simulation.rocks)
            for player in self.views:
                player.chase_camera.terrain = simulation.terrain
        self._start(session, debug_rays)
        old.destroy()
        for player in self.views:
            player.reset()
        self._draw(frame_s=0.0)

    # ----- pause menu, settings -------------------------------------------------------

    @property
    def title_open(self) -> bool:
        return self.menus is not None and self.menus.title_open

    def _pause_key(self) -> None:
        """Esc, P: the pause menu (a run without one, scripted: leave). In a menu, Esc is
        its "back" (:meth:`game.menus.Menus.takes_key`)."""
        if self.menus is None or self.menus.pause_menu is None:
            self.finish()
        elif self.menus.front is None:
            self.pause()

    def _toggle_help(self) -> None:
        if self.menus is not None:  # F1: the main keys' card
            self.menus.toggle_help()

    def pause(self) -> None:
        # Scripted or offscreen: never wait on a menu. Paused already (a pad unplugged):
        # the menu stays on its page.
        if self.menus is None or self.menus.pause_menu is None or self.paused:
            return
        self.paused = True
        self.menus.pause_menu.open()

    def resume(self) -> None:
        self.paused = False
        if self.menus is not None:
            self.menus.close_all()

    def _toggle_overlay(self) -> None:
        self.session_view.overlay.toggle()

    def _toggle_scoreboard(self) -> None:
        for player in self.views:
            player.hud.scoreboard.toggle()

    def apply_settings(self, settings) -> None:
        """Use the player's settings now (the settings page changed one)."""
        self.settings_in_use.apply(settings)

    def _refresh_settings_page(self) -> None:
        if self.menus is not None and self.menus.pause_menu is not None:
            self.menus.pause_menu.refresh_settings()

    @property
    def user(self):
        """The player's settings in use."""
        return self.settings_in_use.current

    def apply_bindings(self, keyboard: KeyboardSpec, gamepad: GamepadSpec) -> None:
        """Use the keys and pad controls rebound on the menu's Controls page now: driving,
        the app's own keys and every player's pad."""
        self.player_inputs.keyboard.rebind(keyboard)
        self.action_keys.rebind(keyboard)
        self.player_inputs.rebind_pads(gamepad)

    # ----- the frame ---------------------------------------------------------------------

    def _frame(self, task):
        frame_s = self.clock.getDt()
        if self.menus is not None:
            self.menus.poll(frame_s)
        if self.title_open:
            self._title_frame(frame_s)
            return task.cont
        if self.paused:  # the fixed-step clock stands still: no step, nothing ages
            self.player_inputs.poll_pads()
            # Start resumes, unless the menu is waiting for a button (Start cancels that).
            if self.player_inputs.pause_pressed() and not self.menus.capturing:
                self.resume()
            self.menus.pause_menu.poll_pads()
            if self.online:  # a server's game goes on (hands off the controls meanwhile)
                self.loop.advance(frame_s)
            self._draw(frame_s if self.online else 0.0)
            return task.cont
        started = time.perf_counter()
        steps = self.loop.advance(frame_s)
        if steps:
            self.step_ms = (time.perf_counter() - started) * 1000.0 / steps
        if self.player_inputs.pause_pressed():
            self.pause()
        self.audio.update(0.0 if self.paused else self.loop.last_controls.throttle)
        self._draw(frame_s)
        seconds = self.run_options.seconds
        if seconds is not None and self.loop.elapsed_s >= seconds:
            self.finish()
        elif self.online and self.loop.gone is not None:
            self._server_gone(self.loop.gone)
        return task.cont

    def _server_gone(self, gone) -> None:
        """The server ended our online game: back to the title menu, which says why (a
        game joined from the command line ends)."""
        if self.run_options.online is not None or self.menus is None:
            self.finish()
        else:
            self.show_title()
            self.menus.say_game_ended(gone)

    def _on_events(self, events) -> None:
        """The match ended: its screen; a local game stops under it (online, the server
        starts the next match, which closes it)."""
        if self.menus is not None and self.menus.on_events(events, self.session) \
                and not self.online:
            self.paused = True

    def _title_frame(self, frame_s: float) -> None:
        """The title menu over the game standing still; joining or hosting under way."""
        self._draw(0.0)
        self._title_s += frame_s
        seconds = self.run_options.seconds
        if seconds is not None and self._title_s >= seconds:
            self.finish()

    def _draw(self, frame_s: float) -> None:
        alpha = self.loop.alpha
        session_view = self.session_view
        session_view.sync_vehicles(alpha)
        self._follow_players()
        session_view.update_vehicles(alpha, frame_s, pose_parts=False)
        self.player_inputs.update(frame_s)
        for player, followed in zip(self.views, self._followed):
            player.update(frame_s, followed, self.session.simulation, self.session.battle,
                          self.user.field_of_view_deg)
        # Tracers face, and particles sort for, player 1's camera; the sun's shadows
        # cover the ground round the players' vehicles.
        followed = [view.position for view in self._followed if view is not None]
        if followed:
            self.scene.update(np.mean(followed, axis=0))
        cameras = [player.screen.display_region.getCamera() for player in self.views]
        if self.scene.shadow.enabled:  # a tank out of view may cast a shadow into it
            cameras.append(self.scene.shadow.camera)
        session_view.pose_seen_vehicles(cameras, [player.eye for player in self.views])
        lens = self.views[0].screen.lens
        effects_s = min(max(float(frame_s), 0.0), self.game_config.view.camera.max_frame_s)
        session_view.update_effects(alpha, effects_s, self.views[0].eye,
                                    (lens.getFov()[1], lens.getAspectRatio()), self.step_ms)

    def _follow_players(self) -> None:
        """Each player's camera follows the view of their vehicle (player 1's can swap);
        the one left behind shows its gun again."""
        for index, player in enumerate(self.views):
            followed = self.session_view.view_of(player.follow())
            if followed is not self._followed[index]:
                if self._followed[index] is not None:
                    self._followed[index].show_gun(True, player.screen.mask)
                self._followed[index] = followed

    def screenshot_to_data_folder(self) -> Path | None:
        """F12: this frame as a PNG in the user's data folder; the HUD says where (or why
        not: the game goes on either way)."""
        path = screenshot_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.save_screenshot(path)
        except (OSError, UserError) as error:
            self.views[0].message(f"Screenshot not saved: {error}")
            return None
        self.views[0].message(f"Screenshot saved: {path}")
        return path

    def save_screenshot(self, path: Path) -> None:
        self.graphicsEngine.renderFrame()
        if not self.win.saveScreenshot(Filename.fromOsSpecific(str(path))):
            raise UserError(path, None, "a writable PNG file")

    def finish(self) -> None:
        """Leave the loop at the end of this frame."""
        self.taskMgr.stop()

    def destroy(self) -> None:
        self.session_view.destroy()
        while self._systems:
            self._systems.pop().destroy()
        super().destroy()
