"""The window's state machine: which screen the player is on, and every way to leave it,
in one table.

The menus and the app itself ask for changes with requests
(:mod:`game.menus.requests`); :func:`next_state` looks each up in :data:`TRANSITIONS`
and gives the state it leads to, or None where the request means nothing in that state
(Resume on the title menu, Pause while already paused). The app
(:class:`game.app.TankBattleApp`) is the only writer of its state: it takes what this
table allows and carries it out.

States, and what the player sees in each:

- TITLE: the title menu's main page (and the Settings and Controls pages it opens);
- MATCH_SETUP: its Play, Host game or Join game page, a game being chosen;
- JOINING: a server being joined (or started, to host), the window still drawing;
- PLAYING: the game, no menu over it;
- PAUSED: the pause menu over the game (and its Settings and Controls pages);
- HELP: the help card over the game;
- MATCH_END: the end-of-match screen;
- LEAVING: the loop stops at the end of this frame.
"""

from __future__ import annotations

from enum import Enum

from game.menus.requests import (ChangeSettings, DismissHelp, Joined, JoinFailed,
                                 JoinStarted, MatchEnded, NextMatch, OpenMain, OpenSetup,
                                 Pause, Quit, Rebind, Request, Restart, Resume, ServerLost,
                                 ShowHelp, StartMatch, ToTitle)


class AppState(Enum):
    TITLE = "title"
    MATCH_SETUP = "match setup"
    JOINING = "joining"
    PLAYING = "playing"
    PAUSED = "paused"
    HELP = "help"
    MATCH_END = "match end"
    LEAVING = "leaving"


TITLE, MATCH_SETUP, JOINING, PLAYING = (AppState.TITLE, AppState.MATCH_SETUP,
                                        AppState.JOINING, AppState.PLAYING)
PAUSED, HELP, MATCH_END, LEAVING = (AppState.PAUSED, AppState.HELP, AppState.MATCH_END,
                                    AppState.LEAVING)

TITLE_STATES = frozenset({TITLE, MATCH_SETUP, JOINING})
"""The title menu is open (over the player's vehicle standing alone on the map)."""

_ANYWHERE: dict[type, AppState | None] = {Quit: LEAVING, ChangeSettings: None, Rebind: None}
"""Requests every state but LEAVING takes; None: the state stays as it is."""

TRANSITIONS: dict[AppState, dict[type, AppState | None]] = {
    TITLE: {OpenSetup: MATCH_SETUP, OpenMain: None, StartMatch: PLAYING},
    MATCH_SETUP: {OpenSetup: None, OpenMain: TITLE, StartMatch: PLAYING,
                  JoinStarted: JOINING},
    # The pages may be looked through while a join goes on; a local match waits for it
    # to end, so that a join finishing late never pulls the player out of a match.
    JOINING: {OpenSetup: None, OpenMain: None, JoinFailed: MATCH_SETUP, Joined: PLAYING},
    PLAYING: {Pause: PAUSED, ShowHelp: HELP, MatchEnded: MATCH_END, NextMatch: None,
              Restart: None, ServerLost: MATCH_SETUP},
    # Online, the server's game goes on under the pause menu: its match may end (the end
    # screen opens beneath) and the next begin.
    PAUSED: {Resume: PLAYING, Restart: PLAYING, ToTitle: TITLE, DismissHelp: None,
             MatchEnded: None, NextMatch: None, ServerLost: MATCH_SETUP},
    HELP: {DismissHelp: PLAYING, Resume: PLAYING, Pause: PAUSED, MatchEnded: MATCH_END,
           NextMatch: None, ServerLost: MATCH_SETUP},
    # Only its own buttons leave a finished match (Start does not resume it, nor open
    # the pause menu over it); online, the server's next match closes the screen too.
    MATCH_END: {Restart: PLAYING, ToTitle: TITLE, NextMatch: PLAYING, DismissHelp: None,
                ServerLost: MATCH_SETUP},
    LEAVING: {},
}
"""For each state, the requests it takes and the state each leads to (None: it stays).
Any request not listed is refused. Quit, ChangeSettings and Rebind are taken everywhere
but LEAVING (:data:`_ANYWHERE`)."""


def next_state(state: AppState, request: Request) -> AppState | None:
    """The state ``request`` leads to from ``state`` (maybe ``state`` itself), or None when
    that state refuses it."""
    moves = TRANSITIONS[state]
    if state is not LEAVING:
        moves = {**_ANYWHERE, **moves}
    kind = type(request)
    if kind not in moves:
        return None
    return moves[kind] or state


def game_waits(state: AppState, online: bool) -> bool:
    """Whether the player's game waits in ``state``: a local game's fixed-step clock
    stands still, and an online game (whose server does not wait) goes on with the
    player's hands off the controls. Online, the help card and the end screen leave the
    player driving."""
    if state is PLAYING:
        return False
    return not (online and state in (HELP, MATCH_END))
