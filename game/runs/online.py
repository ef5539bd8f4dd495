"""Online play from the command line: ``--serve`` (a dedicated server) and ``--connect``.

The server and a headless client run here; a client with a window runs in
:mod:`game.app` with a :class:`~game.sim.net.client.NetClient` in place of a local game.
Refusals, unreachable servers and a server lost mid-game (silent for ``server_timeout_s``,
or gone without a goodbye) are one line on stderr and exit status 2; a game the server ends
normally is one line on stdout and exit 0.
"""

from __future__ import annotations

import logging
import signal
import socket
import sys
from dataclasses import replace

from common.errors import CommandLineError, UserError
from game.config import check_tank_class, load_config
from game.sim.controls import Controls, ScriptedInputs
from game.sim.net.announce import Announcer
from game.sim.net.client import NetClient, ServerGone
from game.sim.net.joining import ConnectionRefused, JoinRequest, join
from game.sim.net.link import DEFAULT_PORT, INSTALL_HINT, Endpoint, enet_available
from game.sim.net.listing import TEXT_MOST as NAME_MOST
from game.sim.net.protocol import PROTOCOL
from game.sim.net.runs import run_client
from game.sim.net.server import GameServer, ServerIdentity
from game.sim.replay import config_digest, game_version
from game.sim.session import GameOptions
from game.sim.telemetry import TelemetryWriter

log = logging.getLogger(__name__)

EXIT_REFUSED = 2
DEFAULT_CLIENT_SECONDS = 10.0
"""A headless client plays this long without --seconds."""
SPARE_PEERS = 4
"""ENet slots beyond --max-players: room to tell one more that the server is full."""


def identity(config_dir) -> ServerIdentity:
    return ServerIdentity(game_version(), bytes.fromhex(config_digest(config_dir)))


def run_online(args) -> int:
    flag = "--serve" if args.serve else "--connect"
    if not enet_available():
        raise CommandLineError(f"{flag} needs {INSTALL_HINT}")
    if args.serve:
        return serve(args)
    if not args.headless:
        return run_windowed_client(args)
    return run_headless_client(args)


def serve(args) -> int:
    config = load_config(args.config)
    try:
        endpoint = Endpoint.listen(args.host, DEFAULT_PORT if args.port is None else args.port,
                                   args.max_players + SPARE_PEERS)
    except OSError as error:
        raise UserError("--port", None, f"a free port to serve on ({error})") from None
    options = GameOptions(args.map, args.seed, None, args.bots, difficulty=args.difficulty,
                          rounds=args.rounds)
    telemetry = TelemetryWriter(args.telemetry) if args.telemetry else None
    server = GameServer(config.session, config.game.net, options, identity(args.config),
                        endpoint, args.max_players, telemetry)
    stopping = []
    for signal_number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signal_number, lambda number, _frame: stopping.append(number))
    print(f"serving on {args.host}:{endpoint.port}", flush=True)
    log.info("server: up to %d players, %d bots, map %s, seed %d", args.max_players,
             args.bots, args.map.text, args.seed)
    announcer = None
    if args.announce:
        announcer = Announcer(args.announce, lambda: announcement(args, server, endpoint.port),
                              config.game.listing.renew_s)
        announcer.start()
    try:
        server.run(args.seconds, should_stop=lambda: bool(stopping))
    finally:
        if announcer is not None:
            announcer.stop()
        server.destroy()
        if telemetry is not None:
            telemetry.close()
    log.info("server stopped (%s)", f"signal {stopping[0]}" if stopping else "its time was up")
    return 0


def announcement(args, server: GameServer, port: int) -> dict:
    """What this server says of itself to the list server (read in the announcer's
    thread: counts and fixed values only)."""
    return {"name": args.name or f"{socket.gethostname()[:NAME_MOST]}", "port": port,
            "map": args.map.text, "mode": args.mode, "players": server.players,
            "max_players": args.max_players, "version": server.identity.version,
            "protocol": PROTOCOL, "config_digest": server.identity.config_digest.hex()}


def connect(args, config) -> NetClient:
    """Join the server ``--connect`` names; raises :class:`ConnectionRefused`."""
    address, port = args.connect
    endpoint = Endpoint.client(args.net_sim, seed=args.seed)
    check_tank_class(args.tank, config.tanks)
    request = JoinRequest(address, port, args.name, args.vehicle, game_version(),
                          bytes.fromhex(config_digest(args.config)), args.tank or "")
    log.info("joining %s:%d", address, port)
    joined = join(endpoint, request, config.game.net.connect_timeout_s)
    log.info("joined as %s: map %s, seed %d", joined.welcome.name, joined.welcome.map,
             joined.welcome.seed)
    return NetClient(config.session, config.game.net, endpoint, joined, args.vehicle,
                     args.tank)


def run_headless_client(args) -> int:
    config = load_config(args.config)
    inputs = ScriptedInputs.load(args.inputs) if args.inputs else None
    telemetry = TelemetryWriter(args.telemetry) if args.telemetry else None
    try:
        try:
            client = connect(args, config)
        except ConnectionRefused as error:
            return refused(error)
        idle = Controls()
        try:
            run_client(client, inputs.controls_at if inputs else lambda _t: idle,
                       args.seconds or DEFAULT_CLIENT_SECONDS,
                       config.game.net.connect_timeout_s, telemetry)
        except ServerGone as gone:
            return game_over(gone)
        except ConnectionRefused as error:
            return refused(error)
        finally:
            client.close()
    finally:
        if telemetry is not None:
            telemetry.close()
    return 0


def run_windowed_client(args) -> int:
    """A window on a server's game: joined first (a refusal is one line, exit 2)."""
    from game.runs.windowed import run_windowed  # Panda's window: only when one opens
    from game.runs.windowed_run import WindowedRun
    from game.sim.net.shown import ClientSession
    from game.window_config import load_window_config
    config = load_window_config(args.config)
    inputs = ScriptedInputs.load(args.inputs) if args.inputs else None
    telemetry = TelemetryWriter(args.telemetry) if args.telemetry else None
    try:
        try:
            session = ClientSession(connect(args, config))
        except ConnectionRefused as error:
            return refused(error)
        # The game's options are the server's, but the gearbox is this player's own.
        options = replace(session.options, gearbox=args.gearbox)
        run = WindowedRun(options, offscreen=args.offscreen, inputs=inputs,
                          telemetry=telemetry, seconds=args.seconds,
                          debug_rays=args.debug_rays, online=session)
        run_windowed(config, run, screenshot=args.screenshot)  # closes the session
    finally:
        if telemetry is not None:
            telemetry.close()
    gone = session.client.gone
    return game_over(gone) if gone is not None else 0


def refused(error: ConnectionRefused) -> int:
    """One line on why we could not play there; the exit status."""
    print(f"tank-battle: {error}", file=sys.stderr)
    return EXIT_REFUSED


def game_over(gone: ServerGone) -> int:
    """One line on how the game ended; the exit status."""
    if gone.normal:
        print(f"tank-battle: the server ended the game: {gone}", flush=True)
        return 0
    print(f"tank-battle: {gone}", file=sys.stderr)
    return EXIT_REFUSED
