"""Fixed steps: the clock that turns frame times into steps, the world that takes them,
and the promise that the rendered frame rate never changes the simulation."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from panda3d.bullet import BulletBoxShape, BulletRigidBodyNode
from panda3d.core import Point3, TransformState, Vec3

from game.sim.controls import ScriptedInputs
from game.sim.simulation import Simulation
from game.sim.telemetry import telemetry_record
from physics.bullet.world import PhysicsWorld
from physics.model.stepping import FixedStepClock, SimulationSpec
from physics.model.terrain import MapChoice

# ----- FixedStepClock ------------------------------------------------------------------------


def test_exact_frame_times_give_exact_step_counts():
    step = 1 / 64  # binary fractions: no rounding anywhere
    clock = FixedStepClock(step, max_steps_per_frame=8)
    frames = [1 / 128, 1 / 128, 3 / 64, 1 / 32, 0.0, 5 / 128, 7 / 128, 1 / 64, 1 / 256, 3 / 256]
    total_time = 0.0
    total_steps = 0
    for frame in frames * 20:
        total_steps += clock.advance(frame)
        total_time += frame
        assert total_steps == math.floor(total_time / step)
        assert clock.alpha == pytest.approx((total_time - total_steps * step) / step)
    assert clock.dropped_s == 0.0


@pytest.mark.parametrize("frame_s, pattern", [(1 / 60, [1]), (1 / 30, [2]), (1 / 20, [3]),
                                              (1 / 120, [0, 1])])
def test_steady_frame_rates(frame_s, pattern):
    clock = FixedStepClock(1 / 60, max_steps_per_frame=5)
    counts = [clock.advance(frame_s) for _ in range(600)]
    assert counts == (pattern * 600)[:600]
    assert 0.0 <= clock.alpha < 1.0


def test_a_jittery_mix_counts_every_step():
    step = 1 / 60
    clock = FixedStepClock(step, max_steps_per_frame=5)
    rng = np.random.default_rng(4)
    frames = rng.uniform(0.0, 0.05, 5000)  # < 3 steps per frame: nothing is dropped
    total_steps = 0
    for index, frame in enumerate(frames, start=1):
        total_steps += clock.advance(float(frame))
        elapsed = float(frames[:index].sum())
        assert 0.0 <= clock.alpha < 1.0
        assert abs(total_steps - elapsed / step) < 1.0 + 1e-6
        # Steps taken plus what is pending make up all the time that passed.
        assert (total_steps + clock.alpha) * step == pytest.approx(elapsed, abs=1e-9)
    assert clock.dropped_s == 0.0


def test_a_five_second_hitch_runs_at_most_the_cap_and_drops_the_rest():
    step = 1 / 60
    clock = FixedStepClock(step, max_steps_per_frame=5)
    assert clock.advance(step / 2) == 0
    assert clock.advance(5.0) == 5
    assert clock.dropped_s == pytest.approx(5.0 + step / 2 - 5 * step, abs=step)
    # No catching up afterwards: the next normal frame runs one step.
    assert clock.advance(step) == 1
    assert 0.0 <= clock.alpha < 1.0
    # The fraction of a step that was pending before the hitch is kept, not dropped.
    kept = clock.alpha * step
    assert clock.dropped_s + (5 + 1) * step + kept == pytest.approx(5.0 + step / 2 + step)


def test_negative_and_zero_frames_take_no_steps_and_lose_nothing():
    clock = FixedStepClock(0.25, max_steps_per_frame=4)
    assert clock.advance(0.125) == 0
    assert clock.advance(-1.0) == 0
    assert clock.advance(0.0) == 0
    assert clock.alpha == pytest.approx(0.5)
    assert clock.advance(0.125) == 1
    assert clock.alpha == pytest.approx(0.0)


def test_alpha_stays_in_zero_to_one():
    clock = FixedStepClock(1 / 60, max_steps_per_frame=3)
    rng = np.random.default_rng(9)
    for frame in rng.exponential(0.03, 2000):
        assert 0 <= clock.advance(float(frame)) <= 3
        assert 0.0 <= clock.alpha < 1.0


@pytest.mark.parametrize("step_s, max_steps", [(0.0, 5), (-1.0, 5), (1 / 60, 0)])
def test_clock_rejects_nonsense(step_s, max_steps):
    with pytest.raises(ValueError):
        FixedStepClock(step_s, max_steps)


# ----- the simulation is the same at any frame rate --------------------------------------------

DRIVE = {"events": [{"t": 0.0, "throttle": 1.0, "steer": 0.3},
                    {"t": 1.0, "steer": -0.6},
                    {"t": 2.0, "throttle": 0.5, "steer": 0.0, "brake": 0.2},
                    {"t": 2.5, "throttle": 0.0, "brake": 1.0}]}
STEPS = 180  # 3 s


def run_steps(config, step_counts):
    """Telemetry lines of a desert run whose steps come in the given per-frame batches."""
    simulation = Simulation(config.world, MapChoice.parse("desert"), seed=3)
    inputs = ScriptedInputs(ScriptedInputs.parse(DRIVE, "drive.json"))
    lines = []
    try:
        for count in step_counts:
            for _ in range(count):
                if len(lines) == STEPS:
                    return lines
                events = simulation.step(inputs.controls_at(simulation.time_s))
                lines.append(json.dumps(telemetry_record(simulation, events)))
        return lines
    finally:
        simulation.destroy()


def clocked_steps(config, frames):
    clock = FixedStepClock(1 / config.game.simulation.step_hz,
                           config.game.simulation.max_steps_per_frame)
    return [clock.advance(frame) for frame in frames]


@pytest.fixture(scope="module")
def reference(config):
    lines = run_steps(config, [1] * STEPS)
    assert len(lines) == STEPS
    positions = {tuple(json.loads(line)["pos"]) for line in lines}
    assert len(positions) > STEPS / 2, "the body hardly moved: the comparison would be empty"
    return lines


def _frame_sequences():
    rng = np.random.default_rng(12)
    hitchy = list(rng.uniform(1 / 70, 1 / 40, 60))
    hitchy[20] = 5.0
    hitchy[45] = 0.4
    return {"30fps": [1 / 30] * 200,
            "144fps": [1 / 144] * 1000,
            "jitter": list(rng.uniform(0.001, 0.06, 400)),
            "hitch": hitchy + [1 / 60] * 300}


FRAMES = _frame_sequences()


@pytest.mark.parametrize("name", FRAMES)
def test_telemetry_is_the_same_at_any_frame_rate(config, reference, name):
    counts = clocked_steps(config, FRAMES[name])
    assert max(counts) <= config.game.simulation.max_steps_per_frame
    lines = run_steps(config, counts)
    shared = min(len(lines), len(reference))
    assert shared >= STEPS / 2
    for index in range(shared):
        assert lines[index] == reference[index], f"step {index + 1} differs ({name})"
    times = [json.loads(line)["t"] for line in lines]
    assert times == pytest.approx([(i + 1) / config.game.simulation.step_hz
                                   for i in range(len(lines))], rel=0, abs=2e-6)


# ----- PhysicsWorld ------------------------------------------------------------------------------


def world_spec(substeps=2, gravity=0.0, step_hz=60.0):
    return SimulationSpec(step_hz=step_hz, substeps=substeps, max_steps_per_frame=5,
                          gravity_m_s2=gravity)


def box_body(name="box", position=(0.0, 0.0, 0.0), velocity=(0.0, 0.0, 0.0), half=0.5):
    body = BulletRigidBodyNode(name)
    body.addShape(BulletBoxShape(Vec3(half, half, half)))
    body.setMass(10.0)
    body.setDeactivationEnabled(False)
    body.setTransform(TransformState.makePos(Point3(*position)))
    body.setLinearVelocity(Vec3(*velocity))
    return body


@pytest.fixture
def make_world():
    worlds = []

    def make(**spec_args) -> PhysicsWorld:
        world = PhysicsWorld(world_spec(**spec_args))
        worlds.append(world)
        return world

    yield make
    for world in worlds:
        world.destroy()


@pytest.mark.parametrize("substeps", [1, 2, 4])
def test_substep_hooks_run_before_every_substep_with_its_length(make_world, substeps):
    world = make_world(substeps=substeps)
    body = box_body(velocity=(0.0, 6.0, 0.0))
    world.add_body(body)
    calls = []
    world.add_substep_hook(lambda h: calls.append((h, body.getTransform().getPos()[1])))
    for _ in range(3):
        world.step()
    assert len(calls) == 3 * substeps
    assert all(h == pytest.approx(1 / 60 / substeps) for h, _ in calls)
    # Each hook call sees the state after the previous substep, not after the whole step.
    seen = [y for _, y in calls]
    np.testing.assert_allclose(seen, [6.0 * i / 60 / substeps for i in range(3 * substeps)],
                               atol=1e-5)
    assert world.step_count == 3 and world.time_s == pytest.approx(3 / 60)


def test_a_removed_hook_no_longer_runs(make_world):
    world = make_world(substeps=2)
    calls = []

    def hook(h):
        calls.append(h)
    world.add_substep_hook(hook)
    world.step()
    world.remove_substep_hook(hook)
    world.step()
    assert len(calls) == 2


@pytest.mark.parametrize("substeps", [1, 2, 3])
def test_node_transform_is_where_the_rays_find_the_body(make_world, substeps):
    """No one-substep lag: after N steps a body at 10 m/s is at 10 * N / 60 m, both as the
    node reports it and as ray tests find it."""
    world = make_world(substeps=substeps)
    half = 0.5
    body = box_body(velocity=(0.0, 10.0, 0.0), half=half)
    world.add_body(body)
    for steps in (1, 10, 37):
        while world.step_count < steps:
            world.step()
        expected_y = 10.0 * steps / 60
        node_y = body.getTransform().getPos()[1]
        assert node_y == pytest.approx(expected_y, abs=1e-3)
        # Rays against a convex shape land a few mm outside it (Bullet's convex ray cast),
        # the same on both sides: the midpoint of a ray from ahead and one from behind is
        # the centre.
        ahead = world.ray_closest((0.0, 100.0, 0.0), (0.0, -100.0, 0.0))
        behind = world.ray_closest((0.0, -100.0, 0.0), (0.0, 100.0, 0.0))
        assert ahead.node == body and behind.node == body
        assert ahead.position_ws[1] - behind.position_ws[1] == pytest.approx(2 * half, abs=0.02)
        ray_y = (ahead.position_ws[1] + behind.position_ws[1]) / 2
        assert ray_y == pytest.approx(expected_y, abs=1e-3)
        assert ray_y == pytest.approx(node_y, abs=1e-3)


def test_a_falling_body_follows_the_discrete_integrator_exactly(make_world):
    """Bullet's semi-implicit Euler over n substeps of h: z = z0 - g h^2 n (n + 1) / 2."""
    world = make_world(substeps=2, gravity=9.81)
    body = box_body(position=(0.0, 0.0, 100.0))
    world.add_body(body)
    for _ in range(30):
        world.step()
    n, h = 60, 1 / 120
    expected = 100.0 - 9.81 * h * h * n * (n + 1) / 2
    assert body.getTransform().getPos()[2] == pytest.approx(expected, abs=1e-3)
    assert body.getLinearVelocity()[2] == pytest.approx(-9.81 * n * h, abs=1e-3)


def test_moving_bodies_leave_panda_s_table_of_states_alone(make_world):
    """Every substep gives each moving body a new TransformState. None enters Panda's global
    table of unique states (a lock and a hash each way per state, in a table as big as the
    bodies), so 40 moving bodies over 600 steps (48,000 states made) leave the table as it
    was before they came."""
    world = make_world(substeps=2)
    before = TransformState.getNumStates()
    for index in range(40):
        world.add_body(box_body(position=(3.0 * index, 0.0, 0.0), velocity=(0.0, 5.0, 0.0)))
    for _ in range(600):
        world.step()
    assert TransformState.getNumStates() == before


def test_ray_closest_excludes_a_node_and_maps_hits_to_owners(make_world):
    world = make_world()
    near, far = box_body("near", position=(0.0, 5.0, 0.0)), box_body("far", (0.0, 10.0, 0.0))
    owner_near, owner_far = object(), object()
    world.add_body(near, owner=owner_near)
    far_path = world.add_body(far, owner=owner_far)
    assert len(world.handles) == 2
    hit = world.ray_closest((0.0, 0.0, 0.0), (0.0, 20.0, 0.0))
    assert hit.node == near and world.handles.owner_of(hit.node) is owner_near
    assert hit.position_ws[1] == pytest.approx(4.5, abs=1e-4)
    np.testing.assert_allclose(hit.normal_ws, [0.0, -1.0, 0.0], atol=1e-5)
    assert 0.0 < hit.fraction < 1.0
    hit = world.ray_closest((0.0, 0.0, 0.0), (0.0, 20.0, 0.0), exclude=near)
    assert hit.node == far and world.handles.owner_of(hit.node) is owner_far
    hit = world.ray_closest((0.0, 0.0, 0.0), (0.0, 20.0, 0.0), exclude=(far,))
    assert hit.node == near and hit.position_ws[1] == pytest.approx(4.5, abs=1e-4)
    assert world.ray_closest((0.0, 0.0, 0.0), (0.0, -20.0, 0.0)) is None
    world.remove_body(far_path)
    assert len(world.handles) == 1
    assert world.ray_closest((0.0, 0.0, 0.0), (0.0, 20.0, 0.0), exclude=near) is None


# ----- the shared simulate_until helper ------------------------------------------------------------


def test_simulate_until_returns_the_simulated_time_or_fails(config, simulate_until):
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    try:
        step_s = simulation.step_s
        taken = simulate_until(simulation, lambda sim: sim.world.step_count >= 30, 2.0)
        assert taken == pytest.approx(30 * step_s)
        with pytest.raises(AssertionError, match="within 0.25 s"):
            simulate_until(simulation, lambda sim: False, 0.25)
        assert simulation.world.step_count == 30 + round(0.25 / step_s)
    finally:
        simulation.destroy()
