"""The bots' tournament: does their difficulty decide who wins, and do they play fair?

- Pairings: one round on the desert per seed, the player's tank driven by the bot brain at
  one level (``--player-ai``) against one bot at another; who wins, or neither within
  the time limit.
- Fairness: at every shot, whether the ground lay between the shooter's gun and its
  target's hull (it never should: bots fire only at what they see).
- Idle survival: an idle player against three normal bots, how long it lasts each round.
- Classes: every two tank classes (config/tanks/) one against one at equal skill, each
  class in turn the player's tank (the brain) and the bot's, a round per seed each way:
  the rounds each class won, and its share of all the one-against-one rounds it fought.
- Mixed teams: a tank of every class on each side, all at equal skill (the player's tank
  and its allies driven by bot brains), a round per seed, the player's class taken in turn:
  every tank destroyed is an exchange its killer's class won and its own class lost; per
  class the exchanges won and lost, and its share of those it was in.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

import numpy as np

from bench.battle import with_bot_tanks

from game.sim.events import Destroyed, RoundEnd, Shot
from game.sim.session import GameOptions, GameSession
from game.sim.spotting import hull_middle_ws, sight_clear
from game.sim.step_loop import StepLoop, idle
from physics.model.ballistics import muzzle_ws
from physics.model.terrain import MapChoice

DEFAULT_SEEDS = 8
DEFAULT_ROUND_S = 180.0
PAIRINGS = (("hard", "easy"), ("normal", "easy"), ("hard", "normal"), ("normal", "normal"))
"""(the player brain's level, the bot's level)."""
IDLE_BOTS = 3
TARGETS = {"hard_beats_easy": 0.75, "normal_beats_easy": 0.60, "hard_beats_normal": 0.60}
CLASS_LEVEL = "normal"
"""Both brains' level in the classes' rounds: equal skill."""
CLASS_WINS_MOST = 0.75
"""No class should win more than this share of its rounds against another."""


def _blocked(simulation, side_of, shooter_name: str, step_m: float,
             destroyed_in_step: frozenset[str] = frozenset()) -> bool:
    """Whether the ground lay between a shooter's gun and the nearest enemy's hull as the
    step it fired in began (its gun as it fired); ``side_of``: the battle's sides. An
    enemy ``destroyed_in_step`` (by another's shell, after the shot) was one still."""
    shooter = simulation.vehicle_named(shooter_name)
    own_side = side_of(shooter_name)
    others = [v for v in simulation.vehicles
              if (not v.destroyed or v.name in destroyed_in_step)
              and side_of(v.name) not in (None, own_side)]
    if shooter is None or shooter.aim is None or not others:
        return False
    muzzle = muzzle_ws(shooter.previous, shooter.spec.gun, shooter.aim)
    target = min(others, key=lambda v: float(np.sum((v.previous.position_ws - muzzle) ** 2)))
    return not sight_clear(simulation.terrain, muzzle,
                           hull_middle_ws(target, target.previous), step_m)


def play_round(config, seed: int, player_ai: str | None, bot_level: str, bots: int,
               most_s: float, tank: str | None = None, allies: tuple[str, ...] = ()) -> dict:
    """One round, the player in the tank class ``tank`` (None: the config's) with an ally
    of each class in ``allies`` (at ``player_ai``'s level): who won (None: neither in
    time), when, shots and those fired blind, and each tank destroyed as (its class, its
    killer's class)."""
    options = GameOptions(MapChoice("desert"), seed, "tank", bots, difficulty=bot_level,
                          player_ai=player_ai, tank=tank)
    session = GameSession(config.session, options)
    simulation, battle = session.simulation, session.battle
    for ally in allies:
        battle.add_ally(ally, replace(session.specs.ai, difficulty=player_ai))
    loop = StepLoop(session, session.player_brain() or idle)
    step_m = config.game.ai.spotting.sight_step_m
    shots = blind = 0
    winner, ended_s, player_down_s = None, None, None
    exchanges = []
    try:
        for _ in range(round(most_s / simulation.step_s)):
            events = loop.step()
            destroyed = frozenset(event.vehicle for event in events
                                  if isinstance(event, Destroyed))
            for event in events:
                if isinstance(event, Shot):
                    shots += 1
                    blind += _blocked(simulation, battle.side_of, event.vehicle, step_m,
                                      destroyed)
                elif isinstance(event, Destroyed):
                    exchanges.append((_class_of(simulation, event.vehicle),
                                      _class_of(simulation, event.by)))
                    if event.vehicle == simulation.player.name:
                        player_down_s = simulation.time_s
                elif isinstance(event, RoundEnd):
                    winner, ended_s = event.winner, simulation.time_s
            if winner is not None:
                break
    finally:
        session.destroy()
    return {"seed": seed, "winner": winner, "ended_s": ended_s, "shots": shots,
            "blind_shots": blind, "player_down_s": player_down_s, "exchanges": exchanges}


def _class_of(simulation, name: str) -> str | None:
    """The tank class of the vehicle called ``name`` (None: no such tank)."""
    vehicle = simulation.vehicle_named(name)
    return None if vehicle is None else vehicle.tank_class


def run(config, seeds: int = DEFAULT_SEEDS, round_s: float = DEFAULT_ROUND_S) -> dict:
    pairings = {}
    blind = shots = 0
    for player_level, bot_level in PAIRINGS:
        rounds = [play_round(config, seed, player_level, bot_level, 1, round_s)
                  for seed in range(1, seeds + 1)]
        wins = sum(1 for r in rounds if r["winner"] == "player")
        losses = sum(1 for r in rounds if r["winner"] == "bots")
        pairings[f"{player_level}_vs_{bot_level}"] = {
            "rounds": len(rounds), "player_wins": wins, "bot_wins": losses,
            "undecided": len(rounds) - wins - losses,
            "player_win_share": round(wins / max(1, wins + losses), 3)}
        blind += sum(r["blind_shots"] for r in rounds)
        shots += sum(r["shots"] for r in rounds)
    idle = [play_round(config, seed, None, "normal", IDLE_BOTS, round_s)
            for seed in range(1, seeds + 1)]
    lasted = [r["player_down_s"] if r["player_down_s"] is not None else round_s for r in idle]
    blind += sum(r["blind_shots"] for r in idle)
    shots += sum(r["shots"] for r in idle)
    classes, class_shots, class_blind = class_pairings(config, seeds, round_s)
    teams, team_shots, team_blind = mixed_teams(config, seeds, round_s)
    return {"parameters": {"seeds": seeds, "round_s": round_s, "map": "desert"},
            "pairings": pairings, "shots": shots + class_shots + team_shots,
            "blind_shots": blind + class_blind + team_blind,
            "idle_survival_s": round(float(np.mean(lasted)), 2),
            "idle_survived_whole_round": sum(1 for r in idle if r["player_down_s"] is None),
            "classes": classes, "mixed_teams": teams,
            "targets": dict(TARGETS, idle_survival_s=30.0, blind_shots=0,
                            class_wins_against_another_most=CLASS_WINS_MOST,
                            class_exchanges_won_in_teams_most=CLASS_WINS_MOST)}


def class_pairings(config, seeds: int, round_s: float) -> tuple[dict, int, int]:
    """Every two classes one against one at :data:`CLASS_LEVEL`, each the player's tank in
    turn: per pairing the rounds, each class's wins and the undecided; per class its share
    of the rounds it fought won. With the shots and blind shots fired in them."""
    pairings, won, fought = {}, dict.fromkeys(config.tanks, 0), dict.fromkeys(config.tanks, 0)
    shots = blind = 0
    for first, second in combinations(config.tanks, 2):
        wins = {first: 0, second: 0}
        for player, bot in ((first, second), (second, first)):
            duel = with_bot_tanks(config, (bot,))
            for seed in range(1, seeds + 1):
                result = play_round(duel, seed, CLASS_LEVEL, CLASS_LEVEL, 1, round_s, player)
                winner = {"player": player, "bots": bot}.get(result["winner"])
                if winner is not None:
                    wins[winner] += 1
                shots += result["shots"]
                blind += result["blind_shots"]
        rounds = 2 * seeds
        pairings[f"{first}_vs_{second}"] = {
            "rounds": rounds, "wins": wins, "undecided": rounds - sum(wins.values()),
            "win_share": {name: round(count / rounds, 3) for name, count in wins.items()}}
        for name in (first, second):
            won[name] += wins[name]
            fought[name] += rounds
    share = {name: round(won[name] / max(1, fought[name]), 3) for name in config.tanks}
    return ({"level": CLASS_LEVEL, "pairings": pairings, "win_share": share}, shots, blind)


def mixed_teams(config, seeds: int, round_s: float) -> tuple[dict, int, int]:
    """A round per seed of one tank of every class a side, all at :data:`CLASS_LEVEL`
    (the player's class taken in turn, its allies the other classes; the bots in the
    classes' order): per class the exchanges won and lost (a tank destroyed: won by its
    killer's class, lost by its own) and its share of those it was in. With the rounds'
    winners, shots and blind shots."""
    names = list(config.tanks)
    teams = with_bot_tanks(config, tuple(names))
    won, lost = dict.fromkeys(names, 0), dict.fromkeys(names, 0)
    winners = {"player": 0, "bots": 0, "undecided": 0}
    shots = blind = 0
    for seed in range(1, seeds + 1):
        player = names[(seed - 1) % len(names)]
        allies = tuple(name for name in names if name != player)
        result = play_round(teams, seed, CLASS_LEVEL, CLASS_LEVEL, len(names), round_s,
                            player, allies)
        winners[result["winner"] or "undecided"] += 1
        for victim, killer in result["exchanges"]:
            if victim in lost and killer in won:
                lost[victim] += 1
                won[killer] += 1
        shots += result["shots"]
        blind += result["blind_shots"]
    share = {name: round(won[name] / max(1, won[name] + lost[name]), 3) for name in names}
    return ({"level": CLASS_LEVEL, "rounds": seeds, "tanks_a_side": len(names),
             "winners": winners, "exchanges_won": won, "exchanges_lost": lost,
             "win_share": share}, shots, blind)


def table(report: dict) -> str:
    lines = [f"ai: {report['parameters']['seeds']} seeds, rounds of at most "
             f"{report['parameters']['round_s']:g} s on the desert"]
    for name, pairing in report["pairings"].items():
        lines.append(f"  {name:18s} player {pairing['player_wins']:2d}  bot "
                     f"{pairing['bot_wins']:2d}  undecided {pairing['undecided']:2d}  "
                     f"(player's share of decided rounds {pairing['player_win_share']:.2f})")
    classes = report["classes"]
    lines.append(f"  classes one against one, both at {classes['level']}:")
    for name, pairing in classes["pairings"].items():
        lines.append(f"    {name:18s} " + "  ".join(
            f"{tank} {wins:2d}" for tank, wins in pairing["wins"].items())
            + f"  undecided {pairing['undecided']:2d}  (of {pairing['rounds']})")
    lines.append("    share of its rounds won: " + ", ".join(
        f"{tank} {share:.2f}" for tank, share in classes["win_share"].items()))
    teams = report["mixed_teams"]
    lines.append(f"  mixed teams, a tank of each class a side, all at {teams['level']}, "
                 f"{teams['rounds']} rounds (player's side {teams['winners']['player']}, "
                 f"bots {teams['winners']['bots']}, undecided "
                 f"{teams['winners']['undecided']}):")
    lines.append("    exchanges won-lost: " + ", ".join(
        f"{tank} {won}-{teams['exchanges_lost'][tank]}"
        for tank, won in teams["exchanges_won"].items()) + "; share won: " + ", ".join(
        f"{tank} {share:.2f}" for tank, share in teams["win_share"].items()))
    lines.append(f"  shots {report['shots']}, fired with the ground in the way: "
                 f"{report['blind_shots']}")
    lines.append(f"  an idle player against {IDLE_BOTS} normal bots lasted "
                 f"{report['idle_survival_s']:.1f} s on average "
                 f"({report['idle_survived_whole_round']} lasted the whole round)")
    return "\n".join(lines)

