"""Tank Battle: the game around the physics (simulation, views, input, audio, the command
line). ``__version__`` is the one statement of the game's version: pyproject reads it."""

__version__ = "0.1.0"
