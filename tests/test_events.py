"""Typed events: each kind once, written to telemetry with the contract's field names in
order, and read back by type."""

from __future__ import annotations

import dataclasses
import json

import pytest

from game.sim import events
from game.sim.events import (EVENT_TYPES, CraterDug, Damage, Destroyed, Event, FireOut,
                             FireStarted, Hit, Joined, Left, MatchEnd, PartDamaged,
                             PartDestroyed, PartRepaired, Recovered, Reset, RoundEnd,
                             RoundStart, Shift, ShiftRefused, ShiftStart, Shot, SwapVehicle,
                             ZoneCaptured, ZoneEnter, ZoneLeave, event_from_json)

# What telemetry has always written for each kind (README: Telemetry).
CONTRACT = [
    (Shot("bot-1"), {"type": "shot", "vehicle": "bot-1"}),
    (Hit("player", "bot-1", (1.0, 2.0, 3.0), (0.0, -1.0, 0.0), 1187.2),
     {"type": "hit", "shooter": "player", "target": "bot-1", "point": [1.0, 2.0, 3.0],
      "normal": [0.0, -1.0, 0.0], "speed_ms": 1187.2}),
    (Hit("player", "bot-1", (1.0, 2.0, 3.0), (0.0, -1.0, 0.0), 700.5, "ap", "glacis", 90.0,
         61.3, 235.1, 140.2, "ricochet"),
     {"type": "hit", "shooter": "player", "target": "bot-1", "point": [1.0, 2.0, 3.0],
      "normal": [0.0, -1.0, 0.0], "speed_ms": 700.5, "shell": "ap", "plate": "glacis",
      "thickness_mm": 90.0, "angle_deg": 61.3, "effective_mm": 235.1,
      "penetration_mm": 140.2, "result": "ricochet"}),
    (Damage("bot-1", "player", 40.0, 60.0),
     {"type": "damage", "vehicle": "bot-1", "by": "player", "amount": 40.0, "health": 60.0}),
    (Destroyed("bot-1", "player"), {"type": "destroyed", "vehicle": "bot-1", "by": "player"}),
    (Destroyed("bot-1", "player", "ammo_rack"),
     {"type": "destroyed", "vehicle": "bot-1", "by": "player", "cause": "ammo_rack"}),
    (PartDamaged("bot-1", "engine", "player", 12.5),
     {"type": "part_damaged", "vehicle": "bot-1", "part": "engine", "by": "player",
      "hit_points": 12.5}),
    (PartDestroyed("bot-1", "left_track", "player", 10.0),
     {"type": "part_destroyed", "vehicle": "bot-1", "part": "left_track", "by": "player",
      "repair_s": 10.0}),
    (PartRepaired("bot-1", "left_track", 20.0),
     {"type": "part_repaired", "vehicle": "bot-1", "part": "left_track", "hit_points": 20.0}),
    (FireStarted("bot-1", "player"), {"type": "fire_started", "vehicle": "bot-1", "by": "player"}),
    (FireOut("bot-1"), {"type": "fire_out", "vehicle": "bot-1"}),
    (RoundEnd(1, "player", {"player": 1, "bots": 0}),
     {"type": "round_end", "round": 1, "winner": "player", "score": {"player": 1, "bots": 0}}),
    (RoundStart(2, {"player": 1, "bots": 0}),
     {"type": "round_start", "round": 2, "score": {"player": 1, "bots": 0}}),
    (MatchEnd(1, "player", {"player": 1, "bots": 0},
              {"player": {"kills": 1, "shots": 2, "hits": 1, "accuracy": 0.5,
                          "damage_dealt": 100.0, "damage_taken": 0.0},
               "bots": {"kills": 0, "shots": 0, "hits": 0, "accuracy": None,
                        "damage_dealt": 0.0, "damage_taken": 100.0}}),
     {"type": "match_end", "rounds": 1, "winner": "player", "score": {"player": 1, "bots": 0},
      "sides": {"player": {"kills": 1, "shots": 2, "hits": 1, "accuracy": 0.5,
                           "damage_dealt": 100.0, "damage_taken": 0.0},
                "bots": {"kills": 0, "shots": 0, "hits": 0, "accuracy": None,
                         "damage_dealt": 0.0, "damage_taken": 100.0}}}),
    (ShiftStart("player", "1", "2", automatic=True),
     {"type": "shift_start", "vehicle": "player", "from": "1", "to": "2", "automatic": True}),
    (Shift("player", "1", "2"), {"type": "shift", "vehicle": "player", "from": "1", "to": "2"}),
    (ShiftRefused("player", "R", "moving"),
     {"type": "shift_refused", "vehicle": "player", "gear": "R", "reason": "moving"}),
    (Reset("player"), {"type": "reset", "vehicle": "player"}),
    (SwapVehicle("player", "player-car"),
     {"type": "swap_vehicle", "from": "player", "to": "player-car"}),
    (Recovered("player", "below the ground"),
     {"type": "recovered", "vehicle": "player", "reason": "below the ground"}),
    (Joined("alpha"), {"type": "joined", "vehicle": "alpha"}),
    (Left("alpha", "timeout"), {"type": "left", "vehicle": "alpha", "reason": "timeout"}),
    (ZoneEnter("bot-1", "bots"), {"type": "zone_enter", "vehicle": "bot-1", "side": "bots"}),
    (ZoneLeave("bot-1", "bots"), {"type": "zone_leave", "vehicle": "bot-1", "side": "bots"}),
    (ZoneCaptured(2, "player"), {"type": "zone_captured", "round": 2, "side": "player"}),
    (CraterDug(12.5, -3.25, 2.5, 0.8),
     {"type": "crater", "x_m": 12.5, "y_m": -3.25, "radius_m": 2.5, "depth_m": 0.8}),
]


@pytest.mark.parametrize("event, written", CONTRACT, ids=[w["type"] for _, w in CONTRACT])
def test_each_kind_is_written_with_the_contracts_fields_in_order(event, written):
    record = event.to_json()
    assert json.dumps(record) == json.dumps(written)  # the same names in the same order


@pytest.mark.parametrize("event, written", CONTRACT, ids=[w["type"] for _, w in CONTRACT])
def test_each_kind_reads_back_from_its_json(event, written):
    assert event_from_json(json.loads(json.dumps(written))) == event


@pytest.mark.parametrize("record", [None, {"type": "nope"}, {"type": "shot"},
                                    {"type": "shot", "vehicle": "a", "extra": 1}])
def test_a_record_that_is_no_event_is_refused(record):
    with pytest.raises(ValueError):
        event_from_json(record)


def test_every_kind_is_covered_and_named_once():
    kinds = {cls for cls in vars(events).values()
             if isinstance(cls, type) and issubclass(cls, Event) and cls is not Event}
    assert sorted(cls.TYPE for cls in kinds) == sorted(EVENT_TYPES)
    assert set(EVENT_TYPES.values()) == kinds
    assert {type(event) for event, _ in CONTRACT} == kinds


def test_events_are_frozen_and_compare_by_value():
    assert Shot("a") == Shot("a") and Shot("a") != Shot("b") and Shot("a") != Reset("a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        Shot("a").vehicle = "b"  # type: ignore[misc]


def test_a_score_written_is_a_copy():
    score = {"player": 0, "bots": 1}
    record = RoundEnd(1, "bots", score).to_json()
    record["score"]["player"] = 9
    assert score == {"player": 0, "bots": 1}
