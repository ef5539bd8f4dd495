"""What the HUD shows, read from the simulation: a plain :class:`HudState` (no drawing), so
the values can be checked without a window, :func:`message_for` an event, and
:func:`enemies_of` whom a player fights (the minimap's red dots, the enemy markers, the
hits that flash the hit marker); :mod:`game.view.hud.hud` draws them."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from common.spec import KMH_PER_MPS
from game.sim.armour_hits import RANGE_PLATE_FACE
from game.sim.events import (Destroyed, Event, Hit, RoundEnd, RoundStart, ShiftRefused,
                             ZoneCaptured)


@dataclass(frozen=True, slots=True)
class Marker:
    """An enemy's marker on the view's overlay (aspect2d)."""

    name: str
    x: float
    y: float
    on_screen: bool
    """False: the enemy is off the view; the marker is at its edge, an arrow pointing."""
    toward_rad: float
    """Off the view: the arrow's direction, counterclockwise from right."""
    distance_m: float
    wreck: bool


@dataclass(frozen=True)
class ZoneState:
    """The capture zone as the player sees it (``--mode zone``)."""

    centre_xy: tuple
    radius_m: float
    holder: str | None
    """"yours" (the player's side holds it), "theirs", or None (nobody's)."""
    share: float
    """The holder's hold as a share of a capture, 0..1."""
    contested: bool
    inside: bool
    """The player is in it."""

    @property
    def line(self) -> str:
        """The zone in words, for the line under the score."""
        if self.contested:
            return "Zone contested"
        if self.holder is None:
            return "Zone: nobody's" + ("   (you are in it)" if self.inside else "")
        whose = "yours" if self.holder == "yours" else "the enemy's"
        return f"Zone {whose}: {round(self.share * 100)} %"


@dataclass
class HudState:
    """What the HUD shows, read from the simulation after a step."""

    speed_kmh: float = 0.0
    gear: str = "N"
    """The engaged gear (N during a shift)."""
    selected: str = "N"
    """The gear the lever is in (a shift's destination)."""
    shift_from: str = "N"
    shift_progress: float = 1.0
    """0..1 through a shift under way; 1 when none is."""
    automatic: bool = False
    gate: dict = field(default_factory=dict)
    rpm: float = 0.0
    idle_rpm: float = 0.0
    redline_rpm: float = 1.0
    health: float | None = None
    max_health: float | None = None
    reload_left_s: float | None = None
    reload_s: float | None = None
    destroyed: bool = False
    position_xy: tuple = (0.0, 0.0)
    heading_rad: float = 0.0
    contacts: list = field(default_factory=list)
    """Other vehicles: (x, y, "enemy" | "wreck" | "other")."""
    rocks: list = field(default_factory=list)
    """(x, y) of each rock in the world (the minimap shows those in its reach)."""
    round: int | None = None
    score: dict | None = None
    ping_ms: float | None = None
    """Online: the round trip to the server."""
    board: list | None = None
    """Online: the scoreboard's rows (name, kills, deaths, ping_ms)."""
    positions: dict = field(default_factory=dict)
    """Every other vehicle's (x, y) by name (where a shot that hurt the player came from)."""
    enemy_names: frozenset = frozenset()
    """The enemies still in the fight (a hit on one of them flashes the hit marker)."""
    view_heading_rad: float | None = None
    """The camera's heading (0 north, + east; None: the vehicle's), for the damage
    indicator's directions."""
    markers: list = field(default_factory=list)
    """The enemy markers on the view (:class:`Marker`), when the view works them out."""
    zone: ZoneState | None = None
    """The capture zone, in a game that has one."""
    ammunition: tuple = ()
    """The gun's shells in slot order, each (kind: ap, apcr or he; rounds left); none: no
    gun."""
    loaded_slot: int | None = None
    """The slot in the breech or being loaded (None: no round left)."""
    selected_slot: int | None = None
    """The slot the next reload takes."""

    @property
    def ammunition_line(self) -> str:
        """The gun's shells and rounds left in words, the loaded one in brackets and the
        one chosen for the next reload (where it is another) after an arrow:
        ``[AP 39]  > APCR 10  HE 20`` ("" without a gun)."""
        parts = []
        for slot, (name, rounds) in enumerate(self.ammunition):
            text = f"{name.upper()} {rounds}"
            if slot == self.loaded_slot:
                text = f"[{text}]"
            elif slot == self.selected_slot:
                text = f"> {text}"
            parts.append(text)
        return "  ".join(parts)

    @property
    def score_line(self) -> str | None:
        """Round and score in words (None: no rounds in this game)."""
        if self.score is None:
            return None
        if set(self.score) == {"player", "bots"}:
            return (f"Round {self.round}    you {self.score['player']} : "
                    f"{self.score['bots']} bots")
        ranked = sorted(self.score.items(), key=lambda item: (-item[1], item[0]))
        return f"Round {self.round}    " + "   ".join(f"{name} {wins}" for name, wins in ranked)

    @property
    def shifting(self) -> bool:
        return self.shift_progress < 1.0

    @property
    def loaded_share(self) -> float | None:
        """0 just fired .. 1 loaded (None: no gun)."""
        if self.reload_s is None or self.reload_left_s is None:
            return None
        return 1.0 - min(max(self.reload_left_s / self.reload_s, 0.0), 1.0)


def read_hud_state(simulation, battle=None, vehicle=None) -> HudState:
    """A player's vehicle (``vehicle``; None: ``simulation.player``), its gearbox and gun,
    the others on the map, round and score."""
    player = vehicle if vehicle is not None else simulation.player
    gearbox = player.fleet.gearbox
    index = player.index
    gearbox_kind = gearbox.kind_of(index)  # the player's kind: its gears and engine
    state = player.current
    shift_time = gearbox_kind.spec.shift_time_s
    shifting = bool(gearbox.shifting[index]) and shift_time > 0.0
    progress = (1.0 - float(gearbox.shift_left_s[index]) / shift_time) if shifting else 1.0
    forward = state.axes_ws()[1]
    enemies = {vehicle.name for vehicle in enemies_of(simulation, battle, player)}
    contacts, positions, fighting = [], {}, set()
    others = [vehicle for vehicle in simulation.vehicles if vehicle is not player]
    # Every position in one read: a numpy call per vehicle costs more than its numbers.
    places = np.array([vehicle.current.position_ws for vehicle in others]).reshape(-1, 3)
    for vehicle, (x, y) in zip(others, places[:, :2].tolist()):
        kind = ("wreck" if vehicle.destroyed else "enemy" if vehicle.name in enemies
                else "other")
        contacts.append((x, y, kind))
        positions[vehicle.name] = (x, y)
        if kind == "enemy":
            fighting.add(vehicle.name)
    armed = player.aim is not None
    ammunition = player.aim.ammunition if armed else None
    shells = simulation.specs.shells.shells
    slots = (tuple((shells[load.shell].kind, rounds) for load, rounds
                   in zip(player.spec.gun.ammunition, ammunition.rounds))
             if ammunition is not None else ())
    # Rounds: against bots, or online (free for all: the score by name, once there is one).
    rounds = battle is not None and bool(battle.bots or getattr(battle, "online", False)
                                         and battle.score)
    return HudState(
        speed_kmh=state.forward_speed_mps() * KMH_PER_MPS,
        gear=player.gear, selected=gearbox.selected_name(index),
        shift_from=gearbox_kind.names[int(gearbox.from_index[index])] if shifting else player.gear,
        shift_progress=min(max(progress, 0.0), 1.0),
        automatic=bool(gearbox.automatic[index]), gate=dict(gearbox_kind.gate),
        rpm=player.rpm, idle_rpm=gearbox_kind.spec.idle_rpm,
        redline_rpm=gearbox_kind.spec.redline_rpm,
        health=player.health, max_health=player.spec.armour.health if armed else None,
        reload_left_s=player.aim.reload_left_s if armed else None,
        reload_s=player.spec.gun.reload_s if armed else None,
        destroyed=bool(player.destroyed),
        position_xy=(float(state.position_ws[0]), float(state.position_ws[1])),
        heading_rad=math.atan2(forward[0], forward[1]), contacts=contacts,
        rocks=[(float(rock.position_ws[0]), float(rock.position_ws[1]))
               for rock in getattr(simulation, "rocks", ())],
        positions=positions, enemy_names=frozenset(fighting),
        round=getattr(battle, "round", None) if rounds else None,
        score=dict(battle.score) if rounds else None,
        ping_ms=getattr(battle, "ping_ms", None), board=getattr(battle, "board", None),
        zone=read_zone_state(battle, player), ammunition=slots,
        loaded_slot=ammunition.loaded if slots else None,
        selected_slot=ammunition.selected if slots else None)


def read_zone_state(battle, player) -> ZoneState | None:
    """The battle's capture zone as ``player`` sees it (None: a game without one)."""
    zone = getattr(battle, "zone", None)
    if zone is None:
        return None
    holder = None
    if zone.holder is not None:
        holder = "yours" if zone.holder == battle.side_of(player.name) else "theirs"
    inside = any(vehicle is player for vehicle in zone.volume.inside)
    return ZoneState(zone.centre_xy, zone.spec.radius_m, holder, zone.share, zone.contested,
                     inside)


def enemies_of(simulation, battle, player) -> list:
    """The armed vehicles ``player`` fights, wrecks too: with bots, the bots (every person
    is on one side against them); free for all, everyone else; with no battle, every other
    vehicle."""
    others = [vehicle for vehicle in simulation.vehicles
              if vehicle is not player and vehicle.aim is not None]
    if battle is None or getattr(battle, "free_for_all", False):
        return others
    bots = getattr(battle, "bots", None) or {}
    return [vehicle for vehicle in others if vehicle.name in bots]


def lever_path_point(gate: dict, start: str, end: str, progress: float) -> tuple[float, float]:
    """Where the knob is ``progress`` (0..1) of the way from gear ``start`` to ``end``
    along the H gate: down its slot to the neutral rail, along it, up the other slot."""
    a = gate.get(start, (0.0, 0.0))
    b = gate.get(end, (0.0, 0.0))
    points = [a, (a[0], 0.0), (b[0], 0.0), b]
    lengths = [math.dist(p, q) for p, q in zip(points, points[1:])]
    total = sum(lengths)
    if total <= 0.0:
        return b
    travel = min(max(progress, 0.0), 1.0) * total
    for (p, q), length in zip(zip(points, points[1:]), lengths):
        if travel <= length and length > 0.0:
            share = travel / length
            return (p[0] + (q[0] - p[0]) * share, p[1] + (q[1] - p[1]) * share)
        travel -= length
    return b


REFUSAL_WORDS = {"moving": "still moving", "over_rev": "it would over-rev"}


def message_for(event: Event, player_name: str) -> str | None:
    """The HUD's line for an event the player should know of (None: not one of those)."""
    if isinstance(event, RoundEnd):
        return _round_end_words(event, player_name)
    if isinstance(event, RoundStart):
        return f"Round {event.round}"
    if isinstance(event, ZoneCaptured):
        return f"{_side_words(event.side, player_name)} captured the zone"
    if isinstance(event, Destroyed):
        if event.vehicle == player_name:
            return f"You were destroyed by {event.by}"
        return f"{event.vehicle} destroyed by {'you' if event.by == player_name else event.by}"
    if isinstance(event, ShiftRefused) and event.vehicle == player_name:
        return (f"Shift to {event.gear} refused: "
                f"{REFUSAL_WORDS.get(event.reason, event.reason)}")
    if isinstance(event, Hit) and event.result is not None:
        return _strike_words(event, player_name)
    return None


STRIKE_WORDS = {  # (the shooter's line, the victim's line) by result
    "penetrated": ("Penetrated {struck}{figures}", "Penetrated: {shooter} hit your {plate}"),
    "overmatch": ("Overmatched {struck}{figures}",
                  "Penetrated: {shooter} overmatched your {plate}"),
    "ricochet": ("Ricochet off {struck}{figures}", "{shooter}'s shell glanced off your {plate}"),
    "blocked": ("Did not penetrate {struck}{figures}",
                "{shooter} did not penetrate your {plate}"),
}
"""What a hit on armour did, in words: to the one who fired (with the plate's figures, to
learn the armour by), and to the one struck."""


def _strike_words(event: Hit, player_name: str) -> str | None:
    lines = STRIKE_WORDS.get(event.result or "")
    if lines is None or player_name not in (event.shooter, event.target):
        return None
    line = lines[0] if event.shooter == player_name else lines[1]
    plate = (event.plate or "armour").replace("_", " ")
    struck = event.target if event.plate == RANGE_PLATE_FACE else f"{event.target}'s {plate}"
    figures = (f": {event.thickness_mm:.0f} mm at {event.angle_deg:.0f}° "
               f"({event.effective_mm:.0f} mm in its path, {event.penetration_mm:.0f} mm pierced)"
               if None not in (event.thickness_mm, event.angle_deg, event.effective_mm,
                               event.penetration_mm) else "")
    return line.format(struck=struck, figures=figures, shooter=event.shooter, plate=plate)


def _side_words(side: str, player_name: str) -> str:
    """A side as the player hears of it: "You", "The bots", or a player's name."""
    if side in ("player", player_name):
        return "You"
    return "The bots" if side == "bots" else side


def _round_end_words(event: RoundEnd, player_name: str) -> str:
    """Who won the round: the player's side or the bots', or (free for all) a player."""
    if event.winner in ("player", "bots"):
        winner = "You win" if event.winner == "player" else "The bots win"
        return (f"{winner} round {event.round}  "
                f"({event.score.get('player', 0)} : {event.score.get('bots', 0)})")
    if event.winner == "nobody":
        return f"Nobody wins round {event.round}"
    winner = "You win" if event.winner == player_name else f"{event.winner} wins"
    return f"{winner} round {event.round}"
