"""Online, the server decides what a shell does to armour and every client shows the same:
the plate, the angle and the result reach both players in the hit events."""

from __future__ import annotations

import math

import numpy as np
import pytest

from game.sim.controls import Controls
from game.sim.events import Hit
from game.sim.net.link import enet_available
from game.sim.net.shown import ShownWorld
from tests.net_harness import NetHarness

pytestmark = pytest.mark.skipif(not enet_available(), reason="pyenet is not installed")

SIDE_PLATES = ("left_side", "right_side", "turret_left", "turret_right")


@pytest.fixture
def harness(config):
    made = []

    def make(**kwargs):
        net = NetHarness(config, **kwargs)
        made.append(net)
        return net
    yield make
    for net in made:
        net.close()


def _broadside(harness):
    """alpha 30 m from beta's side, its gun lowered onto it, both held by their handbrakes:
    the harness, alpha's client and the server's simulation."""
    net = harness()
    alpha = net.join("alpha")
    net.join("beta")
    server = net.server.simulation
    server.place(net.server_vehicle("alpha"), 0.0, 0.0, 0.0)  # alpha faces beta's side
    server.place(net.server_vehicle("beta"), 0.0, 30.0, 90.0)
    net.controls["beta"] = Controls(handbrake=True)
    net.controls["alpha"] = Controls(elevation=-1.0, handbrake=True)
    net.step_until(lambda: net.server_vehicle("alpha").aim.elevation_rad < math.radians(-1.5),
                   "the gun lowered")
    return net, alpha, server


def test_the_servers_verdict_on_the_armour_reaches_both_players(harness):
    net, _alpha, _server = _broadside(harness)
    net.controls["alpha"] = Controls(fire=True, handbrake=True)
    net.step_until(lambda: any(isinstance(event, Hit) and event.target == "beta"
                               for event in net.events["beta"]), "beta hit", 2000)
    net.step(30)  # the reliable events reach both
    seen = {name: [event for event in net.events[name]
                   if isinstance(event, Hit) and event.target == "beta"]
            for name in ("alpha", "beta")}
    first = seen["alpha"][0]
    assert first == seen["beta"][0]
    assert first.plate in SIDE_PLATES and first.result == "penetrated"
    assert first.angle_deg is not None and first.angle_deg < 20.0
    assert first.penetration_mm > first.effective_mm >= first.thickness_mm


def test_online_the_crosshair_weighs_the_others_armour_as_they_are_drawn(harness):
    """A client's crosshair on another player's tank: the arc meets that tank's plates where
    it is drawn (the client has no body of it), and the verdict is the one the server's
    simulation gives for the same shot."""
    net, alpha, server = _broadside(harness)
    net.controls["alpha"] = Controls(handbrake=True)
    net.step(60)  # beta's snapshots settle where it stands
    shown = ShownWorld(alpha)
    impact = shown.predicted_impact(shown.player)
    assert impact is not None  # on beta's side as drawn, where the server's arc meets it
    assert np.linalg.norm(impact - server.predicted_impact(net.server_vehicle("alpha"))) < 0.05
    verdict = shown.aim_verdict(shown.player, impact)
    assert verdict == "pierces"  # AP at 30 m through a 45 mm side
    assert verdict == server.aim_verdict(net.server_vehicle("alpha"), impact)
    assert shown.aim_verdict(shown.player, impact + (0.0, 0.0, -40.0)) is None  # off the tanks
