"""One frame of the window drawn: every vehicle blended between the last two steps, each
player's camera and HUD following their vehicle, the scene round them, the effects.

What outlives a session (the scene, the players' views) is handed in once; the session
drawn and its :class:`~game.view.session_view.SessionView` with every frame, so a restart
needs only :meth:`WindowFrame.restart`.
"""

from __future__ import annotations

import numpy as np

from game.sim.interfaces import DrawnSession
from game.view.session_view import SessionView


class WindowFrame:
    """Draws a frame through ``views`` (:class:`~game.view.player_view.PlayerView`, player
    1 first) over ``scene``; a frame's time is taken at most ``max_frame_s`` by the
    effects (a long hitch does not age the particles in one jump)."""

    def __init__(self, scene, views: list, max_frame_s: float):
        self.scene = scene
        self.views = views
        self.max_frame_s = max_frame_s
        self._followed: list = [None] * len(views)
        """The vehicle view each player's camera follows now."""

    def restart(self) -> None:
        """A new session: no vehicle view of the old one is followed any more."""
        self._followed = [None] * len(self.views)

    def draw(self, session: DrawnSession, session_view: SessionView, alpha: float,
             frame_s: float, field_of_view_deg: float, step_ms: float | None) -> None:
        session_view.sync_vehicles(alpha)
        self._follow_players(session_view)
        session_view.update_vehicles(alpha, frame_s, pose_parts=False)
        for player, followed in zip(self.views, self._followed):
            player.update(frame_s, followed, session.simulation, session.battle,
                          field_of_view_deg)
        # Tracers face, and particles sort for, player 1's camera; the sun's shadows
        # cover the ground round the players' vehicles.
        followed = [view.position for view in self._followed if view is not None]
        if followed:
            self.scene.update(np.mean(followed, axis=0))
        cameras = [player.screen.display_region.getCamera() for player in self.views]
        if self.scene.shadow.enabled:  # a tank out of view may cast a shadow into it
            cameras.append(self.scene.shadow.camera)
        session_view.pose_seen_vehicles(cameras, [player.eye for player in self.views])
        lens = self.views[0].screen.lens
        effects_s = min(max(float(frame_s), 0.0), self.max_frame_s)
        session_view.update_effects(alpha, effects_s, self.views[0].eye,
                                    (lens.getFov()[1], lens.getAspectRatio()), step_ms)

    def _follow_players(self, session_view: SessionView) -> None:
        """Each player's camera follows the view of their vehicle (player 1's can swap);
        the one left behind shows its gun again."""
        for index, player in enumerate(self.views):
            followed = session_view.view_of(player.follow())
            if followed is not self._followed[index]:
                if self._followed[index] is not None:
                    self._followed[index].show_gun(True, player.screen.mask)
                self._followed[index] = followed
