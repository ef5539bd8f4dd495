"""The list server's HTTP side (aiohttp): the routes over a
:class:`~game.sim.net.listing.ServerList`, and running it (``tank-battle --list-server``)."""

from __future__ import annotations

import asyncio
from typing import Callable

from aiohttp import web

from game.sim.net.listing import ListingSpec, ServerList, thread_verifier

FILTERS = ("version", "map", "mode", "not_full")
"""What ``GET /servers`` may be asked."""
STOP_POLL_S = 0.2


def make_app(server_list: ServerList) -> web.Application:
    """The service: ``POST /announce``, ``GET /servers`` (module :mod:`~game.sim.net.listing`)."""
    app = web.Application(client_max_size=server_list.spec.body_bytes_most)

    async def announce(request: web.Request) -> web.Response:
        try:
            body = await request.read()
        except web.HTTPRequestEntityTooLarge:
            return web.json_response({"error": f"an announcement of at most "
                                               f"{server_list.spec.body_bytes_most} bytes"},
                                     status=413)
        status, answer = await server_list.announce(request.remote or "", body)
        return web.json_response(answer, status=status)

    async def servers(request: web.Request) -> web.Response:
        query = request.query
        unknown = sorted(set(query) - set(FILTERS))
        if unknown:
            return web.json_response({"error": f"unknown filter {unknown[0]!r}; expected "
                                               f"{', '.join(FILTERS)}"}, status=400)
        not_full = query.get("not_full", "0")
        if not_full not in ("0", "1"):
            return web.json_response({"error": "not_full: expected 0 or 1"}, status=400)
        return web.json_response({"servers": server_list.servers(
            query.get("version"), query.get("map"), query.get("mode"), not_full == "1")})

    app.router.add_post("/announce", announce)
    app.router.add_get("/servers", servers)
    return app


async def _serve(host: str, port: int, spec: ListingSpec,
                 ready: Callable[[str, int], None], stop: Callable[[], bool]) -> None:
    runner = web.AppRunner(make_app(ServerList(spec, thread_verifier(spec.verify_timeout_s))),
                           access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
        bound = runner.addresses[0]
        ready(host, int(bound[1]))
        while not stop():
            await asyncio.sleep(STOP_POLL_S)
    finally:
        await runner.cleanup()


def run_list_server(host: str, port: int, spec: ListingSpec,
                    ready: Callable[[str, int], None],
                    stop: Callable[[], bool] = lambda: False) -> None:
    """Serve the list on ``host:port`` (0: any free port) until ``stop()`` (or Ctrl+C);
    ``ready(host, port)`` once it listens. Raises OSError when it cannot listen."""
    asyncio.run(_serve(host, port, spec, ready, stop))
