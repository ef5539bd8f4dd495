"""Effects: particles spawned from the simulation's events, shells' tracers, range plates."""
