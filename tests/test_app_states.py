"""The window's state machine (game/app_states.py), tested as a table: every state with
every request, and the state it leads to (or its refusal). The app that carries the
requests out is tested through its menus in tests/test_title_app.py and
tests/test_rematch.py."""

from __future__ import annotations

import typing

import pytest

from game.app_states import (HELP, JOINING, LEAVING, MATCH_END, MATCH_SETUP, PAUSED, PLAYING,
                             TITLE, TITLE_STATES, AppState, game_waits, next_state)
from game.menus.requests import (ChangeSettings, DismissHelp, Joined, JoinFailed, JoinStarted,
                                 MatchEnded, NextMatch, OpenMain, OpenSetup, Pause, Quit,
                                 Rebind, Request, Restart, Resume, ServerLost, ShowHelp,
                                 StartMatch, ToTitle)
from game.sim.events import MatchEnd
from game.sim.session import GameOptions

REQUESTS = {
    "OpenSetup": OpenSetup(), "OpenMain": OpenMain(), "StartMatch": StartMatch(GameOptions()),
    "JoinStarted": JoinStarted(), "JoinFailed": JoinFailed(),
    "Joined": Joined("session", "automatic"), "Pause": Pause(), "Resume": Resume(),
    "Restart": Restart(), "ShowHelp": ShowHelp(), "DismissHelp": DismissHelp(),
    "MatchEnded": MatchEnded(MatchEnd(5, "player", {"player": 3, "bots": 2}, {}), "player"),
    "NextMatch": NextMatch(), "ToTitle": ToTitle(), "ServerLost": ServerLost("gone"),
    "Quit": Quit(), "ChangeSettings": ChangeSettings(None), "Rebind": Rebind(None, None),
}

# Each state's row: the requests it takes and where each leads ("=": it stays). Every
# request not in a row is refused there.
TAKEN = {
    TITLE: {"OpenSetup": MATCH_SETUP, "OpenMain": "=", "StartMatch": PLAYING},
    MATCH_SETUP: {"OpenSetup": "=", "OpenMain": TITLE, "StartMatch": PLAYING,
                  "JoinStarted": JOINING},
    JOINING: {"OpenSetup": "=", "OpenMain": "=", "JoinFailed": MATCH_SETUP, "Joined": PLAYING},
    PLAYING: {"Pause": PAUSED, "ShowHelp": HELP, "MatchEnded": MATCH_END, "NextMatch": "=",
              "Restart": "=", "ServerLost": MATCH_SETUP},
    PAUSED: {"Resume": PLAYING, "Restart": PLAYING, "ToTitle": TITLE, "DismissHelp": "=",
             "MatchEnded": "=", "NextMatch": "=", "ServerLost": MATCH_SETUP},
    HELP: {"DismissHelp": PLAYING, "Resume": PLAYING, "Pause": PAUSED, "MatchEnded": MATCH_END,
           "NextMatch": "=", "ServerLost": MATCH_SETUP},
    MATCH_END: {"Restart": PLAYING, "ToTitle": TITLE, "NextMatch": PLAYING, "DismissHelp": "=",
                "ServerLost": MATCH_SETUP},
    LEAVING: {},
}
EVERYWHERE = {"Quit": LEAVING, "ChangeSettings": "=", "Rebind": "="}
"""Taken in every state but LEAVING."""


def expected(state: AppState, name: str) -> AppState | None:
    row = TAKEN[state] if state is LEAVING else {**EVERYWHERE, **TAKEN[state]}
    if name not in row:
        return None
    return state if row[name] == "=" else row[name]


@pytest.mark.parametrize("state", list(AppState), ids=lambda state: state.name)
@pytest.mark.parametrize("name", list(REQUESTS))
def test_each_state_takes_or_refuses_each_request(state, name):
    assert next_state(state, REQUESTS[name]) == expected(state, name)


def test_the_table_covers_every_state_and_request():
    assert set(TAKEN) == set(AppState)
    assert {kind.__name__ for kind in typing.get_args(Request)} == set(REQUESTS)
    assert all(type(request).__name__ == name for name, request in REQUESTS.items())


def _reachable(start: AppState) -> set[AppState]:
    seen, frontier = {start}, [start]
    while frontier:
        state = frontier.pop()
        for request in REQUESTS.values():
            after = next_state(state, request)
            if after is not None and after not in seen:
                seen.add(after)
                frontier.append(after)
    return seen


@pytest.mark.parametrize("state", list(AppState), ids=lambda state: state.name)
def test_from_every_state_the_player_can_leave_and_but_leaving_play(state):
    reachable = _reachable(state)
    assert LEAVING in reachable
    assert (PLAYING in reachable) is (state is not LEAVING)


def test_every_state_is_reached_from_the_title_menu():
    assert _reachable(TITLE) == set(AppState)


def test_a_join_finishing_late_never_pulls_the_player_out_of_a_local_match():
    """While joining, Play is refused: the join ends (in, or refused) first."""
    assert next_state(JOINING, REQUESTS["StartMatch"]) is None
    assert next_state(PLAYING, REQUESTS["Joined"]) is None


def test_nothing_but_its_own_buttons_leaves_a_finished_match():
    assert next_state(MATCH_END, Resume()) is None and next_state(MATCH_END, Pause()) is None
    assert next_state(MATCH_END, Restart()) is PLAYING
    assert next_state(MATCH_END, ToTitle()) is TITLE


@pytest.mark.parametrize("state, online, waits", [
    (PLAYING, False, False), (PLAYING, True, False),
    (PAUSED, False, True), (PAUSED, True, True),
    (HELP, False, True), (HELP, True, False),
    (MATCH_END, False, True), (MATCH_END, True, False),
    (TITLE, False, True), (MATCH_SETUP, False, True), (JOINING, False, True),
    (LEAVING, False, True)])
def test_a_local_game_waits_under_every_menu_an_online_one_under_the_pause_menu(
        state, online, waits):
    assert game_waits(state, online) is waits


def test_the_title_states_are_the_title_menus_pages():
    assert TITLE_STATES == {TITLE, MATCH_SETUP, JOINING}
