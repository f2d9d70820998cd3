"""Views and JSON of logs that grow, each item built and encoded once: always what building the whole log
would give, whether the log grows at its end, drops its front (a match's newest facts), is taken back,
differs before its end, or is shown under another context; and a match topic's message is byte for byte
the plain encoding of its view."""

from __future__ import annotations

import random
from dataclasses import dataclass

import orjson
from hypothesis import given
from hypothesis import strategies as st

from hub.feed.reuse import MIN_ITEMS, ListEncodings
from hub.growing import ItemViews, carried_over


@dataclass(frozen=True)
class Item:
    n: int
    side: int


def view_of(item: Item, context: object) -> dict[str, object]:
    return {"n": item.n, "side": item.side, "context": context}


def test_carried_over_finds_where_the_new_log_starts_in_the_old() -> None:
    items = [Item(n, n % 2) for n in range(10)]
    assert carried_over(items[:5], items[:8]) == 0  # grew at its end
    assert carried_over(items[:5], items[2:9]) == 2  # dropped two at its front, grew at its end
    assert carried_over(items[:5], items[:5]) == 0
    assert carried_over(items[:5], items[:4]) is None  # taken back
    assert carried_over(items[:5], [items[0], Item(99, 0), *items[2:6]]) is None  # differs before its end
    assert carried_over(items[:5], items[6:9]) is None  # nothing in common
    assert carried_over([], items) is None and carried_over(items, []) is None


@given(st.lists(st.sampled_from(["grow", "grow", "grow", "drop", "back", "change", "context"]), max_size=60))
def test_item_views_always_equal_the_views_built_whole(steps: list[str]) -> None:
    views: ItemViews[Item, dict[str, object]] = ItemViews(view_of)
    made = [Item(n, n % 2) for n in range(3)]
    log = list(made)
    context = "a"
    for n, step in enumerate(steps):
        if step == "grow":
            log.append(Item(100 + n, n % 2))
        elif step == "drop" and log:
            log = log[1:]
        elif step == "back" and log:
            log = log[:-1]
        elif step == "change" and log:
            log[len(log) // 2] = Item(-n, 1)
        elif step == "context":
            context = "b" if context == "a" else "a"
        shown = views(tuple(log), context, key="match")
        assert shown == [view_of(i, context) for i in log]


def test_each_item_is_built_once_while_the_log_grows_and_drops_its_front() -> None:
    built: list[int] = []

    def counted(item: Item, context: object) -> dict[str, object]:
        built.append(item.n)
        return view_of(item, context)

    views: ItemViews[Item, dict[str, object]] = ItemViews(counted)
    items = [Item(n, 0) for n in range(100)]
    for end in range(1, 101):
        views(tuple(items[max(0, end - 30) : end]), None, key="M1")  # the newest 30, as a match's facts
    assert built == list(range(100))


def test_logs_beyond_those_kept_are_built_again_and_stay_right() -> None:
    views: ItemViews[Item, dict[str, object]] = ItemViews(view_of, kept=4)
    logs = [tuple(Item(1000 * m + n, 0) for n in range(5)) for m in range(10)]
    for log in logs + logs:
        assert views(log) == [view_of(i, None) for i in log]
    assert len(views) == 4


def test_a_views_list_is_the_callers_own() -> None:
    views: ItemViews[Item, dict[str, object]] = ItemViews(view_of)
    log = tuple(Item(n, 0) for n in range(5))
    views(log).clear()
    assert len(views(log)) == 5


LOGS = [("facts",), ("state", "points_log")]


def _view(facts: list[dict[str, object]], points: list[dict[str, object]], version: int) -> dict[str, object]:
    return {"id": "M1", "version": version, "state": {"points_log": points, "game": 1}, "facts": facts}


def test_a_topics_message_is_byte_for_byte_the_plain_encoding_as_its_lists_change() -> None:
    encodings = ListEncodings()
    rng = random.Random(7)
    points: list[dict[str, object]] = []
    facts: list[dict[str, object]] = []
    for version in range(300):
        points.append({"game": version // 20, "points": [version % 11, 3], "at": version + 0.25})
        if rng.random() < 0.5:
            facts = [*facts, {"kind": "point", "data": {"side": version % 2}, "offset": version}][-30:]
        if rng.random() < 0.05:
            points = points[: rng.randrange(len(points) + 1)]  # points taken back
        if rng.random() < 0.05 and points:
            points[rng.randrange(len(points))] = {"game": -1, "points": [0, 0], "at": 0.5}  # a correction
        view = _view(list(facts), list(points), version)
        assert orjson.dumps(encodings.reuse("match:M1", view, LOGS)) == orjson.dumps(view)
        assert view == _view(list(facts), list(points), version)  # the caller's view is not changed


def test_a_log_whose_items_are_rebuilt_at_every_view_is_spliced_all_the_same() -> None:
    encodings = ListEncodings()
    for n in range(MIN_ITEMS, 60):
        moves = [{"uci": f"m{i}", "at": i + 0.5} for i in range(n)]  # new dicts each time, as a sport's codec
        view = {"state": {"moves": moves}, "facts": []}
        assert orjson.dumps(encodings.reuse("match:C1", view, [("state", "moves")])) == orjson.dumps(view)
    assert carried_over([{"a": 1}, {"a": 2}], [{"a": 1}, {"a": 2}, {"a": 3}]) == 0


def test_short_lists_and_other_values_are_left_as_they_are() -> None:
    encodings = ListEncodings()
    view = {"a": [1] * (MIN_ITEMS - 1), "b": {"c": "x"}, "d": 5}
    assert encodings.reuse("t", view, [("a",), ("b", "c"), ("d",), ("e",), ("b", "x", "y")]) == view
    assert len(encodings) == 0


def test_lists_of_many_topics_beyond_those_kept_stay_right() -> None:
    encodings = ListEncodings(kept=3)
    views = {f"match:M{m}": {"log": [{"m": m, "n": n} for n in range(10)]} for m in range(8)}
    for topic, view in [*views.items(), *views.items()]:
        assert orjson.dumps(encodings.reuse(topic, view, [("log",)])) == orjson.dumps(view)
    assert len(encodings) == 3
