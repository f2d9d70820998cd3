"""CRC-16/CCITT-FALSE, the checksum that closes every Boardcast Wire frame.

Polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR; check value 0x29B1 for b"123456789".
That is the CRC `binascii.crc_hqx` computes (in C) when started at 0xFFFF; the table-driven version below
is kept as the reference the tests hold it to.
"""

from __future__ import annotations

from binascii import crc_hqx

POLYNOMIAL = 0x1021
INITIAL = 0xFFFF
CHECK_VALUE = 0x29B1


def _make_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ POLYNOMIAL) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_TABLE = _make_table()


def crc16_ccitt_false(data: bytes | bytearray | memoryview, crc: int = INITIAL) -> int:
    """CRC-16/CCITT-FALSE of data; pass a previous result as crc to continue over more bytes."""
    return crc_hqx(data, crc)


def crc16_ccitt_false_reference(data: bytes | bytearray | memoryview, crc: int = INITIAL) -> int:
    """The same CRC, table-driven in Python, byte by byte: the definition `crc16_ccitt_false` is tested against."""
    table = _TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ byte]
    return crc
