"""The pad's connection logic as a pure state machine: messages and time in, observations and answers out.
No hub, no sockets, no sleeps."""

from __future__ import annotations

import pytest

from devices.observations import DeviceEvent, LinkChange, LinkState, Observation
from devices.pad.messages import MessageInvalid, PadMessage, Tap, read_message
from devices.pad.protocol import PadProtocol, Verdict, reply


def _message(pad: str = "pad-aaaa-1", epoch: int = 1, *seqs: int) -> PadMessage:
    return PadMessage(pad, epoch, [Tap(seq, "point", {"side": seq % 2}, 100.0 + seq) for seq in seqs])


def test_the_first_pad_holds_the_table_and_its_taps_become_observations() -> None:
    protocol = PadProtocol("pad://T1", lease=30)
    answer = protocol.receive(_message("pad-aaaa-1", 1, 1, 2, 3), "Ayşe", now=10.0, at=1000.0)
    assert answer.verdict is Verdict.ACCEPTED and answer.acked == 3
    events = protocol.events_received()
    assert isinstance(events[0], LinkChange) and events[0].state is LinkState.CONNECTED
    assert "Ayşe" in events[0].detail and events[0].device_id == "pad-aaaa-1"
    observations = [e for e in events if isinstance(e, Observation)]
    assert [(o.device_id, o.boot_epoch, o.seq) for o in observations] == [
        ("pad-aaaa-1", 1, s) for s in (1, 2, 3)
    ]
    assert observations[0].report == DeviceEvent("point", {"side": 1, "tapped_at": 101.0})
    assert observations[0].received_at == 1000.0
    assert read_message(b'{"pad":"pad-aaaa-1","epoch":1,"reports":[' + observations[0].raw + b"]}").reports[
        0
    ] == Tap(1, "point", {"side": 1}, 101.0)
    assert protocol.events_received() == []  # taken once


def test_a_second_pad_is_refused_until_the_holder_has_been_quiet_for_the_lease() -> None:
    protocol = PadProtocol("pad://T1", lease=30)
    protocol.receive(_message("pad-aaaa-1", 1, 1), "Ayşe", now=10.0, at=1000.0)
    protocol.events_received()
    held = protocol.receive(_message("pad-bbbb-2", 1, 1), "Mehmet", now=25.0, at=1015.0)
    assert held.verdict is Verdict.HELD_ELSEWHERE and held.free_in_s == 15.0
    assert held.holder is not None and held.holder.user == "Ayşe"
    assert protocol.events_received() == []  # nothing of the second pad's is taken
    refused = reply(held)
    assert not refused.taken and refused.refusal is not None
    assert "Ayşe" in refused.refusal.english and "15 s" in refused.refusal.english
    assert "Ayşe" in refused.refusal.turkish

    assert protocol.next_deadline() == 40.0
    protocol.tick(39.9, 1029.9)
    assert protocol.events_received() == []
    protocol.tick(40.0, 1030.0)
    (gone,) = protocol.events_received()
    assert isinstance(gone, LinkChange) and gone.state is LinkState.DISCONNECTED
    assert gone.detail.startswith("no data from the pad for 30 s")
    assert protocol.next_deadline() is None

    taken = protocol.receive(_message("pad-bbbb-2", 1, 1), "Mehmet", now=41.0, at=1031.0)
    assert taken.verdict is Verdict.ACCEPTED and taken.holder is not None and taken.holder.user == "Mehmet"


def test_the_holder_keeps_the_table_by_being_heard_and_a_resent_tap_is_acknowledged_again() -> None:
    protocol = PadProtocol("pad://T1", lease=30)
    protocol.receive(_message("pad-aaaa-1", 1, 1, 2), "Ayşe", now=0.0, at=0.0)
    for now in (20.0, 40.0, 60.0):  # the page asks the state every few seconds: an empty message
        assert protocol.receive(_message("pad-aaaa-1", 1), "Ayşe", now=now, at=now).acked == 2
    assert protocol.receive(_message("pad-bbbb-2", 1, 1), "Mehmet", now=70.0, at=70.0).verdict is (
        Verdict.HELD_ELSEWHERE
    )
    again = protocol.receive(_message("pad-aaaa-1", 1, 1, 2, 3), "Ayşe", now=71.0, at=71.0)
    assert again.acked == 3
    # a resent tap is handed on as the device sent it: the hub's log stores each (pad, epoch, seq) once
    assert [o.seq for o in protocol.events_received() if isinstance(o, Observation)][-3:] == [1, 2, 3]
    # a new epoch (the page's storage was cleared) counts from 1 again
    assert protocol.receive(_message("pad-aaaa-1", 2, 1), "Ayşe", now=72.0, at=72.0).acked == 1


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b"not json", "not JSON"),
        (b'{"pad": "short", "epoch": 1}', "pad"),
        (b'{"pad": "pad-aaaa-1", "epoch": 0}', "epoch"),
        (b'{"pad": "pad-aaaa-1", "epoch": 1, "table": "T2"}', "table"),
        (b'{"pad": "pad-aaaa-1", "epoch": 1, "reports": [{"seq": 1, "kind": "Point"}]}', "reports.0.kind"),
        (b'{"pad": "pad-aaaa-1", "epoch": 1, "reports": [{"seq": 1, "kind": "point", "x": 1}]}', "x"),
        (
            b'{"pad": "pad-aaaa-1", "epoch": 1, "reports": [{"seq": 2, "kind": "point"}, {"seq": 2, "kind": "undo"}]}',
            "seq must grow",
        ),
        (
            b'{"pad": "pad-aaaa-1", "epoch": 1, "reports": [{"seq": 1, "kind": "card", "data": {"a": [1]}}]}',
            "data",
        ),
    ],
)
def test_a_message_that_is_not_one_is_refused_naming_its_field(body: bytes, said: str) -> None:
    with pytest.raises(MessageInvalid) as refused:
        read_message(body)
    assert said in str(refused.value) and " / " in str(refused.value)


def test_a_pad_that_only_looks_takes_nothing_and_keeps_no_one_from_scoring() -> None:
    protocol = PadProtocol("pad://T1", lease=30)
    looking = protocol.receive(_message("pad-look-1", 1), "Ayşe", now=0.0, at=0.0)
    assert looking.verdict is Verdict.WATCHING and looking.holder is None
    assert protocol.events_received() == [] and protocol.next_deadline() is None
    scoring = protocol.receive(_message("pad-score-2", 1, 1), "Mehmet", now=1.0, at=1.0)
    assert scoring.verdict is Verdict.ACCEPTED
    assert len(protocol.events_received()) == 2  # its link and its tap
    watched = reply(protocol.receive(_message("pad-look-1", 1), "Ayşe", now=2.0, at=2.0))
    assert watched.taken and watched.body["yours"] is False
    assert (
        watched.body["holder"] == {"pad": "pad-score-2", "user": "Mehmet"}
        and watched.body["free_in_s"] == 29.0
    )
    # the holder's lease runs out on the next message after it (no tick came): the link is said down first
    protocol.receive(_message("pad-look-1", 1, 1), "Ayşe", now=40.0, at=1040.0)
    gone, back, tap = protocol.events_received()
    assert isinstance(gone, LinkChange) and gone.state is LinkState.DISCONNECTED and gone.at == 1040.0
    assert (
        isinstance(back, LinkChange) and back.state is LinkState.CONNECTED and back.device_id == "pad-look-1"
    )
    assert isinstance(tap, Observation) and tap.device_id == "pad-look-1"
