"""Tournaments beyond one hall's day: the pairing program's rounds in, results and standings out.

- `model`: players, teams, rounds and results, as frozen values;
- `trf`: the FIDE Tournament Report File, read strictly and written back;
- `results`: a team event's team matches, worked out from its board games;
- `export`: a round's results going back out (the report file, PGN, CSV), from a hall's log read-only;
  `export_cli` its command, `boardcast round export`;
- `tiebreaks`: the tie-breaks a venue or the command line may name; `standings`: ranks, points and
  tie-breaks over the first N rounds (`standings_cli` its command, `boardcast standings`);
- `prizes`: a team event's board prizes.
"""
