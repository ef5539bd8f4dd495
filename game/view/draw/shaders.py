"""Our own GLSL 330 shaders (setShaderAuto does not work on llvmpipe here).

- ``lit``: sun (with shadow map) + hemisphere sky light + distance fog that fades
  into the sky's horizon colour. Variants by ``#define``: ``SAND`` adds world-space
  sand detail (two tiled scales blended by a large-scale mask, plus normal detail),
  ``TEXTURED`` multiplies by texture 0 (the tracks' links), ``WHEELS`` places and spins a
  tank's wheels (below).
- ``sky``: the gradient dome, horizon colour at the horizon, sky colour at the zenith,
  a warm glow around the sun.
- ``depth``: the sun's shadow pass; writes depth only (``WHEELS``: the same variant).

``WHEELS``: one mesh holds all of a rig's wheels, each built about its own centre, each
vertex naming its wheel in a ``wheel`` column; the ``wheel_pose`` array gives each wheel's
centre in the rig's frame (xyz) and its spin about the X axis (w, radians, as a node's
``setP``), so a frame poses every wheel by rewriting that array in place (no node
transforms to make).

The shared scene inputs (sun, sky, fog, shadow map) are set once on the scene's root by
:class:`game.view.ground.desert_scene.DesertScene`; every lit node inherits them.
"""

from __future__ import annotations

from functools import lru_cache

from panda3d.core import Shader

WHEEL_SLOTS = 40
"""The ``wheel_pose`` array's length: the most wheels a ``WHEELS`` mesh may hold."""
WHEELS_SHADOW_TAG_KEY = "shadow-pass"
WHEELS_SHADOW_TAG_VALUE = "wheels"
"""A node tagged so draws in the shadow pass with the ``WHEELS`` depth shader."""

_WHEEL_POSE = """
#ifdef WHEELS
uniform vec4 wheel_pose[%d];     // xyz: a wheel's centre, w: its spin about X (radians)
in float wheel;                  // which wheel a vertex belongs to
vec3 spun(vec3 v, float angle) {
    float c = cos(angle);
    float s = sin(angle);
    return vec3(v.x, c * v.y - s * v.z, s * v.y + c * v.z);
}
#endif
""" % WHEEL_SLOTS

_POSED_VERTEX = """
#ifdef WHEELS
    vec4 pose = wheel_pose[int(wheel + 0.5)];
    vec4 vertex = vec4(pose.xyz + spun(p3d_Vertex.xyz, pose.w), 1.0);
#else
    vec4 vertex = p3d_Vertex;
#endif
"""

_LIT_VERTEX = _WHEEL_POSE + """
uniform mat4 p3d_ModelViewProjectionMatrix;
uniform mat4 p3d_ModelMatrix;
uniform mat4 p3d_ViewMatrixInverse;
uniform mat4 trans_model_to_clip_of_suncam;
uniform float fog_density;       // visibility = exp(-(density * distance)^2)
uniform vec3 sky_light_colour;   // light from the sky dome, on up-facing surfaces
uniform vec3 ground_light_colour;  // light bounced off the sand, on down-facing surfaces
uniform float specular_strength;
in vec4 p3d_Vertex;
in vec3 p3d_Normal;
in vec4 p3d_Color;
#ifdef TEXTURED
in vec2 p3d_MultiTexCoord0;
out vec2 v_uv;
#endif
#ifdef SAND
out vec2 v_ground;               // world x, y
#endif
out vec4 v_colour;
out vec4 v_light;                // rgb: sky and ground light, a: sun cosine (n . l)
out vec3 v_specular;
out vec4 v_shadow;
out vec4 v_haze;                 // rgb: haze colour toward this point, a: visibility

void main() {
    // Lighting is per vertex (the terrain's dune shapes come from its vertex normals); the
    // fragments add only detail, the shadow map and textures.""" + _POSED_VERTEX + """
#ifdef WHEELS
    vec3 model_normal = spun(p3d_Normal, pose.w);
#else
    vec3 model_normal = p3d_Normal;
#endif
    gl_Position = p3d_ModelViewProjectionMatrix * vertex;
    vec3 world = (p3d_ModelMatrix * vertex).xyz;
    vec3 normal = normalize(mat3(p3d_ModelMatrix) * model_normal);
    vec3 away = world - p3d_ViewMatrixInverse[3].xyz;
    float distance = length(away);
    float n_dot_l = dot(normal, sun_direction);
    v_light = vec4(mix(ground_light_colour, sky_light_colour, normal.z * 0.5 + 0.5), n_dot_l);
    v_specular = vec3(0.0);
    if (specular_strength > 0.0 && n_dot_l > 0.0) {
        vec3 halfway = normalize(sun_direction - away / max(distance, 1e-4));
        v_specular = sun_colour * specular_strength * pow(max(dot(normal, halfway), 0.0), 24.0);
    }
    v_colour = p3d_Color;
    v_shadow = trans_model_to_clip_of_suncam * vertex;
    float fog_distance = fog_density * distance;
    vec2 flat_away = away.xy / max(length(away.xy), 1e-4);
    v_haze = vec4(sky_colour(vec3(flat_away, 0.0), false), exp(-fog_distance * fog_distance));
#ifdef TEXTURED
    v_uv = p3d_MultiTexCoord0;
#endif
#ifdef SAND
    v_ground = world.xy;
#endif
}
"""

# Sky colour along a direction: shared by the sky dome and the fog, so the far
# terrain melts into the sky exactly at the horizon.
_SKY_FUNCTION = """
uniform vec3 sun_direction;      // towards the sun, world space, unit
uniform vec3 sun_colour;
uniform vec3 sky_zenith_colour;
uniform vec3 horizon_colour;
uniform vec4 sky_shape;          // x: gradient exponent, y: glow strength, z: glow exponent,
                                 // w: sun disc cosine
vec3 sky_colour(vec3 direction, bool with_disc) {
    float up = clamp(direction.z, 0.0, 1.0);
    vec3 colour = mix(horizon_colour, sky_zenith_colour, pow(up, sky_shape.x));
    float towards_sun = max(dot(direction, sun_direction), 0.0);
    colour += sun_colour * sky_shape.y * pow(towards_sun, sky_shape.z);
    if (with_disc && towards_sun > sky_shape.w) {
        colour = mix(colour, vec3(1.0, 0.97, 0.9), 0.85);
    }
    return colour;
}
"""

_LIT_FRAGMENT = """
uniform vec3 sun_direction;      // towards the sun, world space, unit
uniform vec3 sun_colour;
uniform sampler2DShadow shadow_map;
uniform vec4 shadow_params;      // x: texel size (uv), y: depth bias, z: slope bias, w: unused
#ifdef SAND
uniform sampler2D sand_detail;   // rg: normal detail, b: fine albedo, a: coarse albedo
uniform vec4 sand_scales;        // x, y: 1 / tile sizes of the two detail scales (1/m),
                                 // z: fog visibility above which the fine scale is read,
                                 // w: normal strength
uniform vec2 sand_variation;     // x: fine albedo variation, y: coarse albedo variation
in vec2 v_ground;
// The vertex colour's alpha carries a large-scale mask that blends the two scales.
#endif
#ifdef TEXTURED
uniform sampler2D p3d_Texture0;
in vec2 v_uv;
#endif
in vec4 v_colour;
in vec4 v_light;
in vec3 v_specular;
in vec4 v_shadow;
in vec4 v_haze;
out vec4 p3d_FragColor;

float sunlit(float n_dot_l) {
    vec3 coords = v_shadow.xyz / v_shadow.w * 0.5 + 0.5;
    if (any(lessThan(coords, vec3(0.0))) || any(greaterThan(coords, vec3(1.0)))) {
        return 1.0;
    }
    float bias = shadow_params.y + shadow_params.z * (1.0 - n_dot_l);
    // One tap: the depth comparison is filtered over the nearest 2 x 2 texels.
    return texture(shadow_map, vec3(coords.xy, coords.z - bias));
}

void main() {
    vec3 albedo = v_colour.rgb;
    float n_dot_l = v_light.a;
#ifdef SAND
    vec2 xy = v_ground;
    // The coarse scale is turned so its repeats never line up with the fine one's.
    vec2 turned = vec2(0.8 * xy.x - 0.6 * xy.y, 0.6 * xy.x + 0.8 * xy.y);
    vec4 detail = texture(sand_detail, turned * sand_scales.y);
    float mask = v_colour.a;
    if (v_haze.a > sand_scales.z) {
        // Near ground only: the fine scale, blended in by the large-scale mask (far away
        // it is smaller than a pixel, and one texture read fewer is much cheaper).
        vec4 fine = texture(sand_detail, xy * sand_scales.x);
        detail = mix(fine, detail, smoothstep(0.3, 0.7, mask));
    }
    vec2 bump = (detail.rg * 2.0 - 1.0) * sand_scales.w;
    n_dot_l += dot(bump, sun_direction.xy);
    albedo *= 1.0 + sand_variation.x * (detail.b - 0.5) + sand_variation.y * (mask - 0.5);
#endif
#ifdef TEXTURED
    albedo *= texture(p3d_Texture0, v_uv).rgb;
#endif
    float direct = max(n_dot_l, 0.0);
    vec3 specular = v_specular;
    if (direct > 0.0) {
        float lit = sunlit(direct);
        direct *= lit;
        specular *= lit;
    }
    vec3 colour = albedo * (v_light.rgb + sun_colour * direct) + specular;
    p3d_FragColor = vec4(mix(v_haze.rgb, colour, v_haze.a), 1.0);
}
"""

_SKY_VERTEX = """
uniform mat4 p3d_ModelViewProjectionMatrix;
in vec4 p3d_Vertex;
out vec3 v_direction;
void main() {
    // On the far plane: drawn after the scene, it fills only what nothing else covers.
    gl_Position = (p3d_ModelViewProjectionMatrix * p3d_Vertex).xyww;
    v_direction = p3d_Vertex.xyz;
}
"""

_SKY_FRAGMENT = _SKY_FUNCTION + """
in vec3 v_direction;
out vec4 p3d_FragColor;
void main() {
    p3d_FragColor = vec4(sky_colour(normalize(v_direction), true), 1.0);
}
"""

_DEPTH_VERTEX = _WHEEL_POSE + """
uniform mat4 p3d_ModelViewProjectionMatrix;
in vec4 p3d_Vertex;
void main() {""" + _POSED_VERTEX + """
    gl_Position = p3d_ModelViewProjectionMatrix * vertex;
}
"""

_DEPTH_FRAGMENT = """
out vec4 p3d_FragColor;
void main() {
    p3d_FragColor = vec4(1.0);
}
"""

_UNLIT_VERTEX = """
uniform mat4 p3d_ModelViewProjectionMatrix;
in vec4 p3d_Vertex;
in vec4 p3d_Color;
out vec4 v_colour;
void main() {
    gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;
    v_colour = p3d_Color;
}
"""

_UNLIT_FRAGMENT = """
in vec4 v_colour;
out vec4 p3d_FragColor;
void main() {
    p3d_FragColor = v_colour;
}
"""

_VERSION = "#version 330\n"


def _source(body: str, defines: tuple[str, ...]) -> str:
    return _VERSION + "".join(f"#define {name}\n" for name in defines) + body


@lru_cache(maxsize=None)
def lit_shader(*defines: str) -> Shader:
    """The lit shader; ``defines`` pick its variant (``"SAND"``, ``"TEXTURED"``,
    ``"WHEELS"``)."""
    return Shader.make(Shader.SL_GLSL, _source(_SKY_FUNCTION + _LIT_VERTEX, defines),
                       _source(_LIT_FRAGMENT, defines))


@lru_cache(maxsize=None)
def sky_shader() -> Shader:
    return Shader.make(Shader.SL_GLSL, _source(_SKY_VERTEX, ()), _source(_SKY_FRAGMENT, ()))


@lru_cache(maxsize=None)
def depth_shader(*defines: str) -> Shader:
    """The shadow pass's shader; ``defines``: ``"WHEELS"`` or none."""
    return Shader.make(Shader.SL_GLSL, _source(_DEPTH_VERTEX, defines),
                       _source(_DEPTH_FRAGMENT, defines))


@lru_cache(maxsize=None)
def unlit_colour_shader() -> Shader:
    """Vertex colours as they are, no light: tracers, debug lines."""
    return Shader.make(Shader.SL_GLSL, _source(_UNLIT_VERTEX, ()), _source(_UNLIT_FRAGMENT, ()))
