"""Everything that draws one game session: a view per vehicle, the shells and the range's
plates, the particles, the suspension overlay and the armour view.

Made anew for every session (a restart makes a new session, and a new one of these
that listens to its events); what outlives a session (the scene, the players' cameras
and HUDs) belongs to the app.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from panda3d.core import NodePath

from game.sim.events import Event
from game.sim.interfaces import DrawnSession
from game.view.armour_view import ArmourView
from game.view.debug_overlay import DebugOverlay, DebugOverlaySpec
from game.view.effects.combat_view import CombatView, CombatViewSpec
from game.view.effects.effects import Effects, EffectsSpec
from game.view.ground.zone_view import ZoneBand, ZoneViewSpec
from game.view.hud.hud_state import read_zone_state
from game.view.rigs.vehicle_view import (VehicleDetailSpec, VehicleLooks, VehicleView,
                                     pose_views_if_seen, update_views)


@dataclass(frozen=True)
class SessionViewSpecs:
    """What drawing a session reads of the config."""

    looks: VehicleLooks
    combat_view: CombatViewSpec
    effects: EffectsSpec
    debug_overlay: DebugOverlaySpec
    fog_colour: tuple[float, ...]
    fog_density_per_m: float
    zone: ZoneViewSpec
    vehicle_detail: VehicleDetailSpec


def view_toggles(session_view: Callable[[], SessionView], keyboard
                 ) -> dict[str, Callable[[], None]]:
    """The app's keys that show or hide a session's overlays, by action (those the
    ``keyboard``'s spec binds): ``debug_overlay`` the suspension overlay, ``armour_view``
    the armour view; ``session_view()`` is the session view of the moment."""
    toggles = {"debug_overlay": lambda: session_view().overlay.toggle(),
               "armour_view": lambda: session_view().armour_view.toggle()}
    return {action: toggle for action, toggle in toggles.items() if hasattr(keyboard, action)}


class SessionView:
    """Draws one session's vehicles, shells, plates, particles and anchors."""

    def __init__(self, render: NodePath, overlay_2d: NodePath, session: DrawnSession,
                 specs: SessionViewSpecs, quality: str, debug_rays: bool,
                 armour_view: bool = False):
        simulation = session.simulation
        self.render = render
        self.simulation = simulation
        self.specs = specs
        self.vehicle_views: dict[int, VehicleView] = {}
        """One view per vehicle in the simulation, by id(vehicle); made as vehicles appear."""
        self._views_made = 0
        self._frames_posed = 0
        self.combat_view = CombatView(render, simulation, specs.combat_view)
        self.effects = Effects(simulation, specs.effects, render, simulation.seed, quality)
        self.effects.particles.set_haze(specs.fog_colour, specs.fog_density_per_m)
        self._particle_projection = None
        self.overlay = DebugOverlay(render, overlay_2d, simulation, specs.debug_overlay,
                                    visible=debug_rays)
        self.armour_view = ArmourView(overlay_2d, specs.debug_overlay.armour,
                                      visible=armour_view)
        """The tanks' plates by the thickness the first player's camera sees."""
        self.battle = session.battle
        zone = getattr(session.battle, "zone", None)
        self.zone_band = (ZoneBand(render, simulation.terrain, zone, specs.zone)
                          if zone is not None else None)

    def on_events(self, events: list[Event]) -> None:
        self.effects.on_events(events)

    def sync_vehicles(self, alpha: float) -> None:
        """A view for every vehicle in the simulation (spawned mid-game too), none for
        those gone."""
        vehicles = {id(vehicle): vehicle for vehicle in self.simulation.vehicles}
        for key in [key for key in self.vehicle_views if key not in vehicles]:
            self.vehicle_views.pop(key).destroy()
        for key, vehicle in vehicles.items():
            if key not in self.vehicle_views:
                view = VehicleView(self.render, vehicle, self.specs.looks, self.simulation.step_s,
                                   parts_turn=self._views_made)
                self._views_made += 1
                view.update(alpha)
                self.vehicle_views[key] = view

    def view_of(self, vehicle) -> VehicleView | None:
        return self.vehicle_views.get(id(vehicle)) if vehicle is not None else None

    def update_vehicles(self, alpha: float, frame_s: float, pose_parts: bool = True) -> None:
        """Every vehicle's hull at the blended pose; their wheels and tracks too with
        ``pose_parts``, else only those :meth:`pose_seen_vehicles` finds in view."""
        update_views(list(self.vehicle_views.values()), alpha, frame_s, pose_parts,
                     self.simulation.thrown_turrets)

    def pose_seen_vehicles(self, cameras: list[NodePath], eyes_ws=()) -> None:
        """Once the ``cameras`` (NodePaths of Camera nodes: the players' display regions'
        and, while it draws, the sun's shadow camera) are placed for this frame: pose the
        moving parts of the vehicles that any of them may see. The others keep the pose
        they were last seen in, which nobody sees. Those farther from every one of the
        players' ``eyes_ws`` than [vehicle_detail] allows are posed in turns."""
        frustums = [(camera, camera.node().getLens().makeBounds()) for camera in cameras]
        pose_views_if_seen(list(self.vehicle_views.values()), frustums,
                           self.specs.vehicle_detail, eyes_ws, self._frames_posed)
        self._frames_posed += 1

    def update_effects(self, alpha: float, frame_s: float, eye_ws: np.ndarray,
                       projection: tuple[float, float], step_ms: float | None) -> None:
        """Tracers face, and particles sort for, the eye; ``projection`` is the lens's
        vertical field of view and aspect ratio, which size the particles."""
        self.combat_view.update(alpha, eye_ws)
        if projection != self._particle_projection:  # zoom, the gun sight, a resized window
            self.effects.particles.set_projection(*projection)
            self._particle_projection = projection
        self.effects.update(frame_s, eye_ws)
        self.overlay.update(step_ms)
        self.armour_view.update([view.rig for view in self.vehicle_views.values()
                                 if view.has_gun], eye_ws, self.render)
        if self.zone_band is not None and self.simulation.player is not None:
            self.zone_band.update(read_zone_state(self.battle, self.simulation.player))

    def destroy(self) -> None:
        if self.zone_band is not None:
            self.zone_band.destroy()
        for view in self.vehicle_views.values():
            view.destroy()
        self.vehicle_views.clear()
        self.overlay.destroy()
        self.armour_view.destroy()
        self.effects.destroy()
        self.combat_view.destroy()
