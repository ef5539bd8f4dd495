"""The desert scene: terrain mesh, low sun, sky light and distance fog."""

from __future__ import annotations

import math

from panda3d.core import AmbientLight, DirectionalLight, Fog, NodePath, Vec3, Vec4

from game.config import SceneSpec
from game.meshes import terrain_mesh
from physics.terrain import Terrain


def sun_direction(heading_deg: float, elevation_deg: float) -> Vec3:
    """Direction the sunlight travels, from the compass heading it comes from."""
    heading, elevation = math.radians(heading_deg), math.radians(elevation_deg)
    towards_sun = Vec3(math.sin(heading) * math.cos(elevation),
                       math.cos(heading) * math.cos(elevation), math.sin(elevation))
    return -towards_sun


class DesertScene:
    """Builds the lit, fogged terrain under ``render``; ``destroy()`` takes it all down."""

    def __init__(self, render: NodePath, terrain: Terrain, spec: SceneSpec):
        self._render = render
        self.terrain_path = render.attachNewNode(
            terrain_mesh(terrain, spec.sand_light_colour, spec.sand_dark_colour))

        sun = DirectionalLight("sun")
        sun.setColor(Vec4(*spec.sun_colour, 1.0))
        self.sun_path = render.attachNewNode(sun)
        self.sun_path.lookAt(sun_direction(spec.sun_heading_deg, spec.sun_elevation_deg))
        ambient = AmbientLight("sky-light")
        ambient.setColor(Vec4(*spec.ambient_colour, 1.0))
        self.ambient_path = render.attachNewNode(ambient)
        render.setLight(self.sun_path)
        render.setLight(self.ambient_path)

        fog = Fog("haze")
        fog.setColor(*spec.fog_colour)
        fog.setExpDensity(spec.fog_density_per_m)
        render.setFog(fog)

    def destroy(self) -> None:
        self._render.clearFog()
        self._render.clearLight()
        for path in (self.terrain_path, self.sun_path, self.ambient_path):
            path.removeNode()
