"""The command line: parse flags, load config, run headless or windowed.

Every user error (bad flag, missing or malformed file, bad config value) is
printed as one line on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import logging
import math
import platform
import sys
from pathlib import Path

from common import compiled
from common.errors import CommandLineError, UserError, whole_number
from common.logs import (DEFAULT_LEVEL, LEVELS, configure_logging, default_log_file, parse_level,
                       record_crash, reset_logging)
from game import __version__
from game.config import CONFIG_DIR, check_tank_class, load_config
from game.runs.headless import DEFAULT_HEADLESS_SECONDS, header_for, run_headless
from game.runs.windowed_run import DEFAULT_OFFSCREEN_SECONDS
from game.sim.ai import DIFFICULTIES
from game.sim.arena import GEARBOXES
from game.sim.battle import rounds_limits
from game.sim.controls import ScriptedInputs
from game.sim.local_players import MAX_PLAYERS
from game.sim.net.listing import list_url_expected
from game.sim.net.link import DEFAULT_PORT
from game.sim.replay import config_digest, load_replay
from game.sim.session import GameOptions
from game.sim.telemetry import TelemetryWriter
from game.sim.zone import MODES
from physics.model.terrain import MapChoice

EXIT_USAGE = 2
MAX_BOTS = 32
MAX_NET_PLAYERS = 64

log = logging.getLogger(__name__)


class _OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line naming the flag, then exit 2."""

    def error(self, message: str):
        raise CommandLineError(message)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0.0:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a positive number of seconds")
    return value


def _map_choice(text: str) -> MapChoice:
    try:
        return MapChoice.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"{text!r}: expected {error}") from None


def _log_level(text: str) -> str:
    try:
        return parse_level(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(prog="tank-battle", description="Tank Battle: a 3D tank game.")
    parser.add_argument("--headless", action="store_true",
                        help="no window, no audio; run --seconds as fast as possible, then exit")
    parser.add_argument("--vehicle", choices=["tank", "car"], default="tank",
                        help="the player's vehicle (default tank)")
    parser.add_argument("--tank", default=None, metavar="NAME",
                        help="the player's tank class: light, medium or heavy as shipped (the "
                             "files in config/tanks/; default: config/game.toml's [spawn] "
                             "tank)")
    parser.add_argument("--map", type=_map_choice, default=MapChoice("desert"),
                        metavar="desert|desert:SIZE|flat|slope:DEG|range",
                        help="terrain (default desert; desert:SIZE a SIZE-metre desert made in "
                             "tiles, 512..16384)")
    parser.add_argument("--seed", type=whole_number(0, None, "seed"), default=1,
                        help="world seed (default 1)")
    parser.add_argument("--bots", type=whole_number(0, MAX_BOTS, "bots"), default=0,
                        help="enemy tanks (default 0)")
    parser.add_argument("--allies", type=whole_number(0, MAX_BOTS, "allies"), default=0,
                        help="bots on your side against the --bots (default 0)")
    parser.add_argument("--difficulty", choices=DIFFICULTIES, default=None,
                        help="the bots' level (default: config/game.toml's [ai] difficulty)")
    parser.add_argument("--rounds", type=whole_number(*rounds_limits(), "rounds"), default=None,
                        help="rounds in a match (default: config/game.toml's [battle] rounds)")
    parser.add_argument("--mode", choices=MODES, default=MODES[0],
                        help="battle: a round ends when a side is destroyed; zone: also when "
                             "a side holds the capture zone round the player's spawn alone "
                             "long enough (default battle)")
    parser.add_argument("--gearbox", choices=GEARBOXES, default=None,
                        help="your gearbox (default: automatic in a window you play in, "
                             "else config/game.toml's [spawn] start_gear)")
    parser.add_argument("--player-ai", choices=DIFFICULTIES, default=None,
                        help="the bot brain drives your vehicle at this level (for watching, "
                             "tests and the bots' tournament)")
    parser.add_argument("--players", type=whole_number(1, MAX_PLAYERS, "players"), default=1,
                        help="local players: 2 splits the window, player 2 drives a second "
                             "vehicle with a gamepad (headless: it stands still)")
    parser.add_argument("--seconds", type=_seconds, default=None,
                        help=f"simulated seconds to run (headless default "
                             f"{DEFAULT_HEADLESS_SECONDS:g}, offscreen "
                             f"{DEFAULT_OFFSCREEN_SECONDS:g}, windowed: until closed)")
    parser.add_argument("--inputs", type=Path, metavar="FILE",
                        help="scripted controls (JSON) instead of devices")
    parser.add_argument("--telemetry", type=Path, metavar="FILE",
                        help="write one JSON line per fixed step about the player's vehicle")
    parser.add_argument("--offscreen", action="store_true",
                        help="render into an offscreen buffer instead of a window")
    parser.add_argument("--screenshot", type=Path, metavar="FILE.png",
                        help="save the last rendered frame as a PNG")
    parser.add_argument("--debug-rays", action="store_true",
                        help="start with the suspension-ray overlay on (F3 toggles it)")
    parser.add_argument("--record", type=Path, metavar="FILE",
                        help="save a replay of this game (windowed games also save one in "
                             "your data folder on quit)")
    parser.add_argument("--replay", type=Path, metavar="FILE",
                        help="play a recorded game back, step for step")
    parser.add_argument("--config", type=Path, default=CONFIG_DIR, metavar="DIR",
                        help="folder of the TOML config files (default: the game's config/)")
    parser.add_argument("--menu", action="store_true",
                        help="open on the title menu even with --offscreen or match flags "
                             "(which then preset match setup); a window with no match flags "
                             "opens on it anyway")
    _add_online_arguments(parser.add_argument_group("online play"))
    _add_diagnostic_arguments(parser)
    return parser


def _add_diagnostic_arguments(parser) -> None:
    """``--log-level``, ``--log-file`` and ``--version``."""
    parser.add_argument("--log-level", type=_log_level, default=DEFAULT_LEVEL,
                        metavar="|".join(LEVELS),
                        help=f"the least serious message shown on stderr (default "
                             f"{DEFAULT_LEVEL}; any case)")
    parser.add_argument("--log-file", type=Path, metavar="FILE",
                        help="also log to FILE, with time stamps and Panda3D's own messages "
                             "(a packaged build always logs to its data folder)")
    parser.add_argument("--prepare", action="store_true",
                        help="compile the physics for this machine once, ahead of play "
                             "(for installers and CI), saying how it goes; then exit")
    parser.add_argument("--version", action="version", version=f"tank-battle {__version__}")


def _list_url(text: str) -> str:
    """An argparse type: a list server's address."""
    expected = list_url_expected(text)
    if expected is not None:
        raise argparse.ArgumentTypeError(f"{text!r}: expected {expected}")
    return text


def _list_url_or_none(text: str) -> str:
    """A list server's address, or "": ``--list`` naming none."""
    return _list_url(text) if text else text


def _add_online_arguments(online) -> None:
    """``--serve``, ``--connect`` and what goes with them."""
    online.add_argument("--serve", action="store_true",
                        help="run a dedicated server: no window, the game in real time; "
                             'prints "serving on HOST:PORT" first')
    online.add_argument("--host", default="0.0.0.0",
                        help="the address a server listens on (default 0.0.0.0: all)")
    online.add_argument("--port", type=whole_number(0, 65535, "port"), default=None,
                        help=f"the port a server listens on (default {DEFAULT_PORT}; a list "
                             "server: config/game.toml's [listing] port; 0: any free one, "
                             "printed)")
    online.add_argument("--announce", metavar="URL", type=_list_url,
                        help="a server: announce itself to the list server at URL (every few "
                             "seconds), named by --name")
    online.add_argument("--list", nargs="?", const="", metavar="URL", type=_list_url_or_none,
                        help="the list server Find game reads (default: the one chosen there "
                             "before, else config/game.toml's [listing] url); with "
                             "--headless, print its servers, each with its ping, and exit")
    online.add_argument("--list-server", action="store_true",
                        help="run a list server, where dedicated servers announce themselves "
                             "and players find them; prints \"listing on HOST:PORT\" first")
    online.add_argument("--max-players", type=whole_number(1, MAX_NET_PLAYERS, "players"),
                        default=8, help="players a server lets in (default 8)")
    online.add_argument("--connect", type=_server_address, metavar="HOST:PORT",
                        help="join a server (with --headless: a scripted client)")
    online.add_argument("--name", default="", help="your name in an online game (default "
                                                   "player-N)")
    online.add_argument("--net-sim", type=_link_simulation, metavar="LATENCY_MS,JITTER_MS,LOSS_PCT",
                        help="a client's simulated link: every packet each way waits LATENCY "
                             "+- JITTER ms, LOSS %% of the unreliable ones are lost")


def _server_address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r}: expected HOST:PORT, like 127.0.0.1:"
                                         f"{DEFAULT_PORT}")
    return host, int(port)


def _link_simulation(text: str):
    from game.sim.net.link import LinkSimulation
    try:
        return LinkSimulation.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"{text!r}: expected {error}") from None


NOT_MATCH_FLAGS = frozenset({"config", "menu", "offscreen", "screenshot", "debug_rays",
                             "record", "telemetry", "help", "log_level", "log_file", "version",
                             "list", "prepare"})
"""Flags that set up how a game is shown or kept, not which game: a window given only these
still opens on the title menu."""


def match_flags_given(argv: list[str] | None) -> set[str]:
    """The match flags on the command line (their argparse names), given at all, even at
    their default values."""
    detector = build_parser()
    for action in detector._actions:
        action.default = argparse.SUPPRESS
    return set(vars(detector.parse_args(argv))) - NOT_MATCH_FLAGS


def _check_arguments(args: argparse.Namespace) -> None:
    if args.replay and args.inputs:
        raise CommandLineError("--replay plays recorded controls: drop --inputs")
    if args.player_ai and (args.inputs or args.replay):
        raise CommandLineError("--player-ai drives the player's vehicle: drop --inputs and "
                               "--replay")
    if args.players > 1 and (args.record or args.replay):
        raise CommandLineError(f"--players {args.players}: replays hold one player's controls; "
                               "drop --record and --replay")
    if args.headless and (args.offscreen or args.screenshot):
        raise CommandLineError("--headless draws nothing: drop --offscreen and --screenshot")
    if args.menu:
        _refuse_given("--menu opens the title menu", (
            ("--headless", args.headless), ("--serve", args.serve),
            ("--connect", args.connect), ("--inputs", args.inputs),
            ("--replay", args.replay), ("--player-ai", args.player_ai),
            ("--players", args.players > 1)))
    if args.allies and not args.bots and not args.replay:
        raise CommandLineError(f"--allies {args.allies}: they fight beside you against the "
                               "bots: add --bots N")
    if args.screenshot is not None:
        if args.screenshot.suffix.lower() != ".png":
            raise CommandLineError(f"--screenshot {args.screenshot}: expected a file name "
                                   "ending in .png")
        if not args.screenshot.resolve().parent.is_dir():
            raise CommandLineError(f"--screenshot {args.screenshot}: expected a file in an "
                                   "existing folder")
    _check_online_arguments(args)


def _check_online_arguments(args: argparse.Namespace) -> None:
    if args.list is not None:
        _refuse_given("--list names the list server Find game reads (with --headless: "
                      "prints it)", (
                          ("--list-server", args.list_server), ("--serve", args.serve),
                          ("--connect", args.connect), ("--bots", args.bots),
                          ("--allies", args.allies),
                          ("--inputs", args.inputs), ("--telemetry", args.telemetry),
                          ("--name", args.name)))
    if args.list_server:
        _refuse_given("--list-server runs the list alone", (
            ("--serve", args.serve), ("--connect", args.connect), ("--headless", args.headless),
            ("--offscreen", args.offscreen), ("--bots", args.bots), ("--allies", args.allies),
            ("--inputs", args.inputs),
            ("--telemetry", args.telemetry), ("--record", args.record),
            ("--replay", args.replay), ("--name", args.name), ("--net-sim", args.net_sim)))
        return
    if args.announce and not args.serve:
        raise CommandLineError("--announce URL is for a server: add --serve")
    if args.port is not None and not args.serve:
        raise CommandLineError("--port is where a server listens: add --serve or --list-server")
    if args.serve and args.connect:
        raise CommandLineError("--serve runs a server, --connect joins one: choose one")
    if (args.serve or args.connect) and args.mode != MODES[0]:
        raise CommandLineError(f"--mode {args.mode} is not played online yet: drop --mode, "
                               f"or --serve and --connect")
    if args.serve:
        _refuse_given("--serve runs no local player", (
            ("--inputs", args.inputs), ("--offscreen", args.offscreen),
            ("--gearbox", args.gearbox),
            ("--screenshot", args.screenshot), ("--record", args.record),
            ("--replay", args.replay), ("--players", args.players > 1),
            ("--net-sim", args.net_sim), ("--player-ai", args.player_ai),
            ("--allies", args.allies)))
        if args.name and not args.announce:
            raise CommandLineError("--name names a server in the list: add --announce URL")
    elif args.connect:
        _refuse_given("--connect plays the server's game", (
            ("--bots", args.bots), ("--allies", args.allies), ("--record", args.record),
            ("--replay", args.replay),
            ("--players", args.players > 1), ("--difficulty", args.difficulty),
            ("--player-ai", args.player_ai), ("--rounds", args.rounds),
            ("--gearbox", args.gearbox)))
    elif args.net_sim or args.name:
        raise CommandLineError("--net-sim and --name are for a client: add --connect HOST:PORT")


def _refuse_given(why: str, flags) -> None:
    """One line naming every flag of ``flags`` (flag, value) that was given."""
    given = [flag for flag, value in flags if value]
    if given:
        raise CommandLineError(f"{why}: drop {', '.join(given)}")


def run(argv: list[str] | None = None) -> int:
    """Run the game; raises UserError for anything the user got wrong."""
    args = build_parser().parse_args(argv)
    _check_arguments(args)
    _start_logging(args)
    # A window with no match flags is someone starting the game: the title menu.
    args.menu = args.menu or not (args.headless or args.offscreen
                                  or match_flags_given(argv))
    args.gearbox = player_gearbox(args)
    if args.prepare:
        from game.runs.prepare import prepare
        return prepare(args)
    if args.list is not None and args.headless:
        from game.runs.listing import print_servers
        return print_servers(args)
    if args.list_server:
        from game.runs.listing import run_list_server_command  # aiohttp: only for the list
        return run_list_server_command(args)
    if not _played_in_a_window(args) and compiled.needs_preparing():
        from game.runs.prepare import prepare_first  # a window shows its progress screen
        prepare_first(args)
    if args.serve or args.connect:
        from game.runs.online import run_online  # ENet: only for online play
        return run_online(args)
    if args.headless:
        config = load_config(args.config)
    else:  # a window reads the view's and the controls' config too
        from game.window_config import load_window_config
        config = load_window_config(args.config)
    digest = config_digest(args.config)
    step_hz = config.game.simulation.step_hz
    if args.replay:
        replay = load_replay(args.replay, digest, step_hz)
        header = replay.header
        args.seed, args.vehicle, args.bots = header.seed, header.vehicle, header.bots
        args.difficulty = header.difficulty or None
        args.rounds = header.rounds_option()
        args.gearbox = header.gearbox or None
        args.mode = header.mode
        args.tank = header.tank or None
        args.allies = header.allies
        args.map = MapChoice.parse(header.map)
        if args.seconds is None:
            args.seconds = header.steps / step_hz
        inputs = replay
    else:
        inputs = ScriptedInputs.load(args.inputs) if args.inputs else None
    check_tank_class(args.tank, config.tanks, replay=args.replay)
    options = GameOptions(args.map, args.seed, args.vehicle, args.bots, players=args.players,
                          allies=args.allies, difficulty=args.difficulty,
                          player_ai=args.player_ai,
                          rounds=args.rounds, gearbox=args.gearbox, mode=args.mode,
                          tank=args.tank)
    telemetry = TelemetryWriter(args.telemetry) if args.telemetry else None
    try:
        if args.headless:
            run_headless(args, config, options, header_for(options, digest), inputs,
                         telemetry)
            return 0
        from game.runs.windowed import run_from_command_line  # Panda's window: only then
        return run_from_command_line(args, config, options, digest, inputs, telemetry)
    finally:
        if telemetry is not None:
            telemetry.close()


def _start_logging(args: argparse.Namespace) -> None:
    """The log set up as the flags say, and its first lines: what runs, and how."""
    log_file = configure_logging(args.log_level, args.log_file or default_log_file(args.serve),
                                 keep_previous=args.log_file is None)
    log.info("version %s, Python %s on %s", __version__, platform.python_version(),
             platform.platform())
    if log_file is not None:
        log.info("logging to %s", log_file)
    log.info("config folder: %s", args.config)
    compiled.log_status()


def _played_in_a_window(args) -> bool:
    """A person playing in a window: not headless, a server, offscreen, scripted or timed."""
    return not (args.headless or args.serve or args.offscreen or args.inputs or args.replay
                or args.seconds is not None)


def player_gearbox(args) -> str | None:
    """``--gearbox``, else a new player's: automatic in a window played by hand. Headless,
    offscreen, scripted and timed runs keep ``[spawn] start_gear`` (their telemetry with it)."""
    return args.gearbox or ("automatic" if _played_in_a_window(args) else None)


def main(argv: list[str] | None = None) -> int:
    try:
        return run(argv)
    except UserError as error:
        print(f"tank-battle: {error}", file=sys.stderr)
        log.info("stopped: %s", error)  # a packaged build has no console: its log says why
        return EXIT_USAGE
    except Exception:
        record_crash()
        raise
    finally:
        reset_logging()
