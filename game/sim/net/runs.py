"""Headless network runs in real time: the dedicated server and the scripted client.

Both pace themselves by the clock, a step every 1/step_hz s, waiting on the network in
between (ENet's service call sleeps until a packet comes or the next step is due).
"""

from __future__ import annotations

from typing import Callable

from game.sim.controls import Controls
from game.sim.net.client import NetClient
from game.sim.net.joining import ConnectionRefused
from game.sim.net.server import CATCH_UP_MOST_S
from game.sim.telemetry import TelemetryWriter


def run_client(client: NetClient, controls_at: Callable[[float], Controls], seconds: float,
               connect_timeout_s: float, telemetry: TelemetryWriter | None = None) -> None:
    """Drive a joined client for ``seconds`` from its first step, in real time, with
    ``controls_at(t)`` (t from joining). Raises :class:`~game.sim.net.client.ServerGone`
    when the server ends the game or is lost first, :class:`ConnectionRefused` when no
    snapshot comes."""
    clock = client.endpoint.clock
    started_s = clock()
    next_step_s = started_s
    most_steps = round(seconds * client.step_hz)
    while client.steps_taken < most_steps:
        client.receive(max(0.0, next_step_s - clock()))
        if client.gone is not None:
            raise client.gone
        if client.tick is None and clock() - started_s > connect_timeout_s:
            raise ConnectionRefused(f"the server sent no game within {connect_timeout_s:g} s")
        if clock() < next_step_s:
            continue
        next_step_s += client.step_s
        if clock() - next_step_s > CATCH_UP_MOST_S:
            next_step_s = clock()
        for _ in range(client.steps_due() if client.tick is not None else 1):
            if client.steps_taken >= most_steps:
                break
            events = client.step(controls_at(client.steps_taken * client.step_s))
            if telemetry is not None and client.tick is not None:
                telemetry.write(client.telemetry_record(events))

