"""Drawing primitives: meshes from arrays, shaders, textures, the 2-D overlay, colours."""
