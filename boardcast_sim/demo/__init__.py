"""`boardcast demo`: `options` (its command-line options and banner), `command` (what runs beside the hub),
`run` (a venue of simulated devices on real pseudo-terminals) and `arbiter` (the results its games reach off
the board). The simulators themselves are in the `boardcast_sim` package."""

__all__: list[str] = []
