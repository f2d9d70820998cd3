"""DGT e-boards with a DGT 3000 clock: the serial protocol as a sans-I/O codec and its message values."""
