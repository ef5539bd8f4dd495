"""Sun shadows: a depth pass from an orthographic camera that follows the player.

The camera looks along the sunlight at a square ``extent_m`` wide centred on the
point it is given each frame; its position is snapped to whole shadow-map texels
so the shadows' edges do not crawl while the tank drives. It sees only what is
shown to :data:`SHADOW_CASTER_MASK` (vehicles and rocks; the terrain and the sky
are hidden from it). The lit shader reads the depth texture with hardware depth
comparison (``sampler2DShadow``) through ``trans_model_to_clip_of_suncam``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from panda3d.core import (BitMask32, Camera, ColorWriteAttrib, FrameBufferProperties,
                          GraphicsOutput, GraphicsPipe, NodePath, OrthographicLens, Point3,
                          SamplerState, Texture, Vec4, WindowProperties)

from game.view.shaders import depth_shader
from physics.model.spec import Spec, tuning


@dataclass(frozen=True)
class ShadowSpec(Spec):
    """Sun shadows: a depth map from an orthographic camera that follows the player."""

    map_size_px: int = tuning("side of the shadow map", minimum=128, maximum=8192)
    extent_m: float = tuning("side of the shadowed square round the player", minimum=10.0,
                             maximum=2000.0)
    depth_range_m: float = tuning("depth the shadow camera sees along the sunlight",
                                  minimum=10.0, maximum=5000.0)
    depth_bias_m: float = tuning("depth bias against shadow acne", minimum=0.0, maximum=5.0)
    slope_bias_m: float = tuning("extra bias on surfaces turned away from the sun",
                                 minimum=0.0, maximum=5.0)


MAIN_CAMERA_MASK = BitMask32.bit(0)
SHADOW_CASTER_MASK = BitMask32.bit(1)


class SunShadow:
    """The shadow buffer, its camera and the depth texture the lit shader samples."""

    def __init__(self, base, render: NodePath, towards_sun: np.ndarray, spec):
        self.spec = spec
        self.render = render
        self.towards_sun = np.asarray(towards_sun, dtype=np.float64)
        size = spec.map_size_px
        self.texel_m = spec.extent_m / size
        self.texture = Texture("sun-shadow-depth")
        self.buffer = None
        self.camera = None
        if base.win is None or base.pipe is None:
            return
        props = FrameBufferProperties()
        props.setRgbColor(False)
        props.setDepthBits(24)
        self.buffer = base.graphicsEngine.makeOutput(
            base.pipe, "sun-shadow", -10, props, WindowProperties.size(size, size),
            GraphicsPipe.BFRefuseWindow, base.win.getGsg(), base.win)
        if self.buffer is None:
            return
        self.buffer.addRenderTexture(self.texture, GraphicsOutput.RTMBindOrCopy,
                                     GraphicsOutput.RTPDepth)
        self.buffer.setClearDepthActive(True)
        self.buffer.setClearDepth(1.0)
        self.buffer.setClearColorActive(False)
        self.texture.setMinfilter(SamplerState.FT_shadow)
        self.texture.setMagfilter(SamplerState.FT_shadow)
        self.texture.setWrapU(SamplerState.WM_border_color)
        self.texture.setWrapV(SamplerState.WM_border_color)
        self.texture.setBorderColor(Vec4(1.0, 1.0, 1.0, 1.0))

        lens = OrthographicLens()
        lens.setFilmSize(spec.extent_m, spec.extent_m)
        lens.setNearFar(0.0, spec.depth_range_m)
        node = Camera("shadow-camera", lens)
        node.setCameraMask(SHADOW_CASTER_MASK)
        state = NodePath("shadow-pass-state")
        state.setShader(depth_shader(), 100)
        state.setAttrib(ColorWriteAttrib.make(ColorWriteAttrib.COff), 100)
        node.setInitialState(state.getState())
        self.camera = render.attachNewNode(node)
        self.camera.lookAt(Point3(*(-self.towards_sun)))
        region = self.buffer.makeDisplayRegion()
        region.setCamera(self.camera)
        # The camera's own axes, to snap its position to whole texels.
        quat = self.camera.getQuat(render)
        self._right = np.array(quat.getRight())
        self._up = np.array(quat.getUp())

    def follow(self, centre_ws: np.ndarray) -> None:
        """Centre the shadowed square on ``centre_ws`` (snapped to texels)."""
        if self.camera is None:
            return
        centre = np.asarray(centre_ws, dtype=np.float64)
        for axis in (self._right, self._up):
            along = centre @ axis
            centre = centre + axis * (np.round(along / self.texel_m) * self.texel_m - along)
        position = centre + self.towards_sun * (self.spec.depth_range_m / 2.0)
        self.camera.setPos(self.render, Point3(*position))

    def shader_inputs(self) -> dict:
        """What the lit shader needs from the shadow pass."""
        depth = self.spec.depth_range_m
        return {"shadow_map": self.texture,
                "suncam": self.camera if self.camera is not None else NodePath("none"),
                "shadow_params": Vec4(1.0 / self.spec.map_size_px, self.spec.depth_bias_m / depth,
                                      self.spec.slope_bias_m / depth, 0.0)}

    def destroy(self) -> None:
        if self.buffer is not None:
            self.buffer.clearRenderTextures()
            self.buffer.getEngine().removeWindow(self.buffer)
            self.buffer = None
        if self.camera is not None:
            self.camera.removeNode()
            self.camera = None
