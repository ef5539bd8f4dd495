"""Synthesised sounds (length, not silent), the event → sound mapping (fake player), and the
player's volumes mixed into what the Panda3D player plays (fake sounds)."""

import wave
from types import SimpleNamespace

import numpy as np
import pytest

from assets.make_sounds import LENGTHS_S, RATE_HZ, SOUNDS_DIR, make_all
import game.audio.sounds as sound_module
from game.audio.sounds import (CLATTER_LINKS_HZ, LOOPS, SOUND_NAMES, GameAudio,
                               PandaSoundPlayer, Volumes, engine_note, sound_for_event,
                               track_clatter, tyre_noise)
from game.sim.events import Damage, Destroyed, Hit, ShiftRefused, Shot


def _read(path):
    with wave.open(str(path), "rb") as stream:
        assert stream.getnchannels() == 1 and stream.getsampwidth() == 2
        assert stream.getframerate() == RATE_HZ
        return np.frombuffer(stream.readframes(stream.getnframes()), dtype="<i2")


@pytest.mark.parametrize("folder", ["committed", "fresh"])
def test_sounds_have_their_length_and_are_not_silent(tmp_path, folder):
    paths = ({name: SOUNDS_DIR / f"{name}.wav" for name in LENGTHS_S} if folder == "committed"
             else make_all(tmp_path))
    assert set(paths) == set(SOUND_NAMES)
    total = 0
    for name, path in paths.items():
        samples = _read(path)
        assert len(samples) / RATE_HZ == pytest.approx(LENGTHS_S[name], abs=1 / RATE_HZ)
        rms = float(np.sqrt(np.mean(samples.astype(float) ** 2)))
        assert rms > 300.0, name  # well above silence (int16 full scale 32767)
        total += path.stat().st_size
    assert total < 350_000  # a dozen short sounds: the repository and the builds stay small


@pytest.mark.parametrize("name", LOOPS)
def test_loops_join_without_a_click(name):
    samples = _read(SOUNDS_DIR / f"{name}.wav").astype(float)
    wrap = abs(samples[0] - samples[-1])
    assert wrap <= np.percentile(np.abs(np.diff(samples)), 99)  # no bigger than the sound's own


def test_the_clatter_clicks_once_a_link():
    # The loop is CLATTER_LINKS_HZ slots a second, each loud at its start (the strike)
    # and quieter after it.
    samples = np.abs(_read(SOUNDS_DIR / "track_clatter.wav").astype(float))
    per_click = int(RATE_HZ / CLATTER_LINKS_HZ)
    slots = samples[:len(samples) // per_click * per_click].reshape(-1, per_click)
    assert len(slots) == round(CLATTER_LINKS_HZ * LENGTHS_S["track_clatter"])
    strike = slots[:, :per_click // 8].mean(axis=1)
    after = slots[:, per_click // 2:].mean(axis=1)
    assert np.all(strike > 2.0 * after)


def hit(target: str, point) -> Hit:
    return Hit("player", target, tuple(point), (0.0, 0.0, 1.0), 1200.0)


def test_events_pick_their_sounds():
    metal = {"enemy-1", "plate-2"}.__contains__
    assert sound_for_event(Shot("player")) == "gun_fire"
    assert sound_for_event(hit("enemy-1", (0, 0, 0)), metal) == "impact_metal"
    assert sound_for_event(hit("ground", (0, 0, 0)), metal) == "impact_sand"
    assert sound_for_event(Destroyed("enemy-1", "player")) == "explosion"
    assert sound_for_event(ShiftRefused("player", "R", "moving"),
                           player_name="player") == "gear_grind"
    assert sound_for_event(ShiftRefused("bot", "R", "moving"), player_name="player") is None
    assert sound_for_event(ShiftRefused("player", "2", "over_rev"),
                           player_name="player") is None
    assert sound_for_event(Damage("player", "bot", 10.0, 90.0)) is None


@pytest.mark.parametrize("result, sound", [("penetrated", "penetration"),
                                           ("overmatch", "penetration"),
                                           ("ricochet", "ricochet"),
                                           ("blocked", "impact_metal")])
def test_a_hit_on_armour_sounds_its_result(result, sound):
    struck = Hit("player", "enemy-1", (0.0, 0.0, 0.0), (0.0, 0.0, 1.0), 700.0, "ap", "glacis",
                 90.0, 60.0, 157.0, 150.0, result)
    assert sound_for_event(struck) == sound
    assert len({"penetration", "ricochet", "impact_metal"}) == 3  # three sounds, told apart


class FakePlayer:
    def __init__(self):
        self.played, self.loops = [], {}

    def play(self, name, position):
        self.played.append((name, position))

    def loop(self, name, rate, volume, position):
        self.loops[name] = (rate, volume, position)

    def destroy(self):
        pass


def _vehicle(name, position, rpm=800.0):
    return SimpleNamespace(name=name, rpm=rpm, spec=SimpleNamespace(tracked=True),
                           track_speeds_mps=lambda: (0.0, 0.0),
                           current=SimpleNamespace(position_ws=np.array(position, float)))


def test_game_audio_places_event_sounds_and_follows_rpm(config):
    player = _vehicle("player", (1.0, 2.0, 3.0), rpm=1600.0)
    enemy = _vehicle("enemy", (50.0, 0.0, 0.0))
    simulation = SimpleNamespace(vehicles=[player, enemy], player=player, plates=())
    fake = FakePlayer()
    audio = GameAudio(simulation, fake, config.view.audio)
    audio.on_events([Shot("enemy"), hit("enemy", (49.0, 0.0, 1.0)),
                     hit("terrain", (10.0, 0.0, 0.0)), Destroyed("enemy", "player"),
                     ShiftRefused("player", "R", "moving")])
    assert fake.played == [("gun_fire", (50.0, 0.0, 0.0)),
                           ("impact_metal", (49.0, 0.0, 1.0)),
                           ("impact_sand", (10.0, 0.0, 0.0)),
                           ("explosion", (50.0, 0.0, 0.0)),
                           ("gear_grind", (1.0, 2.0, 3.0))]
    audio.update(throttle=1.0)
    rate, volume, position = fake.loops["engine_loop"]
    assert rate == pytest.approx(2.0) and position == (1.0, 2.0, 3.0)
    assert volume == pytest.approx(config.view.audio.full_throttle_volume)


def test_engine_note_rises_with_rpm_and_throttle_and_stays_in_bounds(config):
    spec = config.view.audio
    low, quiet = engine_note(spec, 800.0, 0.0)
    high, loud = engine_note(spec, 2400.0, 1.0)
    assert high > low and loud > quiet
    assert engine_note(spec, 0.0, 0.0)[0] == spec.min_play_rate
    assert engine_note(spec, 1e6, 0.0)[0] == spec.max_play_rate


def test_track_clatter_follows_track_speed(config):
    spec = config.view.audio
    assert track_clatter(spec, 0.0)[1] == 0.0  # standing still: silent
    slow, quiet = track_clatter(spec, 1.0)
    fast, loud = track_clatter(spec, 5.0)
    assert fast == pytest.approx(5.0 * slow) and loud > quiet > 0.0
    # One click a track link: at the recorded rate when the track runs a link per click.
    rate, _ = track_clatter(spec, spec.track_link_pitch_m * CLATTER_LINKS_HZ)
    assert rate == pytest.approx(1.0)
    assert track_clatter(spec, -5.0) == track_clatter(spec, 5.0)
    assert track_clatter(spec, 1e3)[0] == spec.clatter_play_rates[1]


def test_tyres_roar_with_speed_and_squeal_when_sliding(config):
    spec = config.view.audio
    still = tyre_noise(spec, 0.0, 0.0)
    assert still == (spec.tyre_roll_play_rates[0], 0.0, 0.0)
    rate, volume, squeal = tyre_noise(spec, 20.0, 0.0)
    assert rate > still[0] and volume > 0.0 and squeal == 0.0
    assert tyre_noise(spec, 20.0, 0.5)[2] < tyre_noise(spec, 20.0, 1.0)[2]
    assert tyre_noise(spec, 200.0, 1.0)[2] == pytest.approx(spec.skid_volume)


def test_a_tank_clatters_and_a_car_roars_from_the_players_vehicle(config):
    tank = _vehicle("player", (0.0, 0.0, 0.0))
    tank.track_speeds_mps = lambda: (4.0, 6.0)
    simulation = SimpleNamespace(vehicles=[tank], player=tank, plates=())
    fake = FakePlayer()
    audio = GameAudio(simulation, fake, config.view.audio)
    audio.update(throttle=0.5)
    assert fake.loops["track_clatter"][:2] == track_clatter(config.view.audio, 5.0)
    assert fake.loops["tyre_roll"][1] == 0.0 and fake.loops["tyre_skid"][1] == 0.0
    sliding = np.array([True, True, False, False])
    car = SimpleNamespace(
        name="player-car", rpm=2000.0, spec=SimpleNamespace(tracked=False),
        anchors=lambda: SimpleNamespace(sliding=sliding, on_ground=np.ones(4, bool)),
        current=SimpleNamespace(position_ws=np.zeros(3), forward_speed_mps=lambda: 15.0))
    simulation.player = car
    audio.update(throttle=1.0)
    rate, volume, squeal = tyre_noise(config.view.audio, 15.0, 0.5)
    assert fake.loops["tyre_roll"][:2] == (rate, volume) and fake.loops["tyre_skid"][1] == squeal
    assert fake.loops["track_clatter"][1] == 0.0


def test_the_game_loads_its_sounds_from_the_synthesised_folder():
    assert sound_module.SOUNDS_DIR == SOUNDS_DIR
    assert all((sound_module.SOUNDS_DIR / f"{name}.wav").is_file() for name in SOUND_NAMES)


def test_volumes_mix_master_with_effects_or_engine():
    volumes = Volumes(master=0.5, effects=0.8, engine=0.4)
    assert volumes.of("gun_fire") == pytest.approx(0.4)
    assert volumes.of("ui_click") == pytest.approx(0.4)
    for loop in LOOPS:
        assert volumes.of(loop) == pytest.approx(0.2)
    assert Volumes().of("explosion") == 1.0 and Volumes().of("engine_loop") == 1.0


class FakeSound:
    def __init__(self):
        self.volume, self.plays = None, 0

    def setVolume(self, volume):
        self.volume = volume

    def setLoop(self, loop):
        pass

    def setPlayRate(self, rate):
        pass

    def play(self):
        self.plays += 1

    def stop(self):
        pass

    def set3dAttributes(self, *args):
        pass


class FakeAudioManager:
    def getSound(self, name, positional):
        return FakeSound()

    def audio3dSetDropOffFactor(self, factor):
        pass


@pytest.fixture
def panda_player(config):
    from panda3d.core import NodePath
    base = SimpleNamespace(sfxManagerList=[FakeAudioManager()], camera=NodePath("camera"),
                           render=NodePath("render"),
                           loader=SimpleNamespace(loadSfx=lambda filename: FakeSound()))
    player = PandaSoundPlayer(base, config.view.audio)
    yield player
    player.destroy()


def test_the_panda_player_plays_one_shots_at_master_times_effects(panda_player):
    panda_player.set_volumes(master=0.5, effects=0.6, engine=0.9)
    panda_player.play("gun_fire", (1.0, 2.0, 3.0))
    panda_player.play("ui_click", None)
    assert panda_player.sounds["gun_fire"].volume == pytest.approx(0.3)
    assert panda_player.sounds["ui_click"].volume == pytest.approx(0.3)
    assert panda_player.sounds["gun_fire"].plays == 1


def test_the_panda_players_loops_follow_master_times_engine_at_once(panda_player):
    panda_player.set_volumes(master=0.5, effects=0.1, engine=0.8)
    panda_player.loop("engine_loop", 1.2, 0.75, (0.0, 0.0, 0.0))
    panda_player.loop("track_clatter", 1.0, 0.5, (0.0, 0.0, 0.0))
    assert panda_player.sounds["engine_loop"].volume == pytest.approx(0.3)
    assert panda_player.sounds["track_clatter"].volume == pytest.approx(0.2)
    # Changed in the pause menu, with the game (and its loop() calls) stopped: heard at once.
    panda_player.set_volumes(master=1.0, effects=0.1, engine=0.0)
    assert panda_player.sounds["engine_loop"].volume == 0.0
    panda_player.set_volumes(master=0.4, effects=0.1, engine=1.0)
    assert panda_player.sounds["engine_loop"].volume == pytest.approx(0.3)
    assert panda_player.sounds["gun_fire"].volume is None  # one-shots: when played


def test_repeated_one_shots_move_one_node_per_sound_and_make_no_more(panda_player):
    panda_player.play("gun_fire", (1.0, 2.0, 3.0))
    nodes = panda_player.root.getChildren().getNumPaths()
    for shot in range(40):
        panda_player.play("gun_fire", (float(shot), 0.0, 0.0))
    assert panda_player.root.getChildren().getNumPaths() == nodes
    assert tuple(panda_player.root.find("gun_fire").getPos()) == pytest.approx((39.0, 0.0, 0.0))
    assert panda_player.sounds["gun_fire"].plays == 41
