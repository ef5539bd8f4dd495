"""The heads-up display: dashboard, crosshair, minimap, markers, hit indicators, feeds."""
