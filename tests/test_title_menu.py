"""The title menu and its front door: pages open and close, every page moves with keys or a
pad, match setup starts the match it shows, Host and Join report what happens, and the
command line decides when a window opens on the menu. DirectGui widgets are made under a
bare NodePath (no window); the app itself is tested in tests/test_title_app.py."""

from __future__ import annotations

import json
import time
from dataclasses import replace

import pytest
from panda3d.core import NodePath

from game.app_states import JOINING, MATCH_SETUP, PLAYING, TITLE, next_state
from game.cli import match_flags_given
from game.input.menu_input import PadMenuReader
from game.menus.focus import MenuFocus
from game.menus.front_door import FrontDoor, OnlineSettings, options_for, parse_address, setup_from
from game.menus.hosting import HostedServer, HostingFailed
from game.menus.requests import Joined, StartMatch
from game.menus.title_menu import MatchSetup, TitleMenu
from game.sim.net.link import enet_available
from game.sim.session import GameOptions, GameSession
from physics.model.terrain import MapChoice

SETUP = MatchSetup(map="desert", vehicle="tank", tank="medium", bots=3, difficulty="normal",
                   gearbox="automatic", rounds=5)


class FakeApp:
    """The app as the front door sees it: its ``send``, keeping every request, and the
    state the app's state machine takes them to."""

    def __init__(self):
        self.sent: list = []
        self.state = TITLE

    def send(self, request) -> None:
        self.sent.append(request)
        self.state = next_state(self.state, request) or self.state

    @property
    def started(self) -> list:
        return [request for request in self.sent if isinstance(request, (StartMatch, Joined))]


def _title(config, **callbacks) -> TitleMenu:
    calls = {name: (lambda *args, name=name: None) for name in
             ("on_play", "on_range", "on_host", "on_join", "on_quit")}
    calls.update(callbacks)
    return TitleMenu(NodePath("aspect2d"), config.view.menu, config.view.title_menu, SETUP,
                     **calls, online=True, player_name="ann", join_address="127.0.0.1:27960",
                     default_port=27960, tanks=tuple(config.tanks))


def _press(widget) -> None:
    widget.commandFunc(None)  # what DirectGui runs when the button is clicked


# ----- the command line ---------------------------------------------------------------------

@pytest.mark.parametrize("argv, given", [
    ([], set()),
    (["--offscreen", "--screenshot", "shot.png", "--debug-rays"], set()),
    (["--bots", "3"], {"bots"}),
    (["--vehicle", "tank"], {"vehicle"}),  # at its default value, still given
    (["--seconds", "2", "--map", "flat"], {"seconds", "map"}),
    (["--connect", "127.0.0.1:27960"], {"connect"}),
])
def test_any_match_flag_skips_the_title_menu(argv, given):
    assert match_flags_given(argv) == given


@pytest.mark.parametrize("args, named", [
    (["--menu", "--headless"], "--headless"),
    (["--menu", "--serve"], "--serve"),
    (["--gearbox", "sideways", "--headless"], "--gearbox"),
    (["--rounds", "0", "--headless"], "--rounds"),
])
def test_bad_menu_gearbox_or_rounds_flags_are_one_line_and_exit_2(run_forked, args, named):
    done = run_forked(*args)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and named in done.stderr


def telemetry_events(path) -> list[dict]:
    """Every event a telemetry file wrote, in order."""
    return [event for line in path.read_text(encoding="utf-8").splitlines()
            for event in json.loads(line)["events"]]


@pytest.mark.slow
def test_a_headless_run_plays_the_rounds_asked_for(run_forked, config, tmp_path):
    """``--rounds 2``: two rounds are fought (the player's bot brain against an easy bot,
    a few seconds each), then the match ends, where the config's 5 would go on."""
    assert config.game.battle.rounds != 2  # ignoring the flag would show
    telemetry = tmp_path / "rounds.jsonl"
    done = run_forked("--headless", "--map", "flat", "--bots", "1", "--difficulty", "easy",
                      "--player-ai", "hard", "--rounds", "2", "--seconds", "60",
                      "--telemetry", telemetry)
    assert done.returncode == 0, done.stderr
    match = [(event["type"], event.get("round", event.get("rounds")))
             for event in telemetry_events(telemetry)
             if event["type"] in ("round_start", "round_end", "match_end")]
    assert match == [("round_end", 1), ("round_start", 2), ("round_end", 2),
                     ("match_end", 2)]


def test_a_headless_run_drives_the_gearbox_asked_for(run_forked, config, tmp_path):
    """``--gearbox automatic``: at full throttle the player's gearbox shifts up by itself,
    where the config's start gear (a manual one) would stay where it is."""
    assert config.game.spawn.start_gear != "A"  # ignoring the flag would show
    inputs, telemetry = tmp_path / "throttle.json", tmp_path / "gears.jsonl"
    inputs.write_text(json.dumps({"events": [{"t": 0.0, "throttle": 1.0}]}), encoding="utf-8")
    done = run_forked("--headless", "--map", "flat", "--seconds", "3", "--gearbox", "automatic",
                      "--inputs", inputs, "--telemetry", telemetry)
    assert done.returncode == 0, done.stderr
    shifts = [(event["from"], event["to"]) for event in telemetry_events(telemetry)
              if event["type"] == "shift_start" and event["vehicle"] == "player"
              and event["automatic"]]
    assert ("1", "2") in shifts, shifts


@pytest.mark.parametrize("gearbox, automatic", [("automatic", True), ("manual", False)])
def test_the_gearbox_chosen_is_the_one_the_players_vehicles_start_with(config, gearbox,
                                                                        automatic):
    session = GameSession(config.session, GameOptions(map=MapChoice("flat"), gearbox=gearbox))
    try:
        player = session.simulation.player
        assert bool(player.fleet.gearbox.automatic[player.index]) is automatic
    finally:
        session.destroy()


# ----- keys and pads ------------------------------------------------------------------------

class FakePads:
    def __init__(self):
        self.held, self.axes = set(), {}

    def pads(self):
        return ["pad"]

    def read(self, pad):
        return dict(self.axes), set(self.held)


def test_a_pad_button_is_one_action_and_a_held_stick_repeats(config):
    spec = config.controls.menu_navigation
    pads = FakePads()
    reader = PadMenuReader(pads, spec)
    assert reader.poll(0.016) == []
    pads.held = {spec.pad_activate[0]}
    assert reader.poll(0.016) == ["activate"]
    assert reader.poll(0.016) == []  # held: not pressed again
    pads.held = set()
    pads.axes = {"left_y": -1.0}
    assert reader.poll(0.016) == ["down"]
    assert reader.poll(spec.repeat_delay_s * 0.5) == []
    assert reader.poll(spec.repeat_delay_s) == ["down"]
    pads.axes = {"left_y": 0.0}
    assert reader.poll(0.016) == []


def test_a_pad_unplugged_mid_read_gives_no_action(config):
    class GonePads(FakePads):
        def read(self, pad):
            raise RuntimeError("gone")
    assert PadMenuReader(GonePads(), config.controls.menu_navigation).poll(0.016) == []


# ----- the pages ----------------------------------------------------------------------------

def test_play_opens_match_setup_and_start_plays_what_it_shows(config):
    played = []
    menu = _title(config, on_play=played.append)
    _press(menu.buttons["main/Play"])
    assert menu.page == "setup"
    menu.setup_rows["bots"].step(1)          # 3 -> 4
    menu.setup_rows["map"].step(1)           # desert -> flat
    menu.setup_rows["gearbox"].step(1)       # automatic -> manual
    menu.setup_rows["allies"].step(1)        # 0 -> 1
    _press(menu.buttons["setup/Start"])
    assert played == [MatchSetup(map="flat", vehicle="tank", bots=4, difficulty="normal",
                                 gearbox="manual", rounds=5, tank="medium", allies=1)]
    menu.act("back")
    assert menu.page == "main"
    menu.destroy()


def test_the_keyboard_walks_the_main_page_and_presses(config):
    played = []
    menu = _title(config, on_play=played.append)
    assert menu.focus.current.widget is menu.buttons["main/Play"]
    menu.act("down")
    assert menu.focus.current.widget is menu.buttons["main/Firing range"]
    menu.act("up")
    menu.act("activate")  # Play
    assert menu.page == "setup"
    menu.act("right")     # the first row, the map: desert -> flat
    assert menu.setup_rows["map"].value == "flat"
    for _ in range(len(menu.items["setup"]) - 2):
        menu.act("down")
    menu.act("activate")  # Start
    assert played and played[0].map == "flat"
    menu.destroy()


def test_every_page_goes_back_to_the_main_page(config):
    menu = _title(config)
    for page in ("setup", "host", "join"):
        menu.show_page(page)
        assert menu.focus.current is not None, page
        menu.act("back")
        assert menu.page == "main"
    menu.act("back")  # nothing before the main page
    assert menu.page == "main"
    menu.destroy()


def test_a_bad_port_on_the_host_page_is_said_not_started(config):
    hosted = []
    menu = _title(config, on_host=hosted.append)
    menu.host_port.entry.enterText("99999")
    _press(menu.buttons["host/Start server"])
    assert hosted == [] and "99999" in menu.status["host"]["text"]
    menu.destroy()


def test_focus_steps_a_slider_within_its_range():
    from direct.gui.DirectGui import DirectSlider
    slider = DirectSlider(parent=NodePath("page"), range=(0.0, 1.0), value=0.95, pageSize=0.1)
    focus = MenuFocus((1, 1, 1, 1), 2.0)
    focus.set_items([slider])
    focus.act("right")
    assert slider["value"] == pytest.approx(1.0)
    focus.act("left")
    assert slider["value"] == pytest.approx(0.9)
    slider.destroy()


# ----- the front door -----------------------------------------------------------------------

def _front_door(config, joiner=None, hoster=None):
    app = FakeApp()
    door = FrontDoor(app.send, lambda **callbacks: _title(config, **callbacks),
                     GameOptions(seed=7), online=OnlineSettings("config", 27960, 1.0),
                     joiner=joiner, hoster=hoster)
    return app, door


def test_match_setup_becomes_the_games_options():
    options = options_for(SETUP, GameOptions(seed=7))
    assert (options.map, options.seed, options.bots, options.gearbox, options.rounds) == (
        MapChoice("desert"), 7, 3, "automatic", 5)
    assert setup_from(GameOptions(bots=2), "hard", 3, 4, "medium") == MatchSetup(
        "desert", "tank", 2, "hard", "automatic", 3, tank="medium")
    assert setup_from(GameOptions(tank="light"), "hard", 3, 4, "medium").tank == "light"
    assert options_for(replace(SETUP, tank="heavy"), GameOptions()).tank == "heavy"
    assert options_for(replace(SETUP, allies=2), GameOptions()).allies == 2
    assert options_for(replace(SETUP, allies=2, bots=0), GameOptions()).allies == 0  # no foe
    assert setup_from(GameOptions(bots=2, allies=1), "hard", 3, 4, "medium").allies == 1


def test_match_setup_offers_the_tank_classes_lightest_first_and_starts_the_one_chosen(config):
    menu = _title(config)
    row = menu.setup_rows["tank"]
    assert row.values == ["light", "medium", "heavy"]
    row.press()
    assert menu.current_setup().tank == row.value


def test_match_setup_offers_the_configs_bots_when_the_command_line_asks_for_none(config):
    """A game started with no flags opens match setup with bots to fight, not an empty
    desert: the config's ``setup_bots``; a command line's --bots wins."""
    setup_bots = config.view.title_menu.setup_bots
    assert setup_bots > 0
    assert setup_from(GameOptions(), "normal", 5, setup_bots).bots == setup_bots
    assert setup_from(GameOptions(bots=7), "normal", 5, setup_bots).bots == 7


def test_the_firing_range_has_no_bots(config):
    app, door = _front_door(config)
    _press(door.menu.buttons["main/Firing range"])
    [start] = app.started
    assert isinstance(start, StartMatch) and app.state is PLAYING
    assert start.options.map == MapChoice("range") and start.options.bots == 0
    door.destroy()


@pytest.mark.parametrize("text, expected", [("example.org", ("example.org", 27960)),
                                            ("10.0.0.2:4000", ("10.0.0.2", 4000))])
def test_a_server_address_may_leave_out_the_port(text, expected):
    assert parse_address(text, 27960) == expected


@pytest.mark.parametrize("text", ["", ":4000", "host:0", "host:port", "host:70000"])
def test_a_bad_server_address_is_refused(text):
    with pytest.raises(ValueError):
        parse_address(text, 27960)


class FakeJoin:
    def __init__(self, answers):
        self.answers = list(answers)

    def poll(self):
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_joining_polls_until_in_then_starts_the_online_game(config):
    joins = []

    def joiner(host, port, name, vehicle, tank):
        joins.append((host, port, name, vehicle, tank))
        return FakeJoin([None, None, "session"])
    app, door = _front_door(config, joiner=joiner)
    _press(door.menu.buttons["main/Join game"])
    assert app.state is MATCH_SETUP
    door.menu.join_address.entry.enterText("10.1.2.3:5000")
    tank_row = door.menu.join_rows["tank"]
    while tank_row.value != "heavy":  # the tank class goes with the join
        tank_row.press()
    _press(door.menu.buttons["join/Join"])
    assert joins == [("10.1.2.3", 5000, "ann", "tank", "heavy")]
    assert "Joining 10.1.2.3:5000" in door.menu.status["join"]["text"]
    _press(door.menu.buttons["join/Back"])  # the pages may be looked through meanwhile
    assert app.state is JOINING and door.menu.page == "main"
    for _ in range(3):
        door.update()
    assert app.started == [Joined("session", "automatic")] and app.state is PLAYING
    door.destroy()


def test_a_refusal_is_said_on_the_page_and_the_menu_stays(config):
    from game.sim.net.joining import ConnectionRefused
    app, door = _front_door(config, joiner=lambda *request: FakeJoin(
        [ConnectionRefused("10.1.2.3:5000 refused us: the server is full")]))
    _press(door.menu.buttons["main/Join game"])
    door.menu.join_address.entry.enterText("10.1.2.3:5000")
    _press(door.menu.buttons["join/Join"])
    _press(door.menu.buttons["join/Back"])  # the refusal brings the page back to say why
    door.update()
    assert app.started == [] and "server is full" in door.menu.status["join"]["text"]
    assert app.state is MATCH_SETUP and door.menu.page == "join"
    door.destroy()


class FakeServer:
    def __init__(self, answers):
        self.answers, self.stopped = list(answers), False

    def poll(self):
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    def stop(self):
        self.stopped = True


def test_hosting_starts_a_server_then_joins_it_here(config):
    servers, joins = [], []

    def hoster(arguments):
        servers.append((arguments, FakeServer([None, 27999])))
        return servers[-1][1]

    def joiner(host, port, name, vehicle, tank):
        joins.append((host, port))
        return FakeJoin(["session"])
    app, door = _front_door(config, joiner=joiner, hoster=hoster)
    _press(door.menu.setup_rows["gearbox"].more)  # match setup's gearbox: manual
    _press(door.menu.buttons["main/Host game"])
    _press(door.menu.buttons["host/Start server"])
    assert app.state is JOINING
    arguments = servers[0][0]
    assert arguments[:2] == ["--serve", "--host"]
    assert arguments[arguments.index("--bots") + 1] == "3"
    for _ in range(3):
        door.update()
    assert joins == [("127.0.0.1", 27999)]
    assert app.started == [Joined("session", "manual")] and app.state is PLAYING
    door.leave_hosted()
    assert servers[0][1].stopped and door.hosted is None
    door.destroy()


def test_a_server_that_will_not_start_says_why(config):
    app, door = _front_door(config, hoster=lambda arguments: FakeServer(
        [HostingFailed("--port: expected a free port to serve on")]))
    _press(door.menu.buttons["main/Host game"])
    _press(door.menu.buttons["host/Start server"])
    door.update()
    assert "free port" in door.menu.status["host"]["text"] and door.hosted is None
    assert app.state is MATCH_SETUP and door.menu.page == "host"
    door.destroy()


needs_enet = pytest.mark.skipif(not enet_available(), reason="pyenet is not installed")


@needs_enet
def test_a_hosted_server_process_reports_its_port_and_stops():
    server = HostedServer(["--serve", "--host", "127.0.0.1", "--port", "0"], stop_wait_s=5.0)
    try:
        port = None
        for _ in range(600):  # bounded: at most a minute for it to start
            port = server.poll()
            if port is not None:
                break
            time.sleep(0.1)
        assert port is not None and 0 < port < 65536
    finally:
        server.stop()
    assert not server.running


def test_a_hosted_server_that_fails_says_its_own_reason():
    server = HostedServer(["--serve", "--port", "99999999"], stop_wait_s=5.0)
    server.process.wait(120)
    deadline = time.monotonic() + 10.0  # its error line may come just after it exits
    with pytest.raises(HostingFailed, match="port"):
        while time.monotonic() < deadline:
            server.poll()
            time.sleep(0.05)
