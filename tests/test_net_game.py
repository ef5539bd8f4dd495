"""Online play on loopback: a server and headless clients in one process, in lockstep.

They see each other move, a shot from one destroys the other and both hear of it,
players leave and come back, the server refuses what it must, drops the silent, and keeps
serving its honest clients through ten thousand hostile messages.
"""

from __future__ import annotations

import math
import random
import struct
from dataclasses import replace

import numpy as np
import pytest

from game.sim.controls import Controls
from game.sim.events import CraterDug, Destroyed, Hit, Joined, Left, RoundEnd, Shot
from game.sim.net.joining import ConnectionRefused
from game.sim.net.link import Endpoint, enet_available
from game.sim.net.protocol import NO_TICK, RELIABLE_CHANNEL, STATE_CHANNEL, Hello, Inputs
from tests.net_harness import NetHarness, wait_until

pytestmark = pytest.mark.skipif(not enet_available(), reason="pyenet is not installed")
SILENT_S = 1.0
"""A client silent this long is dropped, in the test that drops one (the least the config
allows)."""
STOOD_STILL_STEPS = 300
"""A server stands still 5 s' steps: its client's inputs run far past what it keeps."""
RUN_STEPS = 30
"""A server run in real time takes this many steps (half a second's)."""


@pytest.fixture
def harness(config):
    made = []

    def make(**options) -> NetHarness:
        made.append(NetHarness(config, **options))
        return made[-1]
    yield make
    for one in made:
        one.close()


def distance(a, b) -> float:
    return float(np.linalg.norm(np.asarray(a) - np.asarray(b)))


def remote_named(client, name: str):
    return next((remote for remote in client.remotes.values() if remote.name == name), None)


def test_two_clients_see_each_other_move(harness):
    net = harness()
    alpha, beta = net.join("alpha"), net.join("beta", "car")
    start = net.server_vehicle("alpha").current.position_ws.copy()
    net.controls["alpha"] = Controls(throttle=1.0, gear="1")
    net.step(240)
    on_server = net.server_vehicle("alpha").current.position_ws
    assert distance(on_server, start) > 5.0
    seen = remote_named(beta, "alpha")
    assert distance(seen.current.position_ws, start) > 4.0  # beta saw alpha drive off
    assert distance(seen.current.position_ws, on_server) < 2.0  # a few steps behind
    assert distance(alpha.simulation.player.current.position_ws, on_server) < 1.0  # ahead
    car = remote_named(alpha, "beta")
    assert car.kind == "car" and car.aim is None and beta.simulation.player.kind == "car"
    wheels = car.wheel_state()  # drawn on the ground under it, as its own client has it
    assert wheels.shape == (4, 4) and (wheels[0] > 0.0).all()
    assert Joined("beta") in net.events["alpha"]


def test_a_shot_from_one_destroys_the_other_and_both_hear_of_it(harness):
    net = harness()
    net.join("alpha")
    net.join("beta")
    server = net.server.simulation
    server.place(net.server_vehicle("alpha"), 0.0, 0.0, 0.0)  # alpha faces beta, 30 m north
    server.place(net.server_vehicle("beta"), 0.0, 30.0, 90.0)
    net.controls["beta"] = Controls(handbrake=True)
    net.controls["alpha"] = Controls(elevation=-1.0, handbrake=True)  # down to beta's hull
    net.step_until(lambda: net.server_vehicle("alpha").aim.elevation_rad < math.radians(-1.5),
                   "the gun lowered")
    net.controls["alpha"] = Controls(fire=True, handbrake=True)
    net.step_until(lambda: net.server_vehicle("beta").destroyed, "beta destroyed", 2000)
    net.step(30)  # the reliable events reach both
    for name in ("alpha", "beta"):
        (destroyed,) = [event for event in net.events[name] if isinstance(event, Destroyed)]
        assert (destroyed.vehicle, destroyed.by) == ("beta", "alpha")
        assert RoundEnd(1, "alpha", {"alpha": 1, "beta": 0}) in net.events[name]  # last left
    assert net.clients["beta"].simulation.player.destroyed  # from the snapshots
    assert remote_named(net.clients["alpha"], "beta").destroyed
    broken = net.server_vehicle("beta").parts.states()  # the shell broke parts on its way
    assert set(broken.values()) != {"whole"}
    assert net.clients["beta"].simulation.player.parts.states() == broken
    assert remote_named(net.clients["alpha"], "beta").parts.states() == broken


def test_an_ammo_rack_hit_throws_the_turret_in_every_clients_world_too(harness):
    net = harness()
    net.join("alpha")
    net.join("beta")
    server = net.server.simulation
    server.place(net.server_vehicle("alpha"), 0.0, 0.0, 0.0)
    server.place(net.server_vehicle("beta"), 0.0, 30.0, 0.0)
    net.controls["alpha"] = net.controls["beta"] = Controls(handbrake=True)
    net.step(60)
    alpha, beta = net.server_vehicle("alpha"), net.server_vehicle("beta")
    state = beta.current  # a heavy AP shell square into beta's left side, at its ammo rack
    right, forward, up = state.axes_ws()
    aim = (state.position_ws - right * beta.spec.hull.half_extents_m[0] + forward * 0.4
           - up * 0.1)
    shell = server.combat.shells_config.shells["kwk43_ap"]
    server.combat.shell_system.launch(alpha, aim - right * 20.0,
                                      right * shell.muzzle_velocity_mps, alpha.spec.gun,
                                      shell, server.time_s)
    net.step_until(lambda: beta.destroyed, "beta destroyed")
    net.step(30)  # the reliable events reach both
    for name in ("alpha", "beta"):
        assert Destroyed("beta", "alpha", "ammo_rack") in net.events[name]
        (thrown,) = net.clients[name].simulation.thrown_turrets
        assert thrown.vehicle == "beta"
        assert distance(thrown.pose()[0][:2], server.thrown_turrets[0].pose()[0][:2]) < 3.0


def test_a_client_leaves_and_rejoins(harness):
    net = harness()
    world = net.server.simulation.world
    handles, bodies = len(world.handles), world.bullet.getNumRigidBodies()
    net.join("alpha")
    beta = net.join("beta")
    net.leave("alpha")
    net.step(30)
    assert net.server_vehicle("alpha") is None
    # alpha's body and handle went with it: only beta's are left
    assert len(world.handles) == handles + 1
    assert world.bullet.getNumRigidBodies() == bodies + 1
    assert len(net.server.simulation.tanks.bodies) == 1 and len(net.server.clients) == 1
    assert Left("alpha", "quit") in net.events["beta"]
    assert remote_named(beta, "alpha") is None
    tanks = len(net.server.simulation.tanks.bodies)
    again = net.join("alpha")
    net.step(30)
    assert again.name == "alpha"  # the name was free again
    assert net.server_vehicle("alpha") is not None
    assert len(net.server.simulation.tanks.bodies) == tanks + 1
    assert remote_named(beta, "alpha") is not None


def test_a_taken_name_gets_a_suffix(harness):
    net = harness()
    net.join("alpha")
    assert net.join("alpha").name == "alpha-2"
    assert net.join("").name == "player-1"


@pytest.mark.parametrize("mismatch, said", [({"version": "0.0.1-other"}, "version"),
                                            ({"digest": bytes(32)}, "config files")])
def test_a_client_of_another_version_or_config_is_refused(harness, mismatch, said):
    net = harness()
    joining = net.joining("alpha", **mismatch)
    with pytest.raises(ConnectionRefused, match=said):
        for _ in range(300):
            net.server.receive(0.002)
            net.server.step()
            joining.poll(0.002)
    assert net.server.simulation.vehicles == []


def test_each_player_drives_the_tank_class_they_chose_and_the_others_see_it(harness, config):
    net = harness()
    alpha, beta = net.join("alpha", tank="heavy"), net.join("beta", tank="light")
    assert net.server_vehicle("alpha").spec is config.tanks["heavy"]
    assert net.server_vehicle("beta").tank_class == "light"
    assert alpha.simulation.player.spec is config.tanks["heavy"]  # its prediction's too
    seen = remote_named(beta, "alpha")
    assert seen.tank_class == "heavy" and seen.spec is config.tanks["heavy"]
    assert remote_named(alpha, "beta").spec.hull.mass_kg == config.tanks["light"].hull.mass_kg
    joining = net.joining("gamma", tank="superheavy")
    with pytest.raises(ConnectionRefused, match="superheavy"):
        for _ in range(300):
            net.step()
            joining.poll(0.002)


def test_a_full_server_says_so(harness):
    net = harness(max_players=1)
    net.join("alpha")
    joining = net.joining("beta")
    with pytest.raises(ConnectionRefused, match="full"):
        for _ in range(300):
            net.step()
            joining.poll(0.002)


def test_a_silent_client_is_dropped_and_its_vehicle_goes(harness):
    net = harness()
    net.join("alpha")
    beta = net.join("beta")
    # Only now a short timeout (the harness's is the longest allowed): a client building
    # its world while joining is silent meanwhile, and this test is not about that.
    net.server.net = replace(net.server.net, timeout_s=SILENT_S)
    del net.clients["beta"]  # beta stops sending (and reading)
    wait_until(lambda: (net.step(), net.server_vehicle("beta") is None)[1],
               "beta dropped", poll_s=0.0)
    assert Left("beta", "timeout") in net.events["alpha"]
    assert len(net.server.clients) == 1
    beta.destroy()


def fuzz_message(rng: random.Random, digest: bytes) -> bytes:
    """Random bytes, or a real header with bad fields, or a real message cut short; now
    and then a hello that must be refused (which puts the sender out)."""
    kind = rng.choice([0, 1, 2, 4] * 50 + [3, 5])
    if kind == 0:
        return bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 120)))
    if kind == 1:
        return bytes([rng.choice([1, 2, 3, 10, 13, 255])]) + bytes(
            rng.getrandbits(8) for _ in range(rng.randrange(0, 60)))
    if kind == 2:  # inputs for absurd steps, too many or none, with garbage controls
        runs = rng.randrange(0, 4)
        body = b"".join(bytes([rng.randrange(0, 30)]) + bytes(rng.getrandbits(8)
                                                              for _ in range(7))
                        for _ in range(runs))
        return bytes([2]) + struct.pack("<IIIHB", rng.getrandbits(32), rng.getrandbits(32),
                                        0, 0, runs) + body
    if kind == 3:
        return Hello("0.0.0-fuzz", rng.randbytes(32), "mallory", "tank").encode()
    if kind == 4:
        good = Inputs(NO_TICK, 10, 0, 0, (Controls(throttle=1.0),)).encode()
        return good[:rng.randrange(0, len(good))]
    return Hello("x", digest, "\u0000bad", "car").encode()


def test_ten_thousand_hostile_messages_leave_the_server_serving(harness):
    net = harness()
    honest = net.join("alpha")
    net.controls["alpha"] = Controls(throttle=1.0, gear="1")
    rng = random.Random(1234)
    sent, fuzzer, peers, connected = 0, None, 0, False
    while sent < 10_000:
        if fuzzer is None:
            fuzzer, connected = Endpoint.client(), False
            peer = fuzzer.connect("127.0.0.1", net.port)
            peers += 1
        for arrival in fuzzer.receive(0.0):
            connected = connected or arrival.kind == "connect"
            if arrival.kind == "disconnect":  # put out: come back as someone new
                fuzzer.close()
                fuzzer = None
                break
        if fuzzer is not None and connected:
            for _ in range(10):
                channel = rng.choice([STATE_CHANNEL, RELIABLE_CHANNEL])
                fuzzer.send(peer, channel, fuzz_message(rng, net.identity.config_digest))
                sent += 1
            fuzzer.flush()
        net.step()
        assert len(net.server.clients) <= 2  # the honest one and this fuzzer
    fuzzer.close()
    before = honest.prediction.vehicle.current.position_ws.copy()
    newest = honest._newest_snapshot
    net.step(60)
    assert honest._newest_snapshot > newest  # still served
    assert honest.gone is None
    assert distance(honest.prediction.vehicle.current.position_ws, before) > 1.0
    assert [vehicle.name for vehicle in net.server.simulation.vehicles] == ["alpha"]
    assert peers > 1  # fuzzers were put out and came back
    print(f"fuzz: {sent} sent by {peers} peers; {net.server.messages_read} read, "
          f"{net.server.malformed} refused as malformed, {net.server.flooded} dropped as a "
          "flood")
    # All but those a fuzzer sent after the server put it out, before it heard so.
    assert net.server.messages_read > 7000


def test_a_server_that_stood_still_keeps_its_honest_client(harness):
    """A server that stood still a while (a busy machine, a pause) while its client's clock
    ran on gets inputs for steps far ahead of its own: it keeps none of those, tells the
    client they come too early, and the client falls back into step. Nobody is put out."""
    net = harness()
    alpha = net.join("alpha")
    lead_most = round(net.net.input_lead_most_s * net.server.step_hz)
    for _ in range(STOOD_STILL_STEPS):  # alpha steps on, the server takes none
        alpha.receive()
        alpha.step(Controls())
    assert alpha.tick - net.server.tick > lead_most + 100  # ahead by far more than it may be
    net.step_until(lambda: alpha.tick - net.server.tick < lead_most, "alpha back in step",
                   most_steps=STOOD_STILL_STEPS * 4)
    assert net.server_vehicle("alpha") is not None and alpha.gone is None
    assert net.server.malformed == 0


def test_a_joined_cheat_moves_nothing_but_itself_and_its_memory_stays_bounded(harness):
    net = harness()
    net.join("alpha")
    mallory = net.join("mallory")
    alpha_start = net.server_vehicle("alpha").current.position_ws.copy()
    slot = next(slot for slot in net.server.clients.values() if slot.name == "mallory")
    full = Controls(throttle=1.0, gear="1", steer=1.0)
    for step in range(200):
        tick = net.server.tick + 1 + step % 100  # every step ahead it may claim, and more
        mallory.endpoint.send(mallory.peer, STATE_CHANNEL,
                              Inputs(NO_TICK, tick, 0, 0, (full,) * 16).encode())
        mallory.endpoint.flush()
        net.server.receive(0.001)
        net.server.step()
        lead_most = round(net.net.input_lead_most_s * net.server.step_hz)
        assert len(slot.inputs) <= lead_most
    assert distance(net.server_vehicle("alpha").current.position_ws, alpha_start) < 0.05
    assert net.server_vehicle("mallory") is not None


def test_a_server_that_ends_the_game_tells_its_clients(harness):
    """As ``--serve --seconds S``: it runs until its game is S seconds old (counted in
    steps, however late the machine), then says the game is over."""
    net = harness()
    alpha = net.join("alpha")
    steps_before = net.server.tick  # (joining took some)
    net.server.run((steps_before + RUN_STEPS) / net.server.step_hz)
    assert net.server.tick == steps_before + RUN_STEPS
    wait_until(lambda: (alpha.receive(0.01), alpha.gone is not None)[1], "alpha told")
    assert alpha.gone.normal and "over" in str(alpha.gone)


def test_no_round_ends_on_a_server_waiting_for_players(harness):
    net = harness(bots=2)
    net.step(400)
    assert net.server.battle.round == 1 and net.server.battle.score["bots"] == 0


def test_a_window_on_a_network_game_shows_the_others_ping_and_scoreboard(harness, config):
    from panda3d.core import NodePath

    from game.sim.net.shown import ClientLoop, ClientSession
    from game.view.hud.hud import Hud
    from game.view.hud.hud_state import read_hud_state
    net = harness(bots=1)
    alpha = net.join("alpha")
    net.join("beta")
    session = ClientSession(alpha)
    loop = ClientLoop(session, lambda _world: Controls(throttle=1.0, gear="1"))
    del net.clients["alpha"]  # the window's loop steps alpha from here on
    for _ in range(150):
        net.step()
        loop.advance(1.0 / 60.0)
    names = {vehicle.name for vehicle in session.simulation.vehicles}
    assert names == {"alpha", "beta", "bot-1"}
    assert session.simulation.player.name == "alpha"
    assert distance(session.simulation.player.current.position_ws,
                    alpha.prediction.drawn_position_ws) < 1e-9
    state = read_hud_state(session.simulation, session.battle)
    assert state.ping_ms is not None and state.ping_ms >= 0.0
    assert {row.name for row in state.board} == {"alpha", "beta", "bot-1"}
    assert [row.ping_ms for row in state.board if row.name == "bot-1"] == [None]
    assert sorted(kind for *_, kind in state.contacts) == ["enemy", "other"]  # the bot
    root = NodePath("hud-test")
    hud = Hud({"center": root, "top_left": root.attachNewNode("tl")}, config.view.hud)
    hud.update(state, 1.0 / 60.0)
    assert hud.scoreboard.ping_text.node().getText().startswith("ping ")
    assert hud.scoreboard.panel.isHidden()
    hud.scoreboard.toggle()  # Tab
    assert not hud.scoreboard.panel.isHidden()
    assert "beta" in hud.scoreboard.columns[0].node().getText()
    hud.destroy()
    session.destroy()


def test_a_window_draws_the_servers_shells_from_shot_to_hit(harness):
    from game.sim.net.shown import ClientLoop, ClientSession
    net = harness()
    alpha = net.join("alpha")
    net.join("beta")
    server = net.server.simulation
    server.place(net.server_vehicle("alpha"), 0.0, 0.0, 0.0)
    server.place(net.server_vehicle("beta"), 0.0, 300.0, 90.0)  # a quarter second's flight
    session = ClientSession(alpha)
    wanted = [Controls(elevation=-1.0, handbrake=True)]
    # The window's clock runs with the server's steps, not the wall's: a server stepping
    # faster than real time must not leave the window a step behind the whole flight.
    clock_s = [0.0]
    loop = ClientLoop(session, lambda _world: wanted[0], clock=lambda: clock_s[0])
    events = []
    loop.subscribe(events.extend)
    del net.clients["alpha"]
    seen_in_flight = []
    for _ in range(600):
        net.step()
        clock_s[0] += 1.0 / 60.0
        loop.advance(1.0 / 60.0)
        if net.server_vehicle("alpha").aim.elevation_rad < math.radians(-0.25):
            wanted[0] = Controls(fire=True, handbrake=True)
        seen_in_flight.append(len(session.simulation.shells))
        if any(isinstance(event, Hit) for event in events):
            break
    assert any(isinstance(event, Shot) and event.vehicle == "alpha" for event in events)
    assert max(seen_in_flight) == 1  # drawn in flight, from the shot event, steps on end
    net.step(10)
    for _ in range(10):
        clock_s[0] += 1.0 / 60.0
        loop.advance(1.0 / 60.0)
    assert session.simulation.shells == []  # it reached the hit's point and was gone
    session.destroy()


def test_a_crater_on_the_server_is_dug_into_the_clients_ground_too(harness):
    """On a big desert a shell into sand digs a crater on the server; the event reaches
    the client, whose own ground (and anchors) get the same hole."""
    net = harness(map_text="desert:4096")
    alpha = net.join("alpha")
    server = net.server.simulation
    gun = net.server_vehicle("alpha").spec.gun
    shell = server.combat.loaded_shell(net.server_vehicle("alpha"))
    spot = next((x, 60.0) for x in range(-60, 60, 3)
                if server.terrain.surface_name_at(float(x), 60.0) == "sand")
    ground_m = float(server.terrain.height_at(*spot))
    server.combat.shell_system.launch(net.server_vehicle("alpha"),
                                      np.array([*spot, ground_m + 30.0]),
                                      np.array([0.0, 0.0, -shell.muzzle_velocity_mps]), gun,
                                      shell, server.time_s)
    net.step_until(lambda: any(isinstance(event, CraterDug)
                               for event in net.events["alpha"]), "the crater's event", 300)
    crater = next(event for event in net.events["alpha"] if isinstance(event, CraterDug))
    assert server.terrain.craters and alpha.simulation.terrain.craters
    assert alpha.simulation.terrain.craters == server.terrain.craters
    for dx in (-2.0, -0.7, 0.0, 0.9, 1.8):
        point = (crater.x_m + dx, crater.y_m + 0.3 * dx)
        assert float(alpha.simulation.terrain.height_at(*point)) == \
            float(server.terrain.height_at(*point))
    assert float(server.terrain.height_at(crater.x_m, crater.y_m)) < ground_m - 0.3
