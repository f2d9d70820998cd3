"""Consistent Overhead Byte Stuffing (COBS), byte-for-byte compatible with the `cobs` PyPI package.

COBS removes every 0x00 from a payload so that 0x00 can delimit frames on the wire. The delimiter itself is
not part of the encoding: callers append and split on it.
"""

from __future__ import annotations

_MAX_BLOCK = 254  # data bytes a 0xFF code byte carries


class CobsDecodeError(ValueError):
    """An encoded COBS block that cannot be decoded; the message says where and why."""


def encode(data: bytes | bytearray | memoryview) -> bytes:
    """COBS-encode data; the result contains no 0x00 byte and is at most len(data) // 254 + 1 longer."""
    out = bytearray()
    pieces = bytes(data).split(b"\x00")
    last = len(pieces) - 1
    for index, piece in enumerate(pieces):
        emitted_full_block = False
        while len(piece) >= _MAX_BLOCK:
            out.append(0xFF)
            out += piece[:_MAX_BLOCK]
            piece = piece[_MAX_BLOCK:]
            emitted_full_block = True
        if piece or index != last or not emitted_full_block:
            out.append(len(piece) + 1)
            out += piece
    return bytes(out)


def decode(data: bytes | bytearray | memoryview) -> bytes:
    """Decode one COBS-encoded block (without its 0x00 delimiter); raise CobsDecodeError if malformed."""
    encoded = data if type(data) is bytes else bytes(data)
    if 0 not in encoded:
        # The usual frame, every block shorter than 254 bytes: each code byte stands where a 0x00 was (the
        # first stands before the data), so the data is the encoding with its code bytes zeroed, less the
        # first byte. Only the chain of code bytes is walked; anything else is decoded below, block by block.
        size = len(encoded)
        out = bytearray(encoded)
        index = 0
        while index < size:
            code = encoded[index]
            if code == 0xFF or index + code > size:
                break
            out[index] = 0
            index += code
        else:
            if size:
                del out[0]  # a bytearray drops its first byte in place (no copy, unlike `out[1:]`)
            return bytes(out)
    return _decode_blocks(encoded)


def _decode_blocks(encoded: bytes) -> bytes:
    """`decode`, block by block, with the error that says where and why."""
    out = bytearray()
    size = len(encoded)
    index = 0
    while index < size:
        code = encoded[index]
        if code == 0:
            raise CobsDecodeError(f"zero byte at offset {index} where a COBS code byte was expected")
        end = index + code
        if end > size:
            raise CobsDecodeError(
                f"code byte 0x{code:02X} at offset {index} needs {code - 1} data bytes, "
                f"but only {size - index - 1} remain"
            )
        zero_at = encoded.find(0, index + 1, end)
        if zero_at != -1:
            raise CobsDecodeError(
                f"zero byte at offset {zero_at} inside the COBS block that starts at {index}"
            )
        out += encoded[index + 1 : end]
        index = end
        if code != 0xFF and index < size:
            out.append(0)
    return bytes(out)
