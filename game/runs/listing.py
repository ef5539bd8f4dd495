"""``tank-battle --list-server``: the list of dedicated servers, served over HTTP until
Ctrl+C (or ``--seconds``); ``tank-battle --list [URL]``: the servers it lists, printed."""

from __future__ import annotations

import logging
import signal
import time

from common.errors import UserError
from game.config import load_config
from game.menus.join_history import chosen_list_url
from game.sim.net.browse import ListUnavailable, fetch_servers, pinged_servers, shown, table
from game.sim.net.link import enet_available

log = logging.getLogger(__name__)


def run_list_server_command(args) -> int:
    spec = load_config(args.config).game.listing
    port = spec.port if args.port is None else args.port
    stopping: list[int] = []
    for signal_number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signal_number, lambda number, _frame: stopping.append(number))
    ends_s = None if args.seconds is None else time.monotonic() + args.seconds

    def ready(host: str, bound_port: int) -> None:
        print(f"listing on {host}:{bound_port}", flush=True)
        log.info("list server on %s:%d", host, bound_port)

    def stop() -> bool:
        return bool(stopping) or (ends_s is not None and time.monotonic() >= ends_s)
    from game.sim.net.list_service import run_list_server  # aiohttp: only for the list

    try:
        run_list_server(args.host, port, spec, ready, stop)
    except OSError as error:
        raise UserError("--port", None, f"a free port to list on ({error})") from None
    log.info("list server stopped (%s)", f"signal {stopping[0]}" if stopping else
             "its time was up")
    return 0


def print_servers(args) -> int:
    """The servers the list at ``--list URL`` lists (else the one the player chose on the
    Find game page, else config's), a line each with the ping measured from here, most
    players first; a list that cannot be read: one line, exit 2."""
    spec = load_config(args.config).game.listing
    url = args.list or chosen_list_url() or spec.url
    try:  # pinged where ENet is there to ping with
        servers = (pinged_servers(url, spec.verify_timeout_s) if enet_available()
                   else fetch_servers(url))
    except ListUnavailable as error:
        raise UserError(error.url, None, error.expected) from None
    for line in table(shown(servers)):
        print(line)
    return 0
