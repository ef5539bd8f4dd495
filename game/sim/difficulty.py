"""How good a bot is: each difficulty level's aim, reactions and habits ([ai.easy],
[ai.normal], [ai.hard] in config/game.toml)."""

from __future__ import annotations

from dataclasses import dataclass

from common.spec import Spec, SpecError, tuning
from game.sim.gunnery import AIM_POINT_LENGTH

DIFFICULTIES = ("easy", "normal", "hard")


@dataclass(frozen=True)
class DifficultySpec(Spec):
    aim_noise_mrad: float = tuning("the bot's aiming error (standard deviation) at close "
                                   "range, both still, just after it has the target in sight: "
                                   "it misjudges where the target is by this angle, drawn anew "
                                   "each reload time", minimum=0.0, maximum=200.0)
    aim_noise_per_km: float = tuning("the error grows by this share of itself per km to the "
                                     "target", minimum=0.0, maximum=20.0)
    aim_noise_per_mps: float = tuning("... and by this share per m/s of its own speed and the "
                                      "target's", minimum=0.0, maximum=5.0)
    aim_settle_s: float = tuning("holding the target in sight, the error shrinks with this "
                                 "time constant ...", minimum=0.05, maximum=60.0)
    aim_settled_share: float = tuning("... to this share of itself", minimum=0.0, maximum=1.0)
    reaction_s: float = tuning("it fires only once it has had the target in sight this long",
                               minimum=0.0, maximum=10.0)
    leads_target: bool = tuning("aims where a moving target will be, not where it is")
    fire_margin_m: float = tuning("fires when its shot would pass within this of the "
                                  "target's hull where it judges it to be", minimum=0.0,
                                  maximum=20.0)
    halts_to_fire: bool = tuning("with the target in sight it halts to fire from standstill "
                                 "(see AISpec.halt_before_loaded_s)")
    fires_within_circle: float = tuning(
        "fires only once its gun's aiming circle has closed to within this many times its "
        "aimed size (0: it does not wait for it)", minimum=0.0, maximum=100.0)
    aim_front_m: tuple[float, ...] = tuning(
        "the point it aims at on a target facing it: x, y, z in the target's body frame from "
        "its centre of mass (mirrored front to back on one facing away)", minimum=-20.0,
        maximum=20.0, length=(AIM_POINT_LENGTH, AIM_POINT_LENGTH))
    aim_side_m: tuple[float, ...] = tuning(
        "the point it aims at on a target showing its side: x, y, z on the right side "
        "(mirrored to the left), or [] to aim at the front point then too", minimum=-20.0,
        maximum=20.0, length=(0, AIM_POINT_LENGTH))

    def __post_init__(self) -> None:
        super().__post_init__()
        if len(self.aim_side_m) not in (0, AIM_POINT_LENGTH):
            raise SpecError("aim_side_m", self.aim_side_m, "[x, y, z] or []")
