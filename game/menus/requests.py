"""What the menus ask of the app: one small value per request, handed to the app's one
``send(request)``.

Pages never write the app. A button makes a request; the app's state machine
(:mod:`game.app_states`) takes it or refuses it (Resume on the title menu means nothing),
and the app carries out what it took: a new session, a menu opened or closed, the loop
stopped. The app sends a few of these itself (the match ended, the server was lost), so
that every change of the window's state goes through the same table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from common.settings import UserSettingsSpec
from game.input.gamepad import GamepadSpec
from game.input.keyboard import KeyboardSpec
from game.sim.events import MatchEnd
from game.sim.session import GameOptions


@dataclass(frozen=True)
class OpenSetup:
    """The title menu's Play, Host game or Join game page: a game being chosen."""


@dataclass(frozen=True)
class OpenMain:
    """Back to the title menu's main page."""


@dataclass(frozen=True)
class StartMatch:
    """A local match (against bots, or the firing range) with these options."""

    options: GameOptions


@dataclass(frozen=True)
class JoinStarted:
    """Joining a server (or starting one to host, then joining it) is under way."""


@dataclass(frozen=True)
class JoinFailed:
    """The server refused, did not answer or did not start (the page says why)."""


@dataclass(frozen=True)
class Joined:
    """In: play the server's game, with match setup's ``gearbox``. ``session`` is the
    client's :class:`~game.sim.net.shown.ClientSession`."""

    session: object
    gearbox: str


@dataclass(frozen=True)
class Pause:
    """The pause menu (Esc, P, the pad's Start, a pad in use unplugged)."""


@dataclass(frozen=True)
class Resume:
    """Back to the game (the pause menu's Resume, Start again)."""


@dataclass(frozen=True)
class Restart:
    """A fresh match, the same options (the pause menu's Restart, the end screen's
    Rematch)."""


@dataclass(frozen=True)
class ShowHelp:
    """The help card over the game (F1; a new player's first match)."""


@dataclass(frozen=True)
class DismissHelp:
    """The help card's Got it (or F1 again)."""


@dataclass(frozen=True)
class MatchEnded:
    """The match ended: its screen, with the side to list first."""

    event: MatchEnd
    side: str


@dataclass(frozen=True)
class NextMatch:
    """Online: the server began the next match, which closes the end screen."""


@dataclass(frozen=True)
class ToTitle:
    """The title menu (the pause menu's Main menu, the end screen's Menu): the game that
    ran ends, a hosted server stops."""


@dataclass(frozen=True)
class ServerLost:
    """The server ended our online game: the title menu's Join page says why."""

    reason: str


@dataclass(frozen=True)
class Quit:
    """Leave the game at the end of this frame."""


@dataclass(frozen=True)
class ChangeSettings:
    """A setting changed on the Settings page: use it now."""

    settings: UserSettingsSpec


@dataclass(frozen=True)
class Rebind:
    """A key or pad control rebound on the Controls page: use it now."""

    keyboard: KeyboardSpec
    gamepad: GamepadSpec


Request = (OpenSetup | OpenMain | StartMatch | JoinStarted | JoinFailed | Joined | Pause
           | Resume | Restart | ShowHelp | DismissHelp | MatchEnded | NextMatch | ToTitle
           | ServerLost | Quit | ChangeSettings | Rebind)

Send = Callable[[Request], None]
"""The app's one way in for the menus."""
