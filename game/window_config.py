"""What a game in a window reads besides the game's own config: config/view.toml (drawing,
sound, menus, split screen, the player's default settings) and config/controls.toml
(the keyboard, mouse and gamepad bindings). A headless run never loads this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from common.settings import UserSettingsSpec
from common.spec import Spec, tuning
from game.audio.sounds import AudioSpec
from game.config import CONFIG_DIR, GameConfig, game_specs, load_spec
from game.input.bindings import ControlsSpec
from game.menus.match_end_screen import MatchEndSpec
from game.menus.menu_spec import MenuSpec
from game.menus.title_menu import TitleMenuSpec
from game.view.camera import CameraSpec
from game.view.debug_overlay import DebugOverlaySpec
from game.view.effects.combat_view import CombatViewSpec
from game.view.effects.effects import EffectsSpec
from game.view.ground.desert_scene import SandSpec, SceneSpec
from game.view.ground.shadows import ShadowSpec
from game.view.ground.terrain_view import TerrainViewSpec
from game.view.hud.hud import HudSpec
from game.view.hud.pierce_mark import PierceMarkSpec
from game.view.player_view import SplitScreenSpec
from game.view.rigs.car_rig import CarRigSpec
from game.view.rigs.tank_rig import TankRigSpec
from game.view.rigs.vehicle_view import VehicleDetailSpec, VehicleLooks
from game.view.window import GraphicsQualitySpec, WindowSpec


@dataclass(frozen=True)
class ViewSpec(Spec):
    """config/view.toml."""

    window: WindowSpec = tuning("the game window")
    camera: CameraSpec = tuning("the chase camera and the gun sight")
    scene: SceneSpec = tuning("sky, sun, fog and colours")
    sand: SandSpec = tuning("the sand's detail texture")
    shadows: ShadowSpec = tuning("sun shadows")
    graphics_quality: GraphicsQualitySpec = tuning("what each graphics quality level draws")
    terrain_view: TerrainViewSpec = tuning("how the terrain is drawn")
    tank_rig: TankRigSpec = tuning("the drawn tank's shape")
    car_rig: CarRigSpec = tuning("the drawn car's shape")
    vehicle_detail: VehicleDetailSpec = tuning("how often far vehicles' wheels and tracks move")
    combat_view: CombatViewSpec = tuning("how shells and plates are drawn")
    effects: EffectsSpec = tuning("particles: shots, hits, explosions, wrecks, dust")
    hud: HudSpec = tuning("the heads-up display")
    debug_overlay: DebugOverlaySpec = tuning("the suspension-ray overlay (F3)")
    menu: MenuSpec = tuning("the pause menu")
    title_menu: TitleMenuSpec = tuning("the title menu and match setup")
    split_screen: SplitScreenSpec = tuning("two players sharing the window (--players 2)")
    user_settings: UserSettingsSpec = tuning("defaults of the player's own settings")
    audio: AudioSpec = tuning("the engine note and the sounds' falloff")
    match_end: MatchEndSpec = tuning("the end-of-match screen")
    pierce_mark: PierceMarkSpec = tuning("beside the crosshair: would the loaded shell pierce")


@dataclass(frozen=True)
class WindowConfig(GameConfig):
    """Everything a game in a window reads from config/: the game's own config, the view
    and the controls."""

    view: ViewSpec
    controls: ControlsSpec

    @cached_property
    def vehicle_looks(self) -> VehicleLooks:
        """What drawing a vehicle reads."""
        return VehicleLooks(self.view.tank_rig, self.view.car_rig, self.view.scene)


def load_window_config(config_dir: Path = CONFIG_DIR) -> WindowConfig:
    config_dir = Path(config_dir)
    return WindowConfig(**game_specs(config_dir),
                        view=load_spec(config_dir / "view.toml", ViewSpec),
                        controls=load_spec(config_dir / "controls.toml", ControlsSpec))
