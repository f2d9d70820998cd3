"""D-SCORE Bluetooth LE wristbands: an umpire's green (point) and red (undo) buttons, one band per side."""
