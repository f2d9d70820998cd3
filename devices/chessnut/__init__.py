"""Chessnut Air / Air+ / Pro / Go e-boards over Bluetooth LE: piece placement ten times a second, battery, button."""
