"""Our particle system against Panda3D's own ``ParticleEffect``: the cost of a frame.

    python -m bench.particles [COUNT] [FRAMES]      (also ``python -m bench particles``)
"""

from __future__ import annotations

import math
import time

import numpy as np

from game.view.effects.particles import ParticleSystem

POINT_PX = 3.0
"""Both systems draw their particles this many pixels across (fill rate is the same)."""


def _fill(system: ParticleSystem, count: int, rng: np.random.Generator, size_m: float) -> None:
    """``count`` long-lived particles in a cloud 30 m in front of the camera."""
    positions = rng.normal(0.0, 4.0, (count, 3)) + np.array([0.0, 30.0, 0.0])
    velocities = rng.normal(0.0, 1.0, (count, 3))
    system.spawn(positions, velocities, rng.uniform(1e5, 2e5, count), (size_m, size_m),
                 (1.0, 0.7, 0.3, 0.8), (0.6, 0.6, 0.6, 0.0), 0.5, 0.5, False)


def _median_ms(work, frames: int) -> float:
    """The median time of ``frames`` calls of ``work`` (robust to a busy machine)."""
    times = []
    for _ in range(frames):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1000.0


def _draw_ms(base, frames: int) -> float:
    base.graphicsEngine.renderFrame()
    return _median_ms(base.graphicsEngine.renderFrame, frames)


def benchmark(count: int = 5000, frames: int = 60) -> dict:
    """Per-frame cost (ms) of ``count`` particles: ours vs ``ParticleEffect`` with a
    ``PointParticleRenderer``, both drawn ``POINT_PX`` pixels across. ``update_ms``: the CPU side of a frame (ours: update +
    vertex write; theirs: the particle and physics managers' step). ``draw_ms``: a
    rendered frame with ``gl-finish`` (offscreen, 1280x720) less an empty frame's cost.
    Medians over ``frames`` frames.
    Opens an offscreen ShowBase when none is running (use a fresh process)."""
    import builtins

    from panda3d.core import loadPrcFileData
    rng = np.random.default_rng(7)
    if getattr(builtins, "base", None) is None:
        loadPrcFileData("particles-benchmark", "window-type offscreen\nwin-size 1280 720\n"
                        "audio-library-name null\ngl-finish true\nsync-video false")
        from direct.showbase.ShowBase import ShowBase
        ShowBase()
    base = builtins.base
    base.setBackgroundColor(0.2, 0.3, 0.5, 1.0)
    base.camLens.setMinFov(40.0)
    dt = 1.0 / 60.0
    empty_ms = _draw_ms(base, frames)

    # Ours: a full frame's CPU work (update + writing the vertices), then drawing.
    ours = ParticleSystem(count, base.render)
    ours.set_projection(40.0, base.win.getXSize() / base.win.getYSize())
    pixels_per_m_at_1m = (base.win.getYSize() / 2.0) / math.tan(math.radians(20.0))
    _fill(ours, count, rng, POINT_PX * 30.0 / pixels_per_m_at_1m)

    def our_frame():
        ours.update(dt)
        ours.draw()
    ours_update_ms = _median_ms(our_frame, frames)
    ours_draw_ms = _draw_ms(base, frames) - empty_ms
    ours_alive = ours.count
    # The same particles at the sizes smoke has in the game (0.5 m: ~16 px at 30 m).
    ours.size[:ours.count] = 0.5
    ours.draw()
    ours_smoke_draw_ms = _draw_ms(base, frames) - empty_ms
    ours.destroy()

    result = {"count": count, "frames": frames, "empty_frame_ms": round(empty_ms, 3),
              "ours": {"update_ms": round(ours_update_ms, 3), "draw_ms": round(ours_draw_ms, 3),
                       "alive": int(ours_alive), "draw_ms_at_16px": round(ours_smoke_draw_ms, 3)}}
    result["panda_particle_effect"] = _panda_effect(base, count, frames, dt, empty_ms,
                                                    "PointParticleRenderer")
    result["panda_sprite_effect"] = _panda_effect(base, count, frames, dt, empty_ms,
                                                  "SpriteParticleRenderer")
    costs = {name: result[name]["update_ms"] + result[name]["draw_ms"]
             for name in ("ours", "panda_particle_effect")}
    result["faster"] = min(costs, key=costs.get)
    return result


def _soft_texture(size: int = 32):
    """A round, soft white sprite for Panda's SpriteParticleRenderer."""
    from panda3d.core import PNMImage, Texture
    image = PNMImage(size, size, 4)
    axis = (np.arange(size) + 0.5) / size * 2.0 - 1.0
    r2 = axis[None, :] ** 2 + axis[:, None] ** 2
    alpha = np.clip(1.0 - r2, 0.0, 1.0) ** 2
    image.fill(1.0, 1.0, 1.0)
    for y in range(size):
        for x in range(size):
            image.setAlpha(x, y, float(alpha[y, x]))
    texture = Texture("soft")
    texture.load(image)
    return texture


def _panda_effect(base, count: int, frames: int, dt: float, empty_ms: float,
                  renderer: str) -> dict:
    """Panda3D's ParticleEffect: a sphere emitter, a pool of ``count`` all born at once."""
    from direct.particles.ForceGroup import ForceGroup
    from direct.particles.ParticleEffect import ParticleEffect
    from direct.particles.Particles import Particles
    from panda3d.core import Point3, Vec3, Vec4
    from panda3d.physics import BaseParticleEmitter, BaseParticleRenderer, LinearVectorForce
    base.enableParticles()
    effect = ParticleEffect()
    particles = Particles("bench")
    particles.setFactory("PointParticleFactory")
    particles.setRenderer(renderer)
    particles.setEmitter("SphereVolumeEmitter")
    particles.setPoolSize(count)
    particles.setBirthRate(0.001)
    particles.setLitterSize(count)
    particles.setLitterSpread(0)
    particles.factory.setLifespanBase(1e5)
    particles.renderer.setAlphaMode(BaseParticleRenderer.PRALPHAOUT)
    if renderer == "PointParticleRenderer":  # square points of a fixed pixel size
        particles.renderer.setPointSize(POINT_PX)
        particles.renderer.setStartColor(Vec4(1.0, 0.7, 0.3, 0.8))
        particles.renderer.setEndColor(Vec4(0.6, 0.6, 0.6, 0.0))
    else:  # soft round sprites sized in metres: the look ours has
        texture = _soft_texture()
        particles.renderer.setTexture(texture, texture.getXSize())
        particles.renderer.setXScaleFlag(0)
        particles.renderer.setYScaleFlag(0)
        pixels_per_m_at_1m = (base.win.getYSize() / 2.0) / math.tan(math.radians(20.0))
        size_m = POINT_PX * 30.0 / pixels_per_m_at_1m
        particles.renderer.setInitialXScale(size_m / texture.getXSize())
        particles.renderer.setInitialYScale(size_m / texture.getXSize())
        particles.renderer.setColor(Vec4(1.0, 0.7, 0.3, 0.8))
    particles.emitter.setEmissionType(BaseParticleEmitter.ETRADIATE)
    particles.emitter.setAmplitude(1.0)
    particles.emitter.setRadius(4.0)
    effect.addParticles(particles)
    forces = ForceGroup("lift")  # the same lift ours has
    forces.addForce(LinearVectorForce(Vec3(0.0, 0.0, 0.5)))
    effect.addForceGroup(forces)
    effect.setPos(Point3(0.0, 30.0, 0.0))
    effect.start(parent=base.render, renderParent=base.render)
    for _ in range(3):  # let the litter be born
        base.particleMgr.doParticles(dt)
        base.physicsMgr.doPhysics(dt)

    def their_frame():
        base.physicsMgr.doPhysics(dt)
        base.particleMgr.doParticles(dt)
    update_ms = _median_ms(their_frame, frames)
    draw_ms = _draw_ms(base, frames) - empty_ms
    alive = particles.getLivingParticles()
    effect.cleanup()
    base.disableParticles()
    return {"update_ms": round(update_ms, 3), "draw_ms": round(draw_ms, 3), "alive": int(alive)}


if __name__ == "__main__":  # python -m bench.particles [count] [frames]
    import json
    import sys
    arguments = [int(a) for a in sys.argv[1:3]]
    print(json.dumps(benchmark(*arguments), indent=2))
