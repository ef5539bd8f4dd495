"""Online, the server decides the shell: a client that chooses APCR makes the server fire
APCR after its next reload, and the client shows the server's count and choice."""

from __future__ import annotations

import math

import pytest

from game.sim.controls import Controls
from game.sim.events import Shot
from game.sim.net.link import enet_available
from game.view.hud.hud_state import read_hud_state
from tests.net_harness import NetHarness

pytestmark = pytest.mark.skipif(not enet_available(), reason="pyenet is not installed")
AP, APCR = 0, 1
UNHURT = 1e9
"""The target's health: it takes every shot and stands (the round goes on)."""


@pytest.fixture
def net(config):
    harness = NetHarness(config)
    yield harness
    harness.close()


def test_a_client_choosing_apcr_makes_the_server_fire_it_and_sees_the_count(net):
    alpha = net.join("alpha")
    net.join("beta")
    server = net.server.simulation
    shooter, target = net.server_vehicle("alpha"), net.server_vehicle("beta")
    server.place(shooter, 0.0, 0.0, 0.0)  # alpha faces beta, 30 m north
    server.place(target, 0.0, 30.0, 90.0)
    target.health = UNHURT
    net.controls["beta"] = Controls(handbrake=True)
    net.controls["alpha"] = Controls(elevation=-1.0, handbrake=True, shell=APCR)
    net.step_until(lambda: shooter.aim.elevation_rad < math.radians(-1.5), "the gun lowered")
    assert (shooter.aim.ammunition.loaded, shooter.aim.ammunition.selected) == (AP, APCR)
    net.controls["alpha"] = Controls(fire=True, handbrake=True)
    reload_steps = round(shooter.spec.gun.reload_s / server.step_s)
    net.step_until(lambda: sum(isinstance(event, Shot) and event.vehicle == "alpha"
                               for event in net.events["alpha"]) >= 2,
                   "two shots", 3 * reload_steps)
    net.controls["alpha"] = Controls(handbrake=True)
    net.step(30)  # the snapshots and the reliable events reach alpha
    fired = [event.shell for event in net.events["alpha"]
             if isinstance(event, Shot) and event.vehicle == "alpha"]
    assert fired[:2] == ["ap", "apcr"]
    shown = alpha.simulation.player.aim.ammunition
    on_server = shooter.aim.ammunition
    assert (shown.rounds, shown.loaded, shown.selected) == (
        on_server.rounds, on_server.loaded, on_server.selected)
    assert read_hud_state(alpha.simulation).ammunition_line.startswith(
        f"AP {on_server.rounds[AP]}  [APCR {on_server.rounds[APCR]}]")
