"""Synthesised sounds (length, not silent) and the event → sound mapping (fake player)."""

import wave
from types import SimpleNamespace

import numpy as np
import pytest

from assets.make_sounds import LENGTHS_S, RATE_HZ, SOUNDS_DIR, make_all
from game.audio import SOUND_NAMES, GameAudio, engine_note, sound_for_event


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
    assert total < 300_000


def test_the_engine_loop_loops_without_a_click():
    samples = _read(SOUNDS_DIR / "engine_loop.wav").astype(float)
    step = abs(samples[0] - samples[-1])
    typical = np.median(np.abs(np.diff(samples)))
    assert step < 20 * typical + 500


def test_events_pick_their_sounds():
    metal = {"enemy-1", "plate-2"}.__contains__
    assert sound_for_event({"type": "shot", "vehicle": "player"}) == "gun_fire"
    assert sound_for_event({"type": "hit", "target": "enemy-1"}, metal) == "impact_metal"
    assert sound_for_event({"type": "hit", "target": "ground"}, metal) == "impact_sand"
    assert sound_for_event({"type": "destroyed", "vehicle": "enemy-1"}) == "explosion"
    assert sound_for_event({"type": "shift_refused", "vehicle": "player", "reason": "moving"},
                           player_name="player") == "gear_grind"
    assert sound_for_event({"type": "shift_refused", "vehicle": "bot", "reason": "moving"},
                           player_name="player") is None
    assert sound_for_event({"type": "shift_refused", "vehicle": "player",
                            "reason": "over_rev"}, player_name="player") is None
    assert sound_for_event({"type": "damage"}) is None


class FakePlayer:
    def __init__(self):
        self.played, self.engines = [], []

    def play(self, name, position):
        self.played.append((name, position))

    def engine(self, rate, volume, position):
        self.engines.append((rate, volume, position))

    def destroy(self):
        pass


def _vehicle(name, position, rpm=800.0):
    return SimpleNamespace(name=name, rpm=rpm,
                           current=SimpleNamespace(position_ws=np.array(position, float)))


def test_game_audio_places_event_sounds_and_follows_rpm(config):
    player = _vehicle("player", (1.0, 2.0, 3.0), rpm=1600.0)
    enemy = _vehicle("enemy", (50.0, 0.0, 0.0))
    simulation = SimpleNamespace(vehicles=[player, enemy], player=player, plates=())
    fake = FakePlayer()
    audio = GameAudio(simulation, fake, config.game.audio)
    audio.on_events([{"type": "shot", "vehicle": "enemy"},
                     {"type": "hit", "target": "enemy", "point": [49.0, 0.0, 1.0]},
                     {"type": "hit", "target": "terrain", "point": [10.0, 0.0, 0.0]},
                     {"type": "destroyed", "vehicle": "enemy"},
                     {"type": "shift_refused", "vehicle": "player", "reason": "moving"}])
    assert fake.played == [("gun_fire", (50.0, 0.0, 0.0)),
                           ("impact_metal", (49.0, 0.0, 1.0)),
                           ("impact_sand", (10.0, 0.0, 0.0)),
                           ("explosion", (50.0, 0.0, 0.0)),
                           ("gear_grind", (1.0, 2.0, 3.0))]
    audio.update(throttle=1.0)
    rate, volume, position = fake.engines[-1]
    assert rate == pytest.approx(2.0) and position == (1.0, 2.0, 3.0)
    assert volume == pytest.approx(config.game.audio.full_throttle_volume)


def test_engine_note_rises_with_rpm_and_throttle_and_stays_in_bounds(config):
    spec = config.game.audio
    low, quiet = engine_note(spec, 800.0, 0.0)
    high, loud = engine_note(spec, 2400.0, 1.0)
    assert high > low and loud > quiet
    assert engine_note(spec, 0.0, 0.0)[0] == spec.min_play_rate
    assert engine_note(spec, 1e6, 0.0)[0] == spec.max_play_rate
