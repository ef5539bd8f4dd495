"""The windowed (or offscreen) game: a ShowBase that wires systems together and owns the loop.

Each rendered frame the step loop (:class:`game.sim.interfaces.FrameLoop`) takes the fixed
steps due (reading controls, writing telemetry, handing each step's events to the
particles, the sounds and the HUDs); then the frame is drawn
(:class:`game.view.window_frame.WindowFrame`). A restart, or a match the title menu
starts, makes a new session and a new :class:`~game.view.session_view.SessionView` and
sounds that listen to it; the scene and the players' cameras and HUDs stay. With
``--players 2`` the window is split (:mod:`game.view.player_view`).

Which screen the player is on is the app's state, written only by :meth:`TankBattleApp.send`:
the menus (:mod:`game.menus.coordinator`) and the app's own keys send requests, the state
machine (:mod:`game.app_states`) takes or refuses each, and the app carries out what it
took. While a menu is over a local game its clock stands still; online, the server's game
goes on under it, our controls let go. Scripted and offscreen runs have no menus (but
``--menu``'s title menu): there Esc leaves at once.

Where no window can open the game stops with one line saying so and what to run instead (a
:class:`~common.errors.UserError`: status 2); Panda3D's own lines go to the log.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from direct.showbase.DirectObject import DirectObject
from direct.showbase.ShowBase import ShowBase
from panda3d.core import ClockObject

from common.errors import UserError
from common.settings import UserSettings, screenshot_path
from game.app_states import (LEAVING, PLAYING, TITLE, TITLE_STATES, AppState, game_waits,
                             next_state)
from game.applied_settings import AppliedSettings
from game.audio.sounds import GameAudio, PandaSoundPlayer
from game.input.gamepad import GamepadSpec
from game.input.keyboard import ActionKeys, KeyboardSpec, PandaKeyCapture
from game.input.pad_input import PandaPads
from game.input.player_input import LocalInputs, mouse_in_window
from game.input.rebinding import UserBindings
from game.menus.requests import (ChangeSettings, DismissHelp, Joined, MatchEnded, NextMatch,
                                 Pause, Quit, Rebind, Request, Restart, Resume, ServerLost,
                                 ShowHelp, StartMatch, ToTitle)
from game.runs.windowed_run import WindowedRun
from game.sim.controls import Controls
from game.sim.interfaces import DrawnSession, DrawnSimulation, FrameLoop
from game.sim.net.shown import ClientLoop, ClientSession
from game.sim.session import START_GEARS, GameSession
from game.sim.simulation import IDLE
from game.sim.step_loop import StepLoop
from game.view.display import Display
from game.view.ground.desert_scene import DesertScene
from game.view.player_view import make_player_views
from game.view.session_view import SessionView, SessionViewSpecs, view_toggles
from game.view.window import (WITHOUT_A_DISPLAY, configure_window, panda_lines_held,
                              require_display, save_screenshot, screenshot_to)
from game.view.window_frame import WindowFrame
from game.window_config import WindowConfig


class TankBattleApp(ShowBase):
    """Wires the session, its views, the devices and the menus; runs the frame loop and
    carries out the window's state changes."""

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
        self.state: AppState = TITLE if run.menu else PLAYING
        """Which screen the player is on: written by :meth:`send` alone."""
        self._requests: list[Request] = []
        """Requests sent, not yet carried out (the first is being carried out)."""
        self._title_s = 0.0  # the title menu's time open (``--menu --seconds`` ends it)
        self.step_ms: float | None = None
        """Mean wall time of the last frame's physics steps (the overlay shows it)."""
        if run.offscreen:  # frames advance exactly one step's time, as fast as they render
            self.clock.setMode(ClockObject.MNonRealTime)
            self.clock.setFrameRate(config.game.simulation.step_hz)
        self.setBackgroundColor(*config.view.scene.fog_colour, 1.0)
        self.disableMouse()
        self.player_gearbox = run.options.gearbox  # on a server: ours, not in its options
        self.session: DrawnSession
        if run.online is not None:
            self.session = run.online
        elif run.menu:  # behind the title menu: the player's vehicle alone on the map
            self.session = GameSession(config.session, replace(run.options, bots=0))
        else:
            self.session = GameSession(config.session, run.options,
                                       run.recorder_for(run.options))
        view = config.view
        simulation = self.session.simulation
        self.scene = self._add(DesertScene(self, self.render, self.camera, simulation.terrain,
                                           simulation.rocks, view.scene, view.sand,
                                           view.shadows, view.terrain_view))
        self.display = self._add(Display(self, self.render, view.window,
                                         view.graphics_quality, self.scene.shadow))
        self.views, made = make_player_views(self, self.scene, view, run.options.players,
                                             lambda: self.session.simulation,
                                             config.game.ai.spotting)
        """Each local player's camera, HUD and reticle, player 1 first."""
        self._systems += made
        self.frame = WindowFrame(self.scene, self.views, view.camera.max_frame_s)
        self.sounds = self._add(PandaSoundPlayer(self, view.audio))
        self.settings_in_use = AppliedSettings(
            settings, view.user_settings, sounds=self.sounds, display=self.display,
            views=self.views, effects=lambda: self.session_view.effects,
            message=self.views[0].message, refresh_page=self._refresh_settings_page,
            renderer=self.win.getGsg().getDriverRenderer())
        controls = (replace(config.controls, keyboard=bindings.current,
                            gamepad=bindings.gamepad) if bindings is not None
                    else config.controls)
        self._wire_inputs(controls, bindings)
        self._start(self.session, (run.debug_rays, False))
        self.settings_in_use.apply(self.user)
        self.taskMgr.add(self._frame, "tank-battle-frame")
        self._draw(frame_s=0.0)

    def _add(self, system):
        self._systems.append(system)
        return system

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
            DirectObject(), {"quit": self.finish,
                             **view_toggles(lambda: self.session_view, controls.keyboard),
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
            self.aspect2d, replace(self.game_config, controls=controls), run, self.send,
            settings=self.settings or UserSettings(view.user_settings),
            bindings=bindings or UserBindings(self.game_config.controls.keyboard,
                                              self.game_config.controls.gamepad),
            sounds=self.sounds, pads=pads, key_capture=capture, display=self.display))
        self.show_huds(self.state not in TITLE_STATES)
        if self.state is PLAYING and not run.scripted and self.menus.help_due:
            self.send(ShowHelp())

    # ----- the window's state ------------------------------------------------------------

    def send(self, request: Request) -> None:
        """The one way the window's state changes (:mod:`game.app_states`): a request the
        state machine takes is carried out; one it refuses is dropped. Requests are taken
        in the order sent (one sent while another is carried out waits for it)."""
        self._requests.append(request)
        if len(self._requests) > 1:
            return  # sent while another is carried out: it follows that one
        try:
            while self._requests:
                after = next_state(self.state, self._requests[0])
                if after is not None:
                    self.state = after
                    self._carry_out(self._requests[0])
                self._requests.pop(0)
        finally:
            self._requests.clear()

    def _carry_out(self, request: Request) -> None:
        """What a request the state machine took does (the menus exist wherever one of
        theirs was sent)."""
        menus = self.menus
        match request:
            case StartMatch(options):
                self._play(GameSession(self.game_config.session, options,
                                       self.run_options.recorder_for(options)))
            case Joined(session, gearbox):
                self.player_gearbox = gearbox
                self._play(session)
            case Pause():
                menus.pause_menu.open()
            case Resume():
                menus.close_all()
            case Restart():
                self._restart()
            case ShowHelp():
                menus.help_card.show()
            case DismissHelp():
                menus.hide_help()
            case MatchEnded(event, side):
                menus.match_end.show(event, side)
            case NextMatch():
                menus.match_end.hide()
            case ToTitle():
                self._to_title()
            case ServerLost(reason):
                self._to_title()
                menus.say_game_ended(reason)
            case Quit():
                self.taskMgr.stop()  # the loop ends with this frame
            case ChangeSettings(settings):
                self.settings_in_use.apply(settings)
            case Rebind(keyboard, gamepad):
                self.apply_bindings(keyboard, gamepad)

    @property
    def paused(self) -> bool:
        """Whether the player's game waits for a menu (:func:`game.app_states.game_waits`)."""
        return game_waits(self.state, self.online)

    @property
    def title_open(self) -> bool:
        return self.state in TITLE_STATES

    def _play(self, session: DrawnSession) -> None:
        """The title menu's game, in place of the backdrop (the menu closes)."""
        self.replace_session(session)
        self.menus.close_title()
        self.show_huds(True)
        if self.menus.help_due:
            self.send(ShowHelp())

    def _restart(self) -> None:
        """A fresh game (same map, seed, vehicle and bots); online, none: the server's."""
        fresh = self.session.restarted(self.run_options.recorder_for(self.session.options))
        if fresh is not None:
            self.replace_session(fresh)
        for player in self.views:
            player.message("Restarted" if fresh is not None
                           else "Online: the server starts each round")
        if self.menus is not None:
            self.menus.close_all()

    def _to_title(self) -> None:
        """The title menu over the player's vehicle standing alone on the map: the game
        that ran ends (a hosted server stops)."""
        options = self.session.options
        backdrop = replace(options, bots=0, vehicle=options.vehicle or "tank",
                           free_for_all=False, player_ai=None)
        self.replace_session(GameSession(self.game_config.session, backdrop))
        self.menus.open_title()
        self.show_huds(False)

    def pause(self) -> None:
        """The pause menu (a pad in use unplugged; P): where there is one."""
        if self.menus is not None and self.menus.pause_menu is not None:
            self.send(Pause())

    def finish(self) -> None:
        """Leave the loop at the end of this frame."""
        self.send(Quit())

    def _pause_key(self) -> None:
        """Esc, P: the pause menu (a run without one, scripted: leave). In a menu, Esc is
        its "back" (:meth:`game.menus.coordinator.Menus.takes_key`)."""
        if self.menus is None or self.menus.pause_menu is None:
            self.finish()
        elif self.menus.front is None:
            self.send(Pause())

    def _toggle_help(self) -> None:
        """F1: the main keys' card over the game, or away."""
        if self.menus is None or self.menus.help_card is None:
            return
        if self.menus.help_shown:
            self.send(DismissHelp())
        elif self.menus.front is None:
            self.send(ShowHelp())

    def _on_events(self, events) -> None:
        """The match ended (its screen), the next began: what the menus ask of it."""
        if self.menus is not None:
            for request in self.menus.requests_for(events, self.session):
                self.send(request)

    def _server_gone(self, reason: str) -> None:
        """The server ended our online game: back to the title menu, which says why (a
        game joined from the command line ends)."""
        if self.run_options.online is not None or self.menus is None:
            self.finish()
        else:
            self.send(ServerLost(reason))

    # ----- a session and what listens to it --------------------------------------------

    def _start(self, session: DrawnSession, overlays: tuple[bool, bool]) -> None:
        """Run ``session``: its views and sounds (its two overlays shown or not), its loop."""
        view = self.game_config.view
        self.session = session
        self.online = session.battle.online
        self.session_view = SessionView(
            self.render, self.a2dTopLeft, session,
            SessionViewSpecs(self.game_config.vehicle_looks, view.combat_view, view.effects,
                             view.debug_overlay, view.scene.fog_colour,
                             self.scene.fog_density_per_m, view.hud.zone, view.vehicle_detail),
            self.user.quality, *overlays)
        self.audio = GameAudio(session.simulation, self.sounds, view.audio)
        gearbox = self.player_gearbox if self.online else session.options.gearbox
        self.player_inputs.set_lever(START_GEARS.get(gearbox))
        self._brain = session.player_brain()
        """The bot brain driving the player's vehicle (``--player-ai``), or None."""
        self.loop: FrameLoop
        if isinstance(session, ClientSession):
            self.loop = ClientLoop(session, self._player_controls,
                                   telemetry=self.run_options.telemetry)
        else:
            self.loop = StepLoop(session, self._player_controls,
                                 others=self.player_inputs.others,
                                 telemetry=self.run_options.telemetry)
        for listener in (self.session_view.on_events, self._on_events, self.audio.on_events,
                         *(player.on_events for player in self.views)):
            self.loop.subscribe(listener)
        self.frame.restart()

    def _player_controls(self, simulation: DrawnSimulation) -> Controls:
        if self.paused:  # online, the game goes on under the menu
            return IDLE
        if self._brain is not None:
            return self._brain(simulation)
        inputs = self.run_options.inputs
        if inputs is not None:
            return inputs.controls_at(self.loop.elapsed_s)
        return self.player_inputs.player_one(simulation.player.gear)

    def show_huds(self, shown: bool) -> None:
        """The players' HUDs drawn or not (not over the title menu)."""
        for player in self.views:
            player.screen.overlay.display_region.setActive(shown)

    def replace_session(self, session: DrawnSession) -> None:
        """Play ``session`` instead of the one now: new views and sounds for it, the ground
        redrawn when it is another map."""
        old = self.session
        overlays = self.session_view.overlay.visible, self.session_view.armour_view.visible
        self.session_view.destroy()
        if (old.options.map, old.options.seed) != (session.options.map, session.options.seed):
            simulation = session.simulation
            self.scene.set_ground(simulation.terrain, simulation.rocks)
            for player in self.views:
                player.chase_camera.terrain = simulation.terrain
        self._start(session, overlays)
        old.destroy()
        for player in self.views:
            player.reset()
        self._draw(frame_s=0.0)

    # ----- settings and keys ---------------------------------------------------------------

    def _toggle_scoreboard(self) -> None:
        for player in self.views:
            player.hud.scoreboard.toggle()

    def _refresh_settings_page(self) -> None:
        if self.menus is not None:
            self.menus.refresh_settings()

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
        if self.state is LEAVING:  # the loop ends with this frame: nothing more to do
            return task.cont
        frame_s = self.clock.getDt()
        if self.menus is not None:
            self.menus.poll(frame_s)
        seconds = self.run_options.seconds
        if self.title_open:  # over the game standing still; joining or hosting under way
            self._draw(0.0)
            self._title_s += frame_s
            if seconds is not None and self._title_s >= seconds:
                self.finish()
            return task.cont
        if self.paused:  # the fixed-step clock stands still: no step, nothing ages
            self.player_inputs.poll_pads()
            # Start resumes, unless the menu is waiting for a button (Start cancels that).
            if self.player_inputs.pause_pressed() and not self.menus.capturing:
                self.send(Resume())
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
        if seconds is not None and self.loop.elapsed_s >= seconds:
            self.finish()
        elif self.online and self.loop.gone is not None:
            self._server_gone(str(self.loop.gone))
        return task.cont

    def _draw(self, frame_s: float) -> None:
        self.player_inputs.update(frame_s)
        self.frame.draw(self.session, self.session_view, self.loop.alpha, frame_s,
                        self.user.field_of_view_deg, self.step_ms)

    def screenshot_to_data_folder(self) -> Path | None:
        """F12: this frame as a PNG in the user's data folder; the HUD says where."""
        return screenshot_to(screenshot_path(), self.save_screenshot, self.views[0].message)

    def save_screenshot(self, path: Path) -> None:
        save_screenshot(self.graphicsEngine, self.win, path)

    def destroy(self) -> None:
        self.session_view.destroy()
        while self._systems:
            self._systems.pop().destroy()
        super().destroy()
