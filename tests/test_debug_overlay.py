"""The suspension overlay: built from the controller's reports, one ray per anchor per
vehicle; and an offscreen render with --debug-rays shows its lines."""

from __future__ import annotations

import numpy as np
import pytest

from game.sim.controls import Controls
from game.sim.simulation import Simulation
from game.sim.vehicles import AnchorView
from game.view.debug_overlay import DebugOverlay, anchor_text, overlay_lines
from physics.model.terrain import MapChoice
from tests.pixels import pixels


@pytest.fixture
def simulation(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), 1)
    simulation.spawn("car", "car", 8.0, 0.0, 0.0)
    simulation.spawn("tank", "other", -10.0, 0.0, 90.0)
    for _ in range(30):
        simulation.step(Controls())
    yield simulation
    simulation.destroy()


def test_the_overlay_builds_one_ray_per_anchor_per_vehicle_from_the_reports(simulation, config):
    overlay = DebugOverlay(None, None, simulation, config.view.debug_overlay, visible=True)
    overlay.update(step_ms=1.0)
    views = [vehicle.anchors() for vehicle in simulation.vehicles]
    anchors = sum(len(view.on_ground) for view in views)
    assert overlay.ray_count == anchors == len(overlay.lines["rays"])
    # Each ray runs from its anchor to the controller's own contact point.
    rays = overlay.lines["rays"]
    origins = np.concatenate([view.origin_ws for view in views])
    contacts = np.concatenate([view.contact_point_ws for view in views])
    assert np.allclose(rays[:, 0], origins) and np.allclose(rays[:, 1], contacts)
    assert len(overlay.lines["forces"]) == anchors  # all on the ground, all loaded
    text = anchor_text(simulation.player, 1.0)
    assert "physics step" in text and len(text.splitlines()) == 2 + len(views[0].on_ground)


def test_hidden_overlay_does_no_work(simulation, config):
    overlay = DebugOverlay(None, None, simulation, config.view.debug_overlay, visible=False)
    overlay.update()
    assert overlay.ray_count == 0
    overlay.toggle()
    overlay.update()
    assert overlay.ray_count > 0


def test_airborne_anchors_draw_full_length_and_sliding_ones_a_cross(config):
    spec = config.view.debug_overlay
    view = AnchorView(origin_ws=np.array([[0.0, 0.0, 1.0], [2.0, 0.0, 1.0]]),
                      direction_ws=np.array([[0.0, 0.0, -1.0]] * 2),
                      contact_point_ws=np.array([[0.0, 0.0, 0.7], [0.0, 0.0, 0.0]]),
                      contact_normal_ws=np.array([[0.0, 0.0, 1.0]] * 2),
                      on_ground=np.array([True, False]), compression_m=np.array([0.2, 0.0]),
                      load_n=np.array([50000.0, 0.0]), sliding=np.array([True, False]),
                      rest_length_m=0.5)
    lines = overlay_lines([view, None], spec)
    assert len(lines["rays"]) == 2
    assert np.allclose(lines["rays"][1], [[2.0, 0.0, 1.0], [2.0, 0.0, 0.5]])  # full length
    assert np.allclose(lines["rays_colours"][1], spec.airborne_colour)
    assert len(lines["normals"]) == 1 and len(lines["forces"]) == 1
    assert len(lines["sliding"]) == 2  # a cross at the one sliding anchor
    bar = lines["forces"][0]
    assert np.linalg.norm(bar[1] - bar[0]) == pytest.approx(50.0 * spec.force_m_per_kn)


def _magenta_pixels(path, colour) -> int:
    """How many of every second pixel (each way) are within 0.12 of ``colour``."""
    target = np.asarray(colour[:3])
    return int((np.abs(pixels(path)[::2, ::2] - target).max(axis=-1) < 0.12).sum())


@pytest.mark.slow
def test_an_offscreen_screenshot_with_debug_rays_shows_the_ray_lines(run_forked, tmp_path, config):
    spec = config.view.debug_overlay
    with_rays, without = tmp_path / "rays.png", tmp_path / "plain.png"
    for png, flags in ((with_rays, ["--debug-rays"]), (without, [])):
        result = run_forked("--offscreen", "--seconds", "0.5", "--map", "flat", "--screenshot",
                            png, *flags)
        assert result.returncode == 0, result.stderr[-2000:]
    # The force bars' colour appears nowhere else in the scene.
    assert _magenta_pixels(without, spec.force_colour) == 0
    assert _magenta_pixels(with_rays, spec.force_colour) >= 8
