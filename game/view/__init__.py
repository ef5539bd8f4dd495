"""Drawing the game: sub-packages by what they draw, the cameras and the players' views."""
