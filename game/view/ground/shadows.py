"""Sun shadows: a depth pass from an orthographic camera that follows the player.

The camera looks along the sunlight at a square ``extent_m`` wide centred on the
point it is given each frame; its position is snapped to whole shadow-map texels
so the shadows' edges do not crawl while the tank drives. It sees only what is
shown to :data:`SHADOW_CASTER_MASK` (vehicles and rocks; the terrain and the sky
are hidden from it). The lit shader reads the depth texture with hardware depth
comparison (``sampler2DShadow``) through ``trans_model_to_clip_of_suncam``.

The graphics quality turns the shadows on and off and sizes their map
(:meth:`SunShadow.set_quality`); they start off. Off, there is no depth pass at all:
the texture the shader reads is one texel at the far plane, so nothing is in shadow.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass

import numpy as np
from panda3d.core import (BitMask32, Camera, ColorWriteAttrib, FrameBufferProperties,
                          GraphicsOutput, GraphicsPipe, NodePath, OrthographicLens, Point3,
                          SamplerState, Texture, Vec4, WindowProperties)

from common.spec import Spec, tuning
from game.view.draw.shaders import WHEELS_SHADOW_TAG_KEY, WHEELS_SHADOW_TAG_VALUE, depth_shader


@dataclass(frozen=True)
class ShadowSpec(Spec):
    """Sun shadows: a depth map from an orthographic camera that follows the player."""

    extent_m: float = tuning("side of the shadowed square round the player", minimum=10.0,
                             maximum=2000.0)
    depth_range_m: float = tuning("depth the shadow camera sees along the sunlight",
                                  minimum=10.0, maximum=5000.0)
    depth_bias_m: float = tuning("depth bias against shadow acne", minimum=0.0, maximum=5.0)
    slope_bias_m: float = tuning("extra bias on surfaces turned away from the sun",
                                 minimum=0.0, maximum=5.0)


MAIN_CAMERA_MASK = BitMask32.bit(0)
SHADOW_CASTER_MASK = BitMask32.bit(1)


FAR_DEPTH = 1.0
"""Depth at the far plane: a fragment compared with it is always lit."""
BUFFER_SORT = -10
"""The depth pass renders before the windows that read it."""


def _depth_pass_state(*defines: str) -> NodePath:
    """What the shadow pass draws with: the depth shader (its ``defines`` variant), no
    colour; over whatever the nodes drawn set."""
    state = NodePath("shadow-pass-state")
    state.setShader(depth_shader(*defines), 100)
    state.setAttrib(ColorWriteAttrib.make(ColorWriteAttrib.COff), 100)
    return state


class SunShadow:
    """The shadow buffer, its camera and the depth texture the lit shader samples.

    ``enabled``: the depth pass is drawn; ``map_size_px``: its side (0 while off)."""

    def __init__(self, base, render: NodePath, towards_sun: np.ndarray, spec):
        self.spec = spec
        self.render = render
        self.base = base
        self.towards_sun = np.asarray(towards_sun, dtype=np.float64)
        self.texture = Texture("sun-shadow-depth")
        self.buffer = None
        self.map_size_px = 0
        self.texel_m = spec.extent_m
        self._light_everything()

        lens = OrthographicLens()
        lens.setFilmSize(spec.extent_m, spec.extent_m)
        lens.setNearFar(0.0, spec.depth_range_m)
        node = Camera("shadow-camera", lens)
        node.setCameraMask(SHADOW_CASTER_MASK)
        node.setInitialState(_depth_pass_state().getState())
        # Wheel sets place their wheels in the vertex shader: the depth pass must too.
        node.setTagStateKey(WHEELS_SHADOW_TAG_KEY)
        node.setTagState(WHEELS_SHADOW_TAG_VALUE, _depth_pass_state("WHEELS").getState())
        self.camera = render.attachNewNode(node)
        self.camera.lookAt(Point3(*(-self.towards_sun)))
        # The camera's own axes, to snap its position to whole texels.
        quat = self.camera.getQuat(render)
        self._right = np.array(quat.getRight())
        self._up = np.array(quat.getUp())

    @property
    def enabled(self) -> bool:
        return self.buffer is not None

    def set_quality(self, enabled: bool, map_size_px: int) -> None:
        """Shadows on with a ``map_size_px`` map (remade if its size changed), or off. Where
        no buffer can be made (no window, or the driver refuses) they stay off."""
        if self.enabled == enabled and (not enabled or map_size_px == self.map_size_px):
            return
        self._remove_buffer()
        if enabled:
            self._make_buffer(map_size_px)
        if self.buffer is None:
            self._light_everything()
        self.render.setShaderInput("shadow_params", self._params())

    def _make_buffer(self, size: int) -> None:
        base = self.base
        if getattr(base, "win", None) is None or getattr(base, "pipe", None) is None:
            return
        props = FrameBufferProperties()
        props.setRgbColor(False)
        props.setDepthBits(24)
        self.buffer = base.graphicsEngine.makeOutput(
            base.pipe, "sun-shadow", BUFFER_SORT, props, WindowProperties.size(size, size),
            GraphicsPipe.BFRefuseWindow, base.win.getGsg(), base.win)
        if self.buffer is None:
            return
        self.texture.clearRamImage()
        self.buffer.addRenderTexture(self.texture, GraphicsOutput.RTMBindOrCopy,
                                     GraphicsOutput.RTPDepth)
        self.buffer.setClearDepthActive(True)
        self.buffer.setClearDepth(FAR_DEPTH)
        self.buffer.setClearColorActive(False)
        self.buffer.makeDisplayRegion().setCamera(self.camera)
        self.map_size_px = size
        self.texel_m = self.spec.extent_m / size
        self._sampling()

    def _remove_buffer(self) -> None:
        if self.buffer is not None:
            self.buffer.clearRenderTextures()
            self.buffer.getEngine().removeWindow(self.buffer)
            self.buffer = None
        self.map_size_px = 0

    def _light_everything(self) -> None:
        """The texture becomes one texel at the far plane: nothing is in shadow."""
        self.texture.setup2dTexture(1, 1, Texture.T_float, Texture.F_depth_component32)
        self.texture.setRamImage(array("f", [FAR_DEPTH]).tobytes())
        self.texel_m = self.spec.extent_m
        self._sampling()

    def _sampling(self) -> None:
        """Hardware depth comparison; outside the map everything is lit."""
        self.texture.setMinfilter(SamplerState.FT_shadow)
        self.texture.setMagfilter(SamplerState.FT_shadow)
        self.texture.setWrapU(SamplerState.WM_border_color)
        self.texture.setWrapV(SamplerState.WM_border_color)
        self.texture.setBorderColor(Vec4(FAR_DEPTH, FAR_DEPTH, FAR_DEPTH, FAR_DEPTH))

    def follow(self, centre_ws: np.ndarray) -> None:
        """Centre the shadowed square on ``centre_ws`` (snapped to texels)."""
        if self.buffer is None:
            return
        centre = np.asarray(centre_ws, dtype=np.float64)
        for axis in (self._right, self._up):
            along = float(centre @ axis)
            # Python's round, as numpy's, rounds halves to even; on a float it is a
            # fraction of numpy's cost. The shift stays a float64 (the axis is float32).
            shift = np.float64(round(along / self.texel_m) * self.texel_m - along)
            centre = centre + axis * shift
        position = centre + self.towards_sun * (self.spec.depth_range_m / 2.0)
        self.camera.setPos(self.render, Point3(*position))

    def _params(self) -> Vec4:
        depth = self.spec.depth_range_m
        return Vec4(1.0 / max(self.map_size_px, 1), self.spec.depth_bias_m / depth,
                    self.spec.slope_bias_m / depth, 0.0)

    def shader_inputs(self) -> dict:
        """What the lit shader needs from the shadow pass."""
        return {"shadow_map": self.texture, "suncam": self.camera,
                "shadow_params": self._params()}

    def destroy(self) -> None:
        self._remove_buffer()
        if self.camera is not None:
            self.camera.removeNode()
            self.camera = None
