"""The player chooses the shell: a choice takes effect at the next reload, a shot takes a
round of the loaded shell, an empty shell is passed by, a gun with nothing left does not
fire; the keys, the pad, the inputs file, the wire and the HUD carry the choice."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from common.errors import UserError
from game.input.gamepad import GamepadMapper
from game.input.keyboard import KeyboardMapper
from game.sim.controls import Controls, ScriptedInputs
from game.sim.events import Shot
from game.sim.net.protocol import Reader, pack_controls, quantised, read_controls
from game.sim.net.snapshots import OwnState, _read_own
from game.sim.simulation import Simulation
from game.view.hud.hud_state import HudState, read_hud_state
from physics.model.ammunition import AmmunitionLoad, AmmunitionState
from physics.model.terrain import MapChoice

AP, APCR, HE = 0, 1, 2
"""The shipped tank's ammunition slots (config/tanks/medium.toml [[gun.ammunition]])."""
RELOAD_S = 0.5


def loads(*rounds: int) -> tuple[AmmunitionLoad, ...]:
    return tuple(AmmunitionLoad(name, count) for name, count in zip(("ap", "apcr", "he"),
                                                                      rounds))


def armed(config, rounds: tuple[int, ...] | None = None):
    """``config`` with a quick gun, carrying ``rounds`` of AP, APCR and HE (None: as
    shipped)."""
    gun = config.tank.gun
    ammunition = gun.ammunition if rounds is None else tuple(
        dataclasses.replace(load, rounds=count) for load, count in zip(gun.ammunition, rounds))
    gun = dataclasses.replace(gun, reload_s=RELOAD_S, ammunition=ammunition)
    return config.with_tank(dataclasses.replace(config.tank, gun=gun))


@pytest.fixture
def make_simulation(config):
    made = []

    def make(rounds=None) -> Simulation:
        made.append(Simulation(armed(config, rounds).world, MapChoice.parse("flat"), seed=1))
        return made[-1]
    yield make
    for simulation in made:
        simulation.destroy()


def shots_fired(simulation, controls: Controls, seconds: float) -> list[str | None]:
    """The shells the player fired over ``seconds`` of ``controls`` (the gun raised, so
    its shells fly clear)."""
    fired = []
    for _ in range(round(seconds / simulation.step_s)):
        fired += [event.shell for event in simulation.step(controls)
                  if isinstance(event, Shot)]
    return fired


FIRE = Controls(brake=1.0, fire=True, elevation=1.0)


# ----- the gun's ammunition ------------------------------------------------------------------


def test_a_choice_takes_effect_at_the_next_reload():
    ammunition = AmmunitionState.carried(loads(40, 10, 20))
    assert (ammunition.loaded, ammunition.selected) == (AP, AP)
    ammunition.choose(APCR)
    assert ammunition.loaded == AP  # the shell in the breech stays there
    ammunition.fired()
    assert (ammunition.loaded, ammunition.rounds) == (APCR, [39, 10, 20])
    ammunition.choose(AP)  # the loaded shell's key chooses it back: the one after is AP
    ammunition.fired()
    assert (ammunition.loaded, ammunition.rounds) == (AP, [39, 9, 20])


def test_an_empty_shell_is_passed_by_and_nothing_left_cannot_fire():
    ammunition = AmmunitionState.carried(loads(0, 1, 1))
    assert ammunition.loaded == APCR  # the first with rounds
    ammunition.choose(AP)
    ammunition.fired()
    assert ammunition.loaded == HE  # AP is empty: the next after it with rounds
    ammunition.fired()
    assert ammunition.loaded is None and not ammunition.can_fire
    ammunition.fired()
    assert ammunition.rounds == [0, 0, 0]


def test_the_next_shell_skips_empty_ones_and_goes_round():
    ammunition = AmmunitionState.carried(loads(3, 0, 2))
    ammunition.choose_next()
    assert ammunition.selected == HE
    ammunition.choose_next()
    assert ammunition.selected == AP
    ammunition.choose(7)  # a slot the gun does not have
    assert ammunition.selected == AP


def test_a_new_round_fills_the_gun_again():
    ammunition = AmmunitionState.carried(loads(1, 1, 1))
    ammunition.choose(HE)
    ammunition.fired()
    ammunition.restock(loads(5, 6, 7))
    assert (ammunition.rounds, ammunition.loaded, ammunition.selected) == ([5, 6, 7], AP, AP)


# ----- in the game ----------------------------------------------------------------------------


def test_choosing_apcr_fires_it_after_the_next_reload_and_the_rounds_count_down(
        make_simulation):
    simulation = make_simulation()
    ammunition = simulation.player.aim.ammunition
    shots_fired(simulation, Controls(brake=1.0, shell=APCR), 0.1)
    assert (ammunition.loaded, ammunition.selected) == (AP, APCR)
    fired = shots_fired(simulation, FIRE, 3 * RELOAD_S + 0.5)
    assert fired[:3] == ["ap", "apcr", "apcr"]
    assert ammunition.rounds == [39, 10 - (len(fired) - 1), 20]


def test_an_empty_shell_is_skipped_and_an_empty_gun_does_not_fire(make_simulation):
    simulation = make_simulation(rounds=(1, 0, 2))
    shots_fired(simulation, Controls(brake=1.0, shell=APCR), 0.1)  # chosen, but none left
    assert shots_fired(simulation, FIRE, 6 * RELOAD_S) == ["ap", "he", "he"]
    assert simulation.player.aim.ammunition.loaded is None


def test_holding_the_next_shell_button_moves_the_choice_once(make_simulation):
    simulation = make_simulation()
    ammunition = simulation.player.aim.ammunition
    shots_fired(simulation, Controls(brake=1.0, next_shell=True), 1.0)
    assert ammunition.selected == APCR
    shots_fired(simulation, Controls(brake=1.0), 0.1)
    shots_fired(simulation, Controls(brake=1.0, next_shell=True), 0.1)
    assert ammunition.selected == HE


def test_the_hud_shows_each_shell_the_loaded_one_and_the_choice(make_simulation):
    simulation = make_simulation()
    shots_fired(simulation, Controls(brake=1.0, shell=HE), 0.1)
    state = read_hud_state(simulation)
    assert state.ammunition == (("ap", 40), ("apcr", 10), ("he", 20))
    assert state.ammunition_line == "[AP 40]  APCR 10  > HE 20"
    shots_fired(simulation, FIRE, RELOAD_S + 0.1)
    assert read_hud_state(simulation).ammunition_line == "AP 39  APCR 10  [HE 20]"
    assert HudState().ammunition_line == ""  # no gun, no line


def test_the_hud_names_another_classs_shells_by_their_kind(config):
    """The light tank's gun fires the M32's shells (m32_ap, ...): the HUD says AP, APCR,
    HE and counts the light tank's own rounds."""
    simulation = Simulation(config.world, MapChoice("flat"), 1, player_tank="light")
    rounds = [load.rounds for load in config.tanks["light"].gun.ammunition]
    assert read_hud_state(simulation).ammunition_line == (
        f"[AP {rounds[0]}]  APCR {rounds[1]}  HE {rounds[2]}")
    simulation.destroy()


# ----- keys, pad, inputs file, wire -------------------------------------------------------------


def test_keys_6_7_8_choose_a_shell_even_pressed_between_steps(keys):
    mapper = KeyboardMapper(keys)
    assert (keys.shell_1, keys.shell_2, keys.shell_3) == (("6",), ("7",), ("8",))
    assert mapper.controls({"7"}).shell == APCR
    mapper.press("8")  # down and up again before the next step
    assert mapper.controls(set()).shell == HE
    assert mapper.controls(set()).shell is None
    mapper.press("9")
    assert mapper.controls(set()).next_shell and not mapper.controls(set()).next_shell


def test_the_pads_left_stick_click_is_the_next_shell(pads):
    mapper = GamepadMapper(pads)
    assert pads.next_shell == ("lstick",)
    assert mapper.update({}, {"lstick"}).next_shell
    assert not mapper.update({}, set()).next_shell


def test_the_inputs_file_chooses_a_slot_and_refuses_a_bad_one():
    path = Path("script.json")
    script = ScriptedInputs(ScriptedInputs.parse(
        {"events": [{"t": 0.0, "shell": 2}, {"t": 1.0, "shell": None, "next_shell": True}]},
        path))
    assert script.controls_at(0.0) == Controls(shell=HE)
    assert script.controls_at(1.0) == Controls(next_shell=True)
    for bad in (8, -1, 1.0, True, "apcr"):
        with pytest.raises(UserError) as caught:
            ScriptedInputs.parse({"events": [{"t": 0.0, "shell": bad}]}, path)
        message = str(caught.value)
        assert "\n" not in message and "events[0].shell" in message and str(path) in message


def test_the_choice_travels_to_the_server_and_the_ammunition_back():
    for controls in (Controls(shell=APCR), Controls(next_shell=True, fire=True), Controls()):
        assert quantised(controls) == controls
    packed = bytearray(pack_controls(Controls(shell=HE)))
    packed[-1] = 9  # slot 8: no gun has it
    with pytest.raises(ValueError):
        read_controls(Reader(bytes(packed)))
    own = OwnState((0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0),
                   1.5, 2, (39, 10, 0), APCR, HE)
    assert _read_own(Reader(own.encode())) == own
