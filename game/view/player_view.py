"""One local player's view: a camera drawing into its share of the window, the chase camera
that moves it, and a 2-D layer over the same share with that player's HUD, gun-sight
reticle and notices.

With one player the share is the whole window and the camera is ShowBase's own; with two
(``--players 2``) the window is split in halves (config/view.toml ``[split_screen]``:
side by side or stacked) and player 2 gets a second camera. Each view's 2-D layer is its
own scene (:class:`RegionOverlay`) drawn into that view's display region only, so a HUD
hangs from its own view's corners (and a half narrower than the window draws it smaller:
:func:`game.view.hud.hud.hud_scale`); the pause menu stays on ShowBase's aspect2d, over both.
Each view marks the enemies its own vehicle has spotted (:mod:`game.view.hud.markers`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from panda3d.core import (BitMask32, Camera, CardMaker, DisplayRegion, NodePath, OrthographicLens,
                          PerspectiveLens, Point2, Point3, TextNode)

from common.spec import Spec, tuning
from game.sim.events import Event
from game.sim.local_players import SECOND_PLAYER
from game.sim.spotting import SpottingSpec
from game.view.camera import GUNSIGHT, CameraSpec, ChaseCamera
from game.view.draw.colours import rgba
from game.view.draw.overlay import keep_alpha
from game.view.draw.view_projection import ViewProjection
from game.view.ground.shadows import MAIN_CAMERA_MASK
from game.view.hud.hud import Hud, HudSpec, hud_scale
from game.view.hud.hud_state import read_hud_state
from game.view.hud.markers import EnemyMarkers
from game.view.hud.pierce_mark import PierceMark, PierceMarkSpec
from game.view.hud.reticle import Reticle
from physics.model.ballistics import gun_axes, muzzle_ws

SPLITS = ("side_by_side", "stacked")


@dataclass(frozen=True)
class SplitScreenSpec(Spec):
    """Two players on one machine: how they share the window."""

    split: str = tuning("how two players share the window: side_by_side (left and right "
                        "halves: on a wide window each keeps the HUD's proportions) or "
                        "stacked (top and bottom halves)", choices=SPLITS)
    divider_width: float = tuning("the line between the two views, as a share of the "
                                  "window's width (side by side) or height (stacked)",
                                  minimum=0.0, maximum=0.05)
    divider_colour: tuple[float, ...] = rgba("that line's colour")
    notice_scale: float = tuning("height of the \"connect a gamepad\" notice in player 2's "
                                 "view, in shares of the view's half height", minimum=0.02,
                                 maximum=0.3)
    notice_colour: tuple[float, ...] = rgba("that notice's colour")


FULL_WINDOW = (0.0, 1.0, 0.0, 1.0)
"""A display region's (left, right, bottom, top), shares of the window."""
SPLIT_REGIONS = {
    "side_by_side": ((0.0, 0.5, 0.0, 1.0), (0.5, 1.0, 0.0, 1.0)),
    "stacked": ((0.0, 1.0, 0.5, 1.0), (0.0, 1.0, 0.0, 0.5)),
}
"""Player 1's and player 2's halves of the window, by ``split_screen.split``."""
OVERLAY_SORT = 5
"""Each view's 2-D layer draws after the 3-D views (sort 0) and before ShowBase's
window-wide 2-D layer (sort 10: the pause menu, the divider between the views)."""
OVERLAY_DEPTH = 1000.0
"""Near and far planes of a 2-D layer's camera: far beyond anything drawn flat on it."""
SECOND_VIEW_MASK = BitMask32.bit(2)
"""Player 2's camera's draw mask (ShowBase's camera draws ``MAIN_CAMERA_MASK``, the sun's
shadow camera ``SHADOW_CASTER_MASK``): what one view hides, the other still shows."""
ASPECT_TOLERANCE = 1e-5
"""A lens whose aspect ratio is this close (relative) to its view's is left as it is (a
lens keeps 32-bit floats)."""
NOTICE_LINES_ABOVE_CENTRE = 2.0
"""A notice sits this many of its own lines above the view's middle, clear of the
crosshair."""


def player_regions(players: int, split: str) -> tuple[tuple[float, ...], ...]:
    """Each player's share of the window (left, right, bottom, top)."""
    return (FULL_WINDOW,) if players == 1 else SPLIT_REGIONS[split][:players]


def region_point(region, x: float, y: float) -> tuple[float, float]:
    """A point in window coordinates (-1..1 across, + right / + up) in a region's own
    (-1..1 across that region)."""
    left, right, bottom, top = region
    across = ((x + 1.0) / 2.0 - left) / max(right - left, 1e-9)
    up = ((y + 1.0) / 2.0 - bottom) / max(top - bottom, 1e-9)
    return across * 2.0 - 1.0, up * 2.0 - 1.0


def region_aspect(display_region: DisplayRegion) -> float | None:
    """Width over height of a display region in pixels (None before it has a size)."""
    width, height = display_region.getPixelWidth(), display_region.getPixelHeight()
    return width / height if width > 0 and height > 0 else None


class RegionOverlay:
    """A 2-D scene drawn over one display region only: its own render2d and aspect2d (x
    from -aspect to +aspect, y from -1 to 1) and corner anchors that follow the region's
    shape, like ShowBase's ``a2dBottomLeft`` and friends do for the whole window."""

    CORNERS = {"bottom_left": (-1.0, -1.0), "top_left": (-1.0, 1.0), "top_right": (1.0, 1.0),
               "top_center": (0.0, 1.0)}
    """Each anchor's place, in shares of the half width and half height."""

    def __init__(self, window, region, name: str):
        self.window = window
        self.display_region = window.makeDisplayRegion(*region)
        self.display_region.setSort(OVERLAY_SORT)
        self.root = NodePath(f"{name}-render2d")
        self.root.setDepthTest(False)
        self.root.setDepthWrite(False)
        self.root.setMaterialOff(1)
        self.root.setTwoSided(True)
        self.root.setBin("unsorted", 0)  # drawn in scene-graph order, as ShowBase's aspect2d
        lens = OrthographicLens()
        lens.setFilmSize(2.0, 2.0)
        lens.setNearFar(-OVERLAY_DEPTH, OVERLAY_DEPTH)
        self.display_region.setCamera(self.root.attachNewNode(Camera(f"{name}-camera2d", lens)))
        self.aspect2d = self.root.attachNewNode(f"{name}-aspect2d")
        self.corners = {"center": self.aspect2d}
        for corner in self.CORNERS:
            self.corners[corner] = self.aspect2d.attachNewNode(f"{name}-{corner}")
        self.aspect_ratio = 1.0
        self.fit(force=True)

    def fit(self, force: bool = False) -> None:
        """Follow the region's shape (the window was resized)."""
        aspect = region_aspect(self.display_region) or self.aspect_ratio
        if aspect == self.aspect_ratio and not force:
            return
        self.aspect_ratio = aspect
        self.aspect2d.setScale(1.0 / aspect, 1.0, 1.0)
        for corner, (across, up) in self.CORNERS.items():
            self.corners[corner].setPos(across * aspect, 0.0, up)

    def to_overlay(self, screen_x: float, screen_y: float) -> tuple[float, float]:
        """A point in the region (-1..1 across and up) on this overlay's aspect2d."""
        return screen_x * self.aspect_ratio, screen_y

    def destroy(self) -> None:
        self.window.removeDisplayRegion(self.display_region)
        self.root.removeNode()


@dataclass
class Screen:
    """Where a view draws: a camera NodePath (its Camera node's lens and draw mask), the
    display region it fills and the 2-D overlay over the same share of the window."""

    camera: NodePath
    lens: PerspectiveLens
    mask: BitMask32
    display_region: DisplayRegion
    overlay: RegionOverlay
    own_camera: bool
    """True: the camera and its display region were made for this view (removed with it)."""


def main_screen(base, region, mask: BitMask32) -> Screen:
    """ShowBase's own camera, its display region cut down to ``region``."""
    display_region = base.camNode.getDisplayRegion(0)
    display_region.setDimensions(*region)
    return Screen(base.camera, base.camLens, mask, display_region,
                  RegionOverlay(base.win, region, "player-1"), own_camera=False)


def extra_screen(base, region, mask: BitMask32, name: str) -> Screen:
    """A second camera under ``base.render`` drawing into ``region`` of the window (its
    view sets the lens's clipping distances and field of view)."""
    node = Camera(f"{name}-camera", PerspectiveLens())
    node.setCameraMask(mask)
    camera = base.render.attachNewNode(node)
    display_region = base.win.makeDisplayRegion(*region)
    display_region.setCamera(camera)
    return Screen(camera, node.getLens(), mask, display_region,
                  RegionOverlay(base.win, region, name), own_camera=True)


class PlayerView:
    """A chase camera, HUD, reticle and notice for the vehicle ``follow()`` returns,
    drawn through ``screen``. ``ray_cast(start, end, exclude)`` is the world's closest hit
    (None: nothing), for keeping the camera in front of obstacles. ``spotting``: the bots'
    spotting rules (config/game.toml ``[ai.spotting]``), by which the HUD marks the enemies
    the vehicle has spotted (None: no markers)."""

    def __init__(self, screen: Screen, camera_spec: CameraSpec, hud_spec: HudSpec, terrain,
                 follow: Callable[[], object], ray_cast: Callable, window,
                 notice_scale: float, notice_colour, spotting: SpottingSpec | None = None,
                 pierce_mark: PierceMarkSpec | None = None):
        self.screen = screen
        self.camera_spec = camera_spec
        self.hud_spec = hud_spec
        self.follow = follow
        self.window = window
        self.region = tuple(screen.display_region.getDimensions())
        screen.lens.setNearFar(camera_spec.near_clip_m, camera_spec.far_clip_m)

        def camera_ray(start, end):
            vehicle = self.follow()
            hit = ray_cast(start, end, vehicle.body if vehicle is not None else None)
            return None if hit is None else hit.position_ws

        self.chase_camera = ChaseCamera(screen.camera, terrain, camera_spec, camera_ray)
        overlay = screen.overlay
        self.reticle = Reticle(overlay.aspect2d, camera_spec.reticle_colour,
                               camera_spec.reticle_size, camera_spec.reticle_thickness_px)
        self.hud = Hud(overlay.corners, hud_spec,
                       hud_scale(self.region, hud_spec.least_view_scale))
        self.hud.minimap.set_ground(terrain)
        self.markers = EnemyMarkers(hud_spec.markers, spotting) if spotting else None
        self.pierce_mark = (PierceMark(self.hud.crosshair, pierce_mark)
                            if pierce_mark is not None else None)
        """Beside the crosshair: whether the loaded shell would pierce the armour there."""
        notice = TextNode("player-notice")
        notice.setFont(TextNode.getDefaultFont())
        notice.setAlign(TextNode.ACenter)
        notice.setTextColor(*notice_colour)
        notice.setShadow(0.06, 0.06)
        notice.setShadowColor(*hud_spec.shadow_colour)
        self.notice = overlay.aspect2d.attachNewNode(notice)
        self.notice.setScale(notice_scale)
        self.notice.setPos(0.0, 0.0, notice_scale * NOTICE_LINES_ABOVE_CENTRE)
        keep_alpha(self.notice)
        self._notice_scale = notice_scale
        self._fov_deg = None
        self._impact_ws = None
        self._frames = 0

    # ----- input -------------------------------------------------------------------------

    @property
    def sighting(self) -> bool:
        return self.chase_camera.mode == GUNSIGHT

    def camera_action(self, action: str) -> None:
        """A camera press: ``camera_view``, ``camera_zoom_in`` or ``camera_zoom_out``."""
        if action == "camera_view":
            self.chase_camera.toggle_view()
        elif action == "camera_zoom_in":
            self.chase_camera.zoom_by(1.0)
        elif action == "camera_zoom_out":
            self.chase_camera.zoom_by(-1.0)

    def to_region(self, x: float, y: float) -> tuple[float, float]:
        """A mouse position (window coordinates) in this view's own -1..1."""
        return region_point(self.region, x, y)

    def set_notice(self, text: str | None) -> None:
        """A line in the middle of the view (None: none), wrapped to the view's width."""
        node = self.notice.node()
        wrap = 2.0 * self.screen.overlay.aspect_ratio / self._notice_scale
        if node.getText() != (text or "") or not math.isclose(node.getWordwrap(), wrap):
            node.setWordwrap(wrap)
            node.setText(text or "")

    def on_events(self, events: list[Event]) -> None:
        if self.markers is not None:
            self.markers.on_events(events)
        vehicle = self.follow()
        if vehicle is not None:
            self.hud.on_events(events, vehicle.name)

    def set_compact(self, on: bool) -> None:
        """The compact HUD (speed, gear, health, crosshair, markers, hit and damage
        indicators) or the full one."""
        self.hud.set_compact(on)

    def message(self, text: str) -> None:
        self.hud.message(text)

    def reset(self) -> None:
        """A new game: no old impact point, nothing spotted."""
        self._impact_ws = None
        if self.markers is not None:
            self.markers.reset()

    # ----- per frame ---------------------------------------------------------------------

    def update(self, frame_s: float, vehicle_view, simulation, battle,
               chase_fov_deg: float) -> None:
        """Move the camera after the drawn vehicle, set the lens, draw the HUD."""
        vehicle = self.follow()
        if vehicle is None or vehicle_view is None:
            return
        camera_spec = self.camera_spec
        self.screen.overlay.fit()
        self.hud.set_view_height(self.screen.display_region.getPixelHeight())
        # The view's own shape (ShowBase sets its lens to the whole window's on a resize).
        aspect = region_aspect(self.screen.display_region)
        lens = self.screen.lens
        if aspect is not None and not math.isclose(aspect, lens.getAspectRatio(),
                                                   rel_tol=ASPECT_TOLERANCE):
            lens.setAspectRatio(aspect)
            self._fov_deg = None
        # Only the gun sight looks from the gun (the chase view's rigs are posed later).
        gun_pose = (vehicle_view.gun_pose_ws(camera_spec.gunsight_offset_m) if self.sighting
                    else None)
        self.chase_camera.update(frame_s, vehicle_view.position, vehicle_view.rotation,
                                 vehicle_view.length_m, gun_pose)
        sighting = self.sighting and vehicle_view.has_gun
        # The gun sight magnifies; a car's driver's seat (no gun) sees as the chase view does.
        fov = self.chase_camera.field_of_view_deg if sighting else chase_fov_deg
        if fov != self._fov_deg:
            self.screen.lens.setMinFov(fov)
            self._fov_deg = fov
        self.reticle.show(sighting)
        vehicle_view.show_gun(not self.sighting, self.screen.mask)
        self._draw_hud(frame_s, vehicle, simulation, battle)

    @property
    def eye(self) -> np.ndarray:
        return np.array(self.screen.camera.getPos(self.screen.camera.getTop()))

    def _draw_hud(self, frame_s: float, vehicle, simulation, battle) -> None:
        spec = self.hud_spec
        if vehicle.aim is not None and self._frames % spec.crosshair_every_frames == 0:
            impact = simulation.predicted_impact(vehicle, spec.crosshair_max_flight_s,
                                                 make_tiles=False)
            if impact is None:  # nothing within reach: where the barrel points, far off
                muzzle, barrel = gun_axes(vehicle.current, vehicle.spec.gun, vehicle.aim)
                impact = muzzle + barrel * self.camera_spec.far_clip_m * 0.5
            self._impact_ws = np.asarray(impact, dtype=float)
            if self.pierce_mark is not None:
                self.pierce_mark.show(simulation.aim_verdict(vehicle, self._impact_ws))
        self._frames += 1
        crosshair_xy = self.project(self._impact_ws)
        self.hud.set_crosshair(crosshair_xy)
        self.hud.set_aim_circle(self._aim_circle_radius(vehicle, crosshair_xy)
                                if vehicle.aim is not None else None)
        state = read_hud_state(simulation, battle, vehicle)
        projection = ViewProjection(self.screen.camera, self.screen.lens,
                                    self.screen.overlay.aspect_ratio)
        state.view_heading_rad = projection.heading_rad()
        if self.markers is not None:
            state.markers = self.markers.update(simulation, battle, vehicle, projection)
        self.hud.update(state, frame_s, vehicle)

    def _aim_circle_radius(self, vehicle, centre: tuple[float, float] | None
                           ) -> float | None:
        """The gun's aiming circle where it meets the predicted impact point (on this
        view's overlay at ``centre``; None: off the view), on the overlay: the circle's
        angle at the gun, turned into metres at the impact's distance, measured across the
        view."""
        if centre is None:
            return None
        gun_ws = muzzle_ws(vehicle.current, vehicle.spec.gun, vehicle.aim)
        across_m = (float(np.linalg.norm(self._impact_ws - gun_ws))
                    * math.tan(vehicle.aim.aim_circle_rad))
        camera = self.screen.camera
        right_ws = np.array(camera.getQuat(camera.getTop()).getRight())
        edge = self.project(self._impact_ws + right_ws * across_m)
        if edge is None:
            return None
        return math.hypot(edge[0] - centre[0], edge[1] - centre[1])

    def project(self, point_ws) -> tuple[float, float] | None:
        """A world point on this view's overlay, or None when behind the camera or outside
        the view."""
        if point_ws is None:
            return None
        camera = self.screen.camera
        local = camera.getRelativePoint(camera.getTop(), Point3(*point_ws))
        screen = Point2()
        if not self.screen.lens.project(local, screen):
            return None
        return self.screen.overlay.to_overlay(float(screen[0]), float(screen[1]))

    def destroy(self) -> None:
        self.chase_camera.destroy()
        self.reticle.destroy()
        if self.pierce_mark is not None:
            self.pierce_mark.destroy()
        self.hud.destroy()
        self.notice.removeNode()
        self.screen.overlay.destroy()
        if self.screen.own_camera:
            self.window.removeDisplayRegion(self.screen.display_region)
            self.screen.camera.removeNode()
        else:
            self.screen.display_region.setDimensions(*FULL_WINDOW)


class Divider:
    """The line between two views, on the window-wide 2-D layer (none at width 0)."""

    def __init__(self, render2d: NodePath, split: str, width: float, colour):
        self.path = None
        if width <= 0.0:
            return
        maker = CardMaker("split-divider")
        if split == "side_by_side":  # render2d runs -1..1 across the window: a share s is 2 s
            maker.setFrame(-width, width, -1.0, 1.0)
        else:
            maker.setFrame(-1.0, 1.0, -width, width)
        self.path = render2d.attachNewNode(maker.generate())
        self.path.setColor(*colour)
        keep_alpha(self.path)

    def destroy(self) -> None:
        if self.path is not None:
            self.path.removeNode()
            self.path = None


def make_player_views(base, scene, view, players: int, simulation: Callable[[], object],
                      spotting: SpottingSpec | None) -> tuple[list[PlayerView], list]:
    """Player 1's view through ShowBase's camera; with two players, the window split in
    two, player 2's through a second camera and a line between the halves. ``view`` is the
    config's view part; ``simulation()`` the game now drawn (a restart makes a new one).
    Returns the views, player 1 first, and everything made, in order (to destroy)."""
    spec = view.split_screen
    regions = player_regions(players, spec.split)
    screens = [main_screen(base, regions[0], MAIN_CAMERA_MASK)]
    follows = [lambda: simulation().player]
    made: list = []
    if players > 1:
        screen = extra_screen(base, regions[1], SECOND_VIEW_MASK, SECOND_PLAYER)
        scene.add_view(screen.camera, screen.mask)
        screens.append(screen)
        follows.append(lambda: simulation().vehicle_named(SECOND_PLAYER))
        made.append(Divider(base.render2d, spec.split, spec.divider_width,
                            spec.divider_colour))

    def ray_cast(start, end, exclude):
        return simulation().world.ray_closest(start, end, exclude=exclude)
    views = [PlayerView(screen, view.camera, view.hud, simulation().terrain, follow, ray_cast,
                        base.win, spec.notice_scale, spec.notice_colour, spotting=spotting,
                        pierce_mark=view.pierce_mark)
             for screen, follow in zip(screens, follows)]
    return views, made + views
