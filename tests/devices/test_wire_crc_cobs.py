"""CRC-16/CCITT-FALSE and COBS, the two primitives under every Boardcast Wire frame."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devices.wire import cobs
from devices.wire.crc import crc16_ccitt_false, crc16_ccitt_false_reference


def test_crc_check_value_for_123456789_is_0x29b1() -> None:
    assert crc16_ccitt_false(b"123456789") == 0x29B1


def test_crc_of_nothing_is_the_initial_value() -> None:
    assert crc16_ccitt_false(b"") == 0xFFFF


def test_crc_can_continue_over_chunks() -> None:
    assert crc16_ccitt_false(b"56789", crc16_ccitt_false(b"1234")) == 0x29B1


@given(st.binary(max_size=600), st.integers(0, 0xFFFF))
def test_crc_in_c_equals_the_table_driven_definition(data: bytes, start: int) -> None:
    assert crc16_ccitt_false(data, start) == crc16_ccitt_false_reference(data, start)
    assert crc16_ccitt_false(memoryview(data)) == crc16_ccitt_false_reference(data)


@pytest.mark.parametrize(
    ("data", "encoded"),
    [
        (b"", b"\x01"),
        (b"\x00", b"\x01\x01"),
        (b"\x00\x00", b"\x01\x01\x01"),
        (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
        (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
        (bytes(range(1, 255)), b"\xff" + bytes(range(1, 255))),
        (bytes(range(1, 256)), b"\xff" + bytes(range(1, 255)) + b"\x02\xff"),
        (bytes(range(0, 256)), b"\x01\xff" + bytes(range(1, 255)) + b"\x02\xff"),
    ],
)
def test_cobs_matches_the_published_examples(data: bytes, encoded: bytes) -> None:
    assert cobs.encode(data) == encoded
    assert cobs.decode(encoded) == data


@given(st.binary(max_size=2000))
def test_cobs_round_trips_any_bytes_without_zeros_on_the_wire(data: bytes) -> None:
    encoded = cobs.encode(data)
    assert 0 not in encoded
    assert len(encoded) <= len(data) + len(data) // 254 + 1
    assert cobs.decode(encoded) == data


def test_cobs_decode_rejects_a_zero_byte_inside_a_block() -> None:
    with pytest.raises(
        cobs.CobsDecodeError, match="zero byte at offset 2 inside the COBS block that starts at 0"
    ):
        cobs.decode(b"\x04\x11\x00\x22")


def test_cobs_decode_rejects_a_zero_where_a_code_byte_belongs() -> None:
    with pytest.raises(cobs.CobsDecodeError, match="zero byte at offset 2 where a COBS code byte"):
        cobs.decode(b"\x02\x11\x00")


def test_cobs_decode_rejects_a_code_byte_running_past_the_end() -> None:
    with pytest.raises(
        cobs.CobsDecodeError, match="code byte 0x05 at offset 0 needs 4 data bytes, but only 2"
    ):
        cobs.decode(b"\x05\x11\x22")


@given(st.binary(max_size=600), st.binary(max_size=4), st.integers(0, 700))
def test_cobs_decode_equals_the_block_by_block_decoding_on_any_input(
    data: bytes, noise: bytes, at: int
) -> None:
    """`decode` walks only the code bytes when it can; on good and damaged input alike it must say what the
    block-by-block decoding says, error message included."""
    encoded = cobs.encode(data)
    for candidate in (encoded, encoded[:at] + noise + encoded[at + len(noise) :], encoded[:at], noise):
        try:
            expected: object = cobs._decode_blocks(candidate)
        except cobs.CobsDecodeError as exc:
            expected = str(exc)
        try:
            got: object = cobs.decode(candidate)
        except cobs.CobsDecodeError as exc:
            got = str(exc)
        assert got == expected
