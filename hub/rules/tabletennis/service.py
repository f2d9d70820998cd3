"""Who serves, who receives, and the serve order (ITTF 2.13, 2.15): computed from the toss, the game number
and the score, plus the anchors the rules allow (the expedite introduction, a referee's correction)."""

from __future__ import annotations

from msgspec.structs import replace

from hub.rules.tabletennis.model import DOUBLES_PLAYERS, TableTennisState, _partner, _side


def next_pair(pair: tuple[str, str]) -> tuple[str, str]:
    """2.13.5: the previous receiver serves; the partner of the previous server receives."""
    server, receiver = pair
    return receiver, _partner(server)


def pair_at(state: TableTennisState, played: int) -> tuple[str, str] | None:
    """Server and receiver of the rally after `played` points of the current game (2.13, 2.15).

    Closed form of a walk through the game's rallies: from the game's order (or the last anchor reached),
    the pair moves on once per change of service (2.13.3; every point under expedite from its anchor,
    2.15.4), the receiving pair changes its order at the swap in the last doubles game (2.13.6), and an
    anchor (the expedite introduction, a referee's correction) sets the pair at its point.
    """
    pair = state.game_order
    if pair is None:
        return None
    if played < 0:
        return pair
    game = sum(state.games) + 1
    events: list[tuple[int, int, tuple[str, str] | None]] = []  # (point, order at one point, pair)
    swap_at = state.swap_at
    if (
        swap_at is not None
        and state.config.doubles
        and game == state.config.best_of
        and 0 <= swap_at <= played
    ):
        events.append((swap_at, 0, None))
    expedite_anchor = state.expedite_anchor
    if expedite_anchor is not None and expedite_anchor[0] == game and 0 <= expedite_anchor[1] <= played:
        events.append((expedite_anchor[1], 1, (expedite_anchor[2], expedite_anchor[3])))
    order_anchor = state.order_anchor
    if order_anchor is not None and order_anchor[0] == game and 0 <= order_anchor[1] <= played:
        events.append((order_anchor[1], 2, (order_anchor[2], order_anchor[3])))
    every_point_from: int | None = None
    if state.expedite:
        every_point_from = (
            expedite_anchor[1] if expedite_anchor is not None and expedite_anchor[0] == game else 0
        )
    serves, deuce = (5, 40) if state.config.ruleset == "legacy21" else (2, 20)
    if not events:
        return _advance(pair, _changes(played, every_point_from, serves, deuce))
    at = 0
    events.sort(key=lambda e: (e[0], e[1]))
    for n, _, anchor in events:
        pair = _advance(
            pair,
            _changes(n, every_point_from, serves, deuce) - _changes(at, every_point_from, serves, deuce),
        )
        at = n
        pair = (pair[0], _partner(pair[1])) if anchor is None else anchor
    return _advance(
        pair,
        _changes(played, every_point_from, serves, deuce) - _changes(at, every_point_from, serves, deuce),
    )


def _changes(n: int, every_point_from: int | None, serves: int, deuce: int) -> int:
    """Changes of service over points 1..n: every `serves` points, every point after `deuce` (2.13.3), and
    every point after `every_point_from` under expedite (2.15.4)."""
    if every_point_from is not None and n > every_point_from:
        e = max(every_point_from, 0)
        return min(e, deuce) // serves + max(0, e - deuce) + n - e
    return min(n, deuce) // serves + max(0, n - deuce)


_CYCLE_PLAYERS = ("A", "B", *DOUBLES_PLAYERS)


def _cycle(pair: tuple[str, str]) -> tuple[tuple[str, str], ...]:
    cycle = [pair]
    for _ in range(3):
        cycle.append(next_pair(cycle[-1]))
    return tuple(cycle)


# the serve cycle from each pair of known players: it repeats every 4 changes (every 2 in singles)
_CYCLES = {(s, r): _cycle((s, r)) for s in _CYCLE_PLAYERS for r in _CYCLE_PLAYERS}


def _advance(pair: tuple[str, str], times: int) -> tuple[str, str]:
    """The pair after `times` changes of service."""
    cycle = _CYCLES.get(pair)
    if cycle is not None:
        return cycle[times % 4]
    for _ in range(times):
        pair = next_pair(pair)
    return pair


def service(state: TableTennisState) -> tuple[str, str] | None:
    """The (server, receiver) players of the next rally, computed; None before the toss is known."""
    return pair_at(state, sum(state.points))


def expedite_allowed(state: TableTennisState) -> bool:
    """2.15.2: not once 18 points are scored in the game (legacy rules: not once both have 19)."""
    if state.config.ruleset == "legacy21":
        return min(state.points) < 19
    return sum(state.points) < 18


def order_for_game(state: TableTennisState, game: int) -> tuple[str, str] | None:
    """2.13.6: the toss order in odd games, reversed in even games."""
    if state.toss is None:
        return None
    return state.toss if game % 2 == 1 else (state.toss[1], state.toss[0])


def _candidate_orders(state: TableTennisState) -> list[tuple[str, str]]:
    current = state.game_order
    if not state.config.doubles:
        orders = [("A", "B"), ("B", "A")]
    else:
        orders = [(s, r) for s in DOUBLES_PLAYERS for r in DOUBLES_PLAYERS if _side(s) != _side(r)]
    if current in orders:
        orders.remove(current)
        orders.insert(0, current)
    return orders


def fit_order(
    state: TableTennisState,
    server_side: int | None,
    server_player: str | None,
    *,
    prefer_first_receiver: bool = False,
) -> tuple[str, str] | None:
    """A game order under which the computed server at the score reached is the one given."""
    if server_side is None and server_player is None:
        return None
    orders = _candidate_orders(state)
    if prefer_first_receiver:  # with nothing else to go on, the first player of the receiving pair receives
        orders.sort(key=lambda o: o[1][-1] != "1" if len(o[1]) == 2 else False)
    for order in orders:
        pair = service(replace(state, game_order=order))
        if pair is None:
            continue
        if server_player is not None and state.config.doubles:
            if pair[0] == server_player:
                return order
        elif _side(pair[0]) == server_side:
            return order
    return None


def pair_with_server(
    pair: tuple[str, str] | None, player: str | None, side: int, doubles: bool
) -> tuple[str, str] | None:
    """The pair of the current serve cycle whose server is the one given."""
    if pair is None:
        return None
    candidate = pair
    for _ in range(4 if doubles else 2):
        if (player is not None and candidate[0] == player) or (
            player is None and _side(candidate[0]) == side
        ):
            return candidate
        candidate = next_pair(candidate)
    return None
