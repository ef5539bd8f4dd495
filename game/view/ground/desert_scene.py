"""The desert scene: sky dome, tiled sand, rocks, a low warm sun with shadows, and haze.

Everything is drawn by our own shaders (:mod:`game.view.draw.shaders`). The scene's root
carries the shared inputs (sun, sky, fog, shadow map), so every lit node under it
(terrain, rocks, vehicles) is lit the same way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from panda3d.core import CullFaceAttrib, DepthTestAttrib, NodePath, Vec2, Vec3, Vec4

from common.spec import Spec, tuning
from game.view.draw.colours import rgb
from game.view.draw.meshes import flat_mesh, loft_triangles, make_mesh
from game.view.draw.shaders import lit_shader, sky_shader
from game.view.draw.textures import sand_detail_texture
from game.view.ground.shadows import MAIN_CAMERA_MASK, SHADOW_CASTER_MASK, ShadowSpec, SunShadow
from game.view.ground.streamed_rocks import StreamedRocks
from game.view.ground.streamed_terrain_view import StreamedTerrainView
from game.view.ground.terrain_view import TerrainView, TerrainViewSpec, terrain_view_for
from physics.model.terrain import TerrainBase
from physics.model.tiled_terrain import TiledTerrain


@dataclass(frozen=True)
class SceneSpec(Spec):
    sky_colour: tuple[float, ...] = rgb("sky colour at the zenith, 0..1")
    fog_colour: tuple[float, ...] = rgb("sky colour at the horizon, which distant ground "
                                            "fades into, 0..1")
    fog_density_per_m: float = tuning("haze: visibility falls as exp(-(density x distance)^2)",
                                      minimum=0.0, maximum=0.1)
    big_desert_fog_density_per_m: float = tuning("the haze of a big desert (desert:SIZE), "
                                                 "whose tanks see and shoot further, and of "
                                                 "any map as wide as thin_haze_from_m",
                                                 minimum=0.0, maximum=0.1)
    thin_haze_from_m: float = tuning("a whole map this wide or wider draws a big desert's "
                                     "haze (the firing range: its far plates can be seen)",
                                     minimum=100.0, maximum=100000.0)
    sky_gradient_exponent: float = tuning("how quickly the sky turns from the horizon colour "
                                          "to the zenith colour (< 1: quickly)", minimum=0.05,
                                          maximum=5.0)
    sun_glow_strength: float = tuning("brightness of the glow round the sun, in the sky and "
                                      "the haze", minimum=0.0, maximum=2.0)
    sun_glow_exponent: float = tuning("tightness of that glow", minimum=1.0, maximum=1000.0)
    sun_disc_radius_deg: float = tuning("angular radius of the sun's disc", minimum=0.0,
                                        maximum=10.0)
    sky_dome_radius_m: float = tuning("radius of the sky dome round the camera (inside the "
                                      "far clip)", minimum=10.0, maximum=10000.0)
    sun_heading_deg: float = tuning("compass direction the sunlight comes from",
                                    minimum=-360.0, maximum=360.0)
    sun_elevation_deg: float = tuning("sun's height above the horizon", minimum=1.0,
                                      maximum=90.0)
    sun_colour: tuple[float, ...] = rgb("sunlight colour and strength", maximum=4.0)
    ambient_colour: tuple[float, ...] = rgb("sky light on up-facing surfaces", maximum=4.0)
    ground_light_colour: tuple[float, ...] = rgb("light bounced off the sand onto "
                                                     "down-facing surfaces", maximum=4.0)
    sand_light_colour: tuple[float, ...] = rgb("colour of crests, 0..1")
    sand_dark_colour: tuple[float, ...] = rgb("colour of troughs, 0..1")
    rock_colour: tuple[float, ...] = rgb("rocks, 0..1")
    rock_colour_variation: float = tuning("rocks' brightness differs by up to this share",
                                          minimum=0.0, maximum=1.0)
    vehicle_colour: tuple[float, ...] = rgb("vehicle paint, 0..1")
    track_colour: tuple[float, ...] = rgb("tracks, 0..1")
    wreck_shade: tuple[float, ...] = rgb("a destroyed vehicle's colours are multiplied by "
                                             "this (burnt), 0..1")


@dataclass(frozen=True)
class SandSpec(Spec):
    """The sand's generated detail texture and how the shader tiles it."""

    texture_size_px: int = tuning("side of the generated detail texture (a power of two)",
                                  minimum=16, maximum=2048)
    ripples_per_tile: float = tuning("wind ripples across one texture tile", minimum=1.0,
                                     maximum=128.0)
    ripple_slope: float = tuning("tilt of the ripples' flanks in the normal detail",
                                 minimum=0.0, maximum=4.0)
    grain_slope: float = tuning("tilt from fine grain noise in the normal detail",
                                minimum=0.0, maximum=4.0)
    fine_tile_m: float = tuning("ground covered by one tile at the fine scale", minimum=0.1,
                                maximum=1000.0)
    coarse_tile_m: float = tuning("ground covered by one tile at the coarse scale (turned, "
                                  "so its repeats never line up with the fine ones)",
                                  minimum=0.1, maximum=1000.0)
    blend_mask_tile_m: float = tuning("size of the blotches of the mask that blends the two "
                                      "scales", minimum=1.0, maximum=10000.0)
    fine_detail_distance_m: float = tuning("the fine scale is drawn out to this distance (beyond "
                                           "it, it is finer than a pixel)", minimum=0.0,
                                           maximum=10000.0)
    normal_strength: float = tuning("how strongly the detail tilts the sand's normals",
                                    minimum=0.0, maximum=4.0)
    fine_variation: float = tuning("brightness variation from the detail", minimum=0.0,
                                   maximum=1.0)
    coarse_variation: float = tuning("brightness variation from the large blotches",
                                     minimum=0.0, maximum=1.0)


def towards_sun(heading_deg: float, elevation_deg: float) -> np.ndarray:
    """Unit vector toward the sun, from the compass heading it shines from."""
    heading, elevation = math.radians(heading_deg), math.radians(elevation_deg)
    return np.array([math.sin(heading) * math.cos(elevation),
                     math.cos(heading) * math.cos(elevation), math.sin(elevation)])


def sun_direction(heading_deg: float, elevation_deg: float) -> Vec3:
    """Direction the sunlight travels, from the compass heading it comes from."""
    return Vec3(*(-towards_sun(heading_deg, elevation_deg)))


def rocks_mesh(rocks, spec: SceneSpec):
    """All rocks in one faceted mesh, in world space, each a slightly different colour."""
    points, triangles, colours = [], [], []
    base = 0
    for number, rock in enumerate(rocks):
        heading = math.radians(rock.heading_deg)
        # Panda's heading turns counter-clockwise; the collider is set with H = -heading.
        c, s = math.cos(-heading), math.sin(-heading)
        rotation = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        world = rock.points_bs @ rotation.T + rock.position_ws
        points.append(world)
        # Turn each triangle outward about the rock's own centre.
        tris = np.asarray(rock.triangles)
        a, b, cc = world[tris[:, 0]], world[tris[:, 1]], world[tris[:, 2]]
        inward = np.einsum("ij,ij->i", np.cross(b - a, cc - a),
                           (a + b + cc) / 3 - rock.position_ws) < 0
        tris = tris.copy()
        tris[inward] = tris[inward][:, [0, 2, 1]]
        triangles.append(tris + base)
        shade = 1.0 + spec.rock_colour_variation * math.sin(number * 12.9898 + 0.5)
        colours.append(np.tile(np.clip(np.asarray(spec.rock_colour) * shade, 0, 1),
                               (len(tris), 1)))
        base += len(world)
    if not points:
        return None
    return flat_mesh("rocks", np.concatenate(points), np.concatenate(triangles),
                     np.concatenate(colours))


def sky_dome_mesh(radius_m: float, rings: int, sides: int):
    """A sphere of ``radius_m`` (normals unused by the sky shader) with inward faces."""
    elevations = np.linspace(-math.pi / 2, math.pi / 2, rings)
    points = []
    for elevation in elevations:
        angle = np.arange(sides) * 2 * math.pi / sides
        points.append(np.stack([np.cos(angle) * math.cos(elevation),
                                np.sin(angle) * math.cos(elevation),
                                np.full(sides, math.sin(elevation))], axis=1) * radius_m)
    positions = np.concatenate(points)
    triangles = loft_triangles(rings, sides, caps=False)
    return make_mesh("sky-dome", positions, -positions / radius_m,
                     np.ones((len(positions), 4)), triangles)


def haze_density_per_m(spec: SceneSpec, terrain: TerrainBase) -> float:
    """The haze a map is drawn in: a big desert's, or a whole map as wide as
    ``thin_haze_from_m``, the thinner one (their far sides are meant to be seen)."""
    wide = 2.0 * terrain.half_extent_x_m >= spec.thin_haze_from_m
    return (spec.big_desert_fog_density_per_m if isinstance(terrain, TiledTerrain) or wide
            else spec.fog_density_per_m)


class DesertScene:
    """Builds the scene under ``render``; ``update(focus_ws)`` each frame; ``destroy()``
    takes it all down."""

    def __init__(self, base, render: NodePath, camera: NodePath, terrain: TerrainBase, rocks,
                 spec: SceneSpec, sand: SandSpec, shadows: ShadowSpec,
                 terrain_view: TerrainViewSpec):
        self._render = render
        self.spec = spec
        self.root = render.attachNewNode("desert-scene")
        sun = towards_sun(spec.sun_heading_deg, spec.sun_elevation_deg)
        if base.cam is not None:
            base.cam.node().setCameraMask(MAIN_CAMERA_MASK)
        self.shadow = SunShadow(base, render, sun, shadows)

        # Shared inputs for every lit node under render.
        inputs = {
            "sun_direction": Vec3(*sun), "sun_colour": Vec3(*spec.sun_colour),
            "sky_zenith_colour": Vec3(*spec.sky_colour),
            "horizon_colour": Vec3(*spec.fog_colour),
            "sky_shape": Vec4(spec.sky_gradient_exponent, spec.sun_glow_strength,
                              spec.sun_glow_exponent,
                              math.cos(math.radians(spec.sun_disc_radius_deg))),
            "sky_light_colour": Vec3(*spec.ambient_colour),
            "ground_light_colour": Vec3(*spec.ground_light_colour),
            "fog_density": spec.fog_density_per_m,
            "specular_strength": 0.0,
            **self.shadow.shader_inputs(),
        }
        for name, value in inputs.items():
            render.setShaderInput(name, value)
        self._input_names = list(inputs)
        render.setShader(lit_shader())

        self.sky = camera.attachNewNode(sky_dome_mesh(spec.sky_dome_radius_m, 12, 24))
        self.sky.setCompass()
        self.sky.setShader(sky_shader())
        # Drawn after the opaque scene, on the far plane: it shades only uncovered pixels.
        self.sky.setBin("fixed", 0)
        self.sky.setDepthWrite(False)
        self.sky.setAttrib(DepthTestAttrib.make(DepthTestAttrib.MLessEqual))
        self.sky.setAttrib(CullFaceAttrib.make(CullFaceAttrib.MCullNone))
        self.sky.hide(SHADOW_CASTER_MASK)
        self._view_skies: list[NodePath] = []

        self.sand, self.terrain_view_spec = sand, terrain_view
        self.sand_texture = sand_detail_texture(sand.texture_size_px, sand.ripples_per_tile,
                                                sand.ripple_slope, sand.grain_slope, 0)
        self._cameras = [camera]
        """The cameras the scene is seen through (a big desert is drawn round them)."""
        self.terrain: TerrainView | StreamedTerrainView | None = None
        self.rocks: NodePath | StreamedRocks | None = None
        self.fog_density_per_m = spec.fog_density_per_m
        """The haze of the map drawn now (a big desert's is thinner)."""
        self.set_ground(terrain, rocks)

    def set_ground(self, terrain: TerrainBase, rocks) -> None:
        """Draw ``terrain`` and ``rocks`` (another map: the sky, sun and shadows stay)."""
        self._remove_ground()
        spec, sand = self.spec, self.sand
        self.fog_density_per_m = haze_density_per_m(spec, terrain)
        self._render.setShaderInput("fog_density", self.fog_density_per_m)
        self.terrain = terrain_view_for(self.root, terrain, self.terrain_view_spec,
                                        spec.sand_light_colour, spec.sand_dark_colour,
                                        sand.blend_mask_tile_m)
        self.terrain.root.hide(SHADOW_CASTER_MASK)
        self.terrain.root.setShader(lit_shader("SAND"))
        self.terrain.root.setShaderInput("sand_detail", self.sand_texture)
        self.terrain.root.setShaderInput("sand_scales", Vec4(
            1.0 / sand.fine_tile_m, 1.0 / sand.coarse_tile_m,
            math.exp(-(self.fog_density_per_m * sand.fine_detail_distance_m) ** 2),
            sand.normal_strength))
        self.terrain.root.setShaderInput("sand_variation", Vec2(sand.fine_variation,
                                                                sand.coarse_variation))
        if isinstance(terrain, TiledTerrain):  # a big desert's rocks come and go with tiles
            self.rocks = StreamedRocks(self.root, terrain, self.terrain_view_spec.streamed,
                                       lambda tile_rocks: rocks_mesh(tile_rocks, spec))
        else:
            mesh = rocks_mesh(rocks, spec)
            self.rocks = self.root.attachNewNode(mesh) if mesh is not None else None

    def _remove_ground(self) -> None:
        if self.terrain is not None:
            self.terrain.destroy()
            self.terrain = None
        if isinstance(self.rocks, StreamedRocks):
            self.rocks.destroy()
        elif self.rocks is not None:
            self.rocks.removeNode()
        self.rocks = None

    def add_view(self, camera: NodePath, camera_mask) -> None:
        """Another camera (split screen; it draws ``camera_mask``) gets its own sky dome
        round it: each camera sees only its own."""
        sky = self.sky.copyTo(camera)
        self._cameras.append(camera)
        sky.hide(MAIN_CAMERA_MASK)
        self.sky.hide(camera_mask)
        self._view_skies.append(sky)

    def update(self, focus_ws: np.ndarray) -> None:
        """Once a frame: the shadowed square follows ``focus_ws`` (the player); a big
        desert's tiles follow the cameras."""
        self.shadow.follow(focus_ws)
        cameras_xy = np.array([tuple(camera.getPos(self._render))[:2]
                               for camera in self._cameras])
        self.terrain.update(cameras_xy)
        if isinstance(self.rocks, StreamedRocks):
            self.rocks.update(cameras_xy)

    def destroy(self) -> None:
        self._render.clearShader()
        for name in self._input_names:
            self._render.clearShaderInput(name)
        self._remove_ground()
        self.sky.removeNode()
        for sky in self._view_skies:
            sky.removeNode()
        self.shadow.destroy()
        self.root.removeNode()
