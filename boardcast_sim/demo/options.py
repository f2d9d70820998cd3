"""`boardcast demo`'s options and the first line of its banner: what it simulates.

Light on purpose: the command's parser reads it on every run, the simulators only when the demo runs
(`boardcast_sim.demo.command`).
"""

from __future__ import annotations

import argparse


def add_options(demo: argparse.ArgumentParser) -> None:
    """The demo's own options: how many tables of each sport, the speed and the random seed."""
    demo.add_argument("--tables", type=int, default=4, help="simulated tables / simüle masa sayısı")
    demo.add_argument(
        "--bg-tables", type=int, default=2, help="simulated backgammon tables / simüle tavla masası sayısı"
    )
    demo.add_argument(
        "--chess-boards",
        type=int,
        default=8,
        help="DGT boards of a simulated chess team match, 0-8 / simüle satranç takım maçı masa sayısı",
    )
    demo.add_argument(
        "--pads",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="a table-tennis and a backgammon table with no device, scored by simulated umpire pads "
        "/ cihazsız, simüle hakem tabletiyle puanlanan bir masa tenisi ve bir tavla masası",
    )
    demo.add_argument(
        "--engine",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the analysis engines, when installed: Stockfish's evaluation on the chess screens, GNU "
        "Backgammon's performance ratings on the backgammon ones / çözümleme motorları (kuruluysa): satrançta "
        "Stockfish değerlendirmesi, tavlada GNU Backgammon performans puanları",
    )
    demo.add_argument("--speed", type=float, default=1.0, help="simulation speed factor / simülasyon hızı")
    demo.add_argument("--seed", type=int, default=None, help="random seed / rastgele tohum")


def option_problem(args: argparse.Namespace) -> str | None:
    """Why the demo's options cannot be used, in one line, or None."""
    if args.tables < 1:
        return "--tables must be at least 1 / en az 1 masa"
    if args.bg_tables < 0:
        return "--bg-tables must be 0 or more / en az 0 tavla masası"
    if not 0 <= args.chess_boards <= 8:
        return "--chess-boards must be 0 to 8 / 0-8 satranç masası"
    return None


def title(args: argparse.Namespace, version: str) -> str:
    """The banner's first line: what the demo simulates."""
    return (
        f"Boardcast {version} demo: {args.tables} simulated table-tennis tables"
        + (f", {args.bg_tables} backgammon tables" if args.bg_tables else "")
        + (f", a chess team match on {args.chess_boards} DGT boards" if args.chess_boards else "")
        + (", two tables scored by umpire pads" if args.pads else "")
    )


def has_standings(args: argparse.Namespace) -> bool:
    """The demo's venue has an event with standings (its team match's league)."""
    return bool(args.chess_boards)
