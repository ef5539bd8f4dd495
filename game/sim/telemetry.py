"""Telemetry: one JSON line per fixed step describing the player's vehicle."""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO

from common.errors import UserError
from common.spec import KMH_PER_MPS
from game.sim.events import Event
from game.sim.simulation import Simulation

DECIMALS = 6
"""Values are rounded to a micrometre / micro-unit: ample for analysis, compact on disk."""


def rounded(values) -> list[float]:
    """Numbers as telemetry writes them (to ``DECIMALS`` places)."""
    return [round(float(value), DECIMALS) for value in values]


def telemetry_record(simulation: Simulation, events: list[Event]) -> dict:
    """The contract's fields for the player's vehicle after the step just taken."""
    player = simulation.player
    if player is None:  # a dedicated server's: it writes its own record of every vehicle
        raise ValueError("telemetry follows the player's vehicle: this game has none")
    state = player.current
    heading, pitch, roll = state.heading_pitch_roll_deg()
    record = {
        "t": round(simulation.time_s, DECIMALS),
        "pos": rounded(state.position_ws),
        "vel": rounded(state.velocity_ws),
        "speed_kmh": round(state.forward_speed_mps() * KMH_PER_MPS, DECIMALS),
        "heading_deg": round(heading, DECIMALS),
        "pitch_deg": round(pitch, DECIMALS),
        "roll_deg": round(roll, DECIMALS),
        "gear": player.gear,
        "rpm": round(player.rpm, DECIMALS - 3),
        "health": None if player.health is None else round(player.health, DECIMALS),
        "anchors": [{key: round(value, DECIMALS) if isinstance(value, float) else value
                     for key, value in anchor.items()} for anchor in player.anchor_reports()],
        "events": [event.to_json() for event in events],
    }
    if player.aim is not None:  # an armed vehicle's gun: its aiming circle now
        record["aim_circle_mrad"] = round(player.aim.aim_circle_rad * 1000.0, DECIMALS)
    if player.parts is not None:
        record.update(player.parts.record())
    colliders = simulation.arena.colliders_resident
    if colliders is not None:
        record["colliders_resident"] = colliders
    return record


class TelemetryWriter:
    """Writes telemetry records to a JSON Lines file."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            self._stream: IO[str] = open(self.path, "w", encoding="utf-8")
        except OSError as error:
            raise UserError(self.path, None, f"a writable telemetry file ({error.strerror})"
                            ) from None

    def write(self, record: dict) -> None:
        try:
            self._stream.write(json.dumps(record, separators=(",", ":")) + "\n")
        except OSError as error:
            raise UserError(self.path, None, f"room to write telemetry ({error.strerror})"
                            ) from None

    def close(self) -> None:
        try:
            self._stream.close()
        except OSError as error:  # the last buffered lines could not be written
            raise UserError(self.path, None, f"room to write telemetry ({error.strerror})"
                            ) from None
