"""The soak: a long headless battle with random inputs, watched for anything going wrong.

    python -m bench.soak --minutes 60 [--bots 7] [--seed 1] [--json]

Every simulated minute it counts non-finite states, vehicles below the ground,
shells that crossed a hull or a plate without hitting it, the handle map's
size, the physics scene's node count and the process's memory. All must stay at
zero or flat: the exit status is 1 if a counter is not zero or memory grew more
than ``--max-growth-mb``.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field

import numpy as np

from bench.usage import resident_memory_mb
from game.config import load_config
from game.sim.controls import GEAR_NAMES, Controls
from game.sim.events import Recovered, RoundEnd
from game.sim.session import GameOptions, GameSession
from game.sim.simulation import Simulation
from game.sim.step_loop import StepLoop
from physics.model.terrain import MapChoice

SECONDS_PER_MINUTE = 60.0
INPUT_HOLD_S = 1.5
"""The random player holds each random input this long."""


def _segment_crosses_box(start, end, centre, axes, half_extents) -> bool:
    """Does the segment start-end pass through the oriented box? (slab test)"""
    origin = axes @ (np.asarray(start) - centre)
    direction = axes @ (np.asarray(end) - np.asarray(start))
    enter, leave = 0.0, 1.0
    for axis in range(3):
        if abs(direction[axis]) < np.finfo(float).tiny:
            if abs(origin[axis]) > half_extents[axis]:
                return False
            continue
        near = (-half_extents[axis] - origin[axis]) / direction[axis]
        far = (half_extents[axis] - origin[axis]) / direction[axis]
        enter, leave = max(enter, min(near, far)), min(leave, max(near, far))
        if enter > leave:
            return False
    return True


@dataclass
class SoakCounters:
    non_finite: int = 0
    below_ground: int = 0
    shells_through: int = 0
    recovered: int = 0
    rounds: int = 0
    minutes: list = field(default_factory=list)


class RandomDriver:
    """A player at random: a fresh random set of controls every ``INPUT_HOLD_S``."""

    def __init__(self, seed: int, step_s: float):
        self.rng = np.random.default_rng(seed)
        self.hold_steps = round(INPUT_HOLD_S / step_s)
        self._controls = Controls()

    def controls(self, simulation: Simulation) -> Controls:
        """The controls for the step about to be taken (a step loop's player)."""
        if simulation.world.step_count % self.hold_steps == 0:
            rng = self.rng
            self._controls = Controls(
                throttle=float(rng.uniform(-1, 1)), steer=float(rng.uniform(-1, 1)),
                brake=float(rng.choice([0.0, 0.0, 0.0, 1.0])),
                handbrake=bool(rng.random() < 0.05), gear=str(rng.choice(GEAR_NAMES)),
                fire=bool(rng.random() < 0.5), turret=float(rng.uniform(-1, 1)),
                elevation=float(rng.uniform(-1, 1)))
        return self._controls


def random_battle(config, bots: int, seed: int, map_name: str = "desert") -> StepLoop:
    """A battle against ``bots`` with the player driven at random (soak and benchmark),
    match after match for as long as it runs."""
    session = GameSession(config.session, GameOptions(MapChoice.parse(map_name), seed,
                                                       bots=bots,
                                                       next_match_automatically=True))
    return StepLoop(session, RandomDriver(seed, session.simulation.step_s).controls)


def _check_step(simulation: Simulation, counters: SoakCounters, flying_before: dict) -> None:
    limit = simulation.specs.spawn.below_ground_limit_m
    for vehicle in simulation.vehicles:
        state = vehicle.current
        values = np.concatenate([state.position_ws, state.orientation_ws, state.velocity_ws,
                                 state.angular_velocity_ws])
        if not np.all(np.isfinite(values)):
            counters.non_finite += 1
        elif state.position_ws[2] < float(simulation.terrain.height_at(*state.position_ws[:2])) - limit:
            counters.below_ground += 1
    # A shell still flying after this step must not have crossed a hull or a plate.
    for shell in simulation.shells:
        start = flying_before.get(id(shell))
        if start is None:
            continue
        end = shell.position_ws
        for vehicle in simulation.vehicles:
            if vehicle is shell.owner:
                continue
            hull = vehicle.spec.hull
            axes = vehicle.current.axes_ws()
            centre = vehicle.current.position_ws + axes[2] * hull.centre_of_mass_drop_m
            if _segment_crosses_box(start, end, centre, axes, hull.half_extents_m):
                counters.shells_through += 1
        for plate in simulation.plates:
            if _segment_crosses_box(start, end, plate.position_ws, np.eye(3), plate.half_extents_m):
                counters.shells_through += 1


def soak(minutes: float, bots: int, seed: int, map_name: str = "desert",
         report=print) -> tuple[SoakCounters, list[dict]]:
    loop = random_battle(load_config(), bots, seed, map_name)
    simulation = loop.simulation
    counters = SoakCounters()
    samples = []
    steps_per_minute = round(SECONDS_PER_MINUTE / simulation.step_s)
    memory_start = resident_memory_mb()
    first = {"minute": 0, "memory_mb": round(memory_start, 1),
             "handles": len(simulation.world.handles), "shells": 0,
             "bodies": simulation.world.body_count()}
    for step in range(round(minutes * steps_per_minute)):
        flying_before = {id(shell): shell.position_ws for shell in simulation.shells}
        events = loop.step()
        counters.recovered += sum(isinstance(event, Recovered) for event in events)
        counters.rounds += sum(isinstance(event, RoundEnd) for event in events)
        _check_step(simulation, counters, flying_before)
        if (step + 1) % steps_per_minute == 0:
            sample = {"minute": (step + 1) // steps_per_minute,
                      "non_finite": counters.non_finite, "below_ground": counters.below_ground,
                      "shells_through": counters.shells_through,
                      "recovered": counters.recovered, "rounds": counters.rounds,
                      "handles": len(simulation.world.handles),
                      "shells": len(simulation.shells),
                      "bodies": simulation.world.body_count(),
                      "memory_mb": round(resident_memory_mb(), 1)}
            samples.append(sample)
            report(json.dumps(sample))
    loop.session.destroy()
    samples.insert(0, first)
    return counters, samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=60.0, help="simulated minutes (60)")
    parser.add_argument("--bots", type=int, default=7, help="enemy tanks (7: an 8-tank battle)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-growth-mb", type=float, default=20.0,
                        help="most the resident memory may grow (20 MB)")
    parser.add_argument("--json", action="store_true", help="only the summary, as JSON")
    args = parser.parse_args(argv)
    counters, samples = soak(args.minutes, args.bots, args.seed,
                             report=(lambda line: None) if args.json else print)
    growth = samples[-1]["memory_mb"] - samples[1]["memory_mb"] if len(samples) > 2 else 0.0
    summary = {"minutes": args.minutes, "bots": args.bots, "seed": args.seed,
               "non_finite": counters.non_finite, "below_ground": counters.below_ground,
               "shells_through": counters.shells_through, "recovered": counters.recovered,
               "rounds": counters.rounds, "memory_start_mb": samples[0]["memory_mb"],
               "memory_end_mb": samples[-1]["memory_mb"],
               "memory_growth_after_first_minute_mb": round(growth, 1),
               "handles": [s.get("handles") for s in samples[1:]]}
    print(json.dumps(summary))
    bad = (counters.non_finite or counters.below_ground or counters.shells_through
           or growth > args.max_growth_mb)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
