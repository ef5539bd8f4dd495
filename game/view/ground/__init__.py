"""The ground and sky: the desert scene, its sand and rocks, the sun's shadows, the zone."""
