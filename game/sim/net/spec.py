"""The tuning of online play (config/game.toml's ``[net]`` table)."""

from __future__ import annotations

from dataclasses import dataclass

from common.spec import Spec, SpecError, tuning


@dataclass(frozen=True)
class NetSpec(Spec):
    snapshot_hz: int = tuning("snapshots the server sends each client per second; a "
                              "divisor of the step rate", minimum=5, maximum=60)
    input_hz: int = tuning("inputs packets a client sends per second (each repeats the "
                           "last steps' controls); a divisor of the step rate", minimum=5,
                           maximum=60)
    timeout_s: float = tuning("a client silent this long is dropped", minimum=1.0,
                              maximum=60.0)
    server_timeout_s: float = tuning("a server silent this long is lost: its client's game "
                                     "ends, saying so (ENet itself gives up on a silent "
                                     "server after about 5 s)", minimum=1.0, maximum=60.0)
    connect_timeout_s: float = tuning("a client gives up joining after this long",
                                      minimum=1.0, maximum=60.0)
    input_lead_most_s: float = tuning("inputs for steps further ahead than this are "
                                      "refused", minimum=0.2, maximum=5.0)
    malformed_most: int = tuning("malformed messages a client may send before it is put "
                                 "out", minimum=1, maximum=10000)
    messages_per_step_most: float = tuning("messages a client may send per step, on "
                                           "average over a second; more are dropped",
                                           minimum=1.0, maximum=20.0)
    input_margin_steps: tuple[float, ...] = tuning(
        "the least and most steps early a client's inputs should reach the server; "
        "outside, the client runs a step faster or slower", minimum=0.0, maximum=30.0,
        length=(2, 2))
    interpolation_delay_snapshots: float = tuning(
        "other vehicles are drawn this many snapshot intervals in the past (room for a "
        "lost or late one)", minimum=1.0, maximum=6.0)
    extrapolation_most_s: float = tuning("past its newest snapshot, another vehicle goes "
                                         "on moving this long, then holds", minimum=0.0,
                                         maximum=1.0)
    jump_mps: float = tuning("another vehicle moving faster than this between two "
                             "snapshots was set down elsewhere: shown there at once, not "
                             "slid across", minimum=20.0, maximum=1000.0)
    correction_m: float = tuning("a predicted position this far from the server's is "
                                 "rewound and replayed", minimum=0.001, maximum=1.0)
    correction_mps: float = tuning("likewise a velocity", minimum=0.001, maximum=5.0)
    smoothing_half_life_s: float = tuning("a correction of the drawn pose halves in this "
                                          "time", minimum=0.01, maximum=1.0)
    snap_m: float = tuning("a correction larger than this is shown at once, not smoothed",
                           minimum=0.5, maximum=50.0)
    join_ring_m: float = tuning("players join on a ring this far round the map's spawn "
                                "point, as far from the others as it allows", minimum=5.0,
                                maximum=500.0)
    history_s: float = tuning("prediction and snapshot history kept", minimum=0.5,
                              maximum=10.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        low, high = self.input_margin_steps
        if low >= high:
            raise SpecError("input_margin_steps", self.input_margin_steps,
                            "the least below the most")
