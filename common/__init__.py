"""What every layer may use and that belongs to none: user errors, resource look-up, the
player's settings, logging, the spec helpers and the compiled-loop decorator. It imports
nothing of the game (``game``, ``physics``)."""
