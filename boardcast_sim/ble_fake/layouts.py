"""The GATT service tables a fake peripheral shows (NUS, D-SCORE, Chessnut), built from real bleak classes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bleak.assigned_numbers import CharacteristicPropertyName
from bleak.backends.characteristic import BleakGATTCharacteristic
from bleak.backends.descriptor import BleakGATTDescriptor
from bleak.backends.service import BleakGATTService, BleakGATTServiceCollection

from devices.chessnut.session import (
    CHESSNUT_BOARD,
    CHESSNUT_BOARD_SERVICE,
    CHESSNUT_COMMAND_SERVICE,
    CHESSNUT_COMMANDS,
    CHESSNUT_REPLIES,
)
from devices.dscore.session import DSCORE_BUTTONS, DSCORE_PLAYER_TYPE, DSCORE_POKE, DSCORE_SERVICE
from devices.transports.ble import NUS_RX, NUS_SERVICE, NUS_TX

NUS_RX_PROPERTIES: tuple[CharacteristicPropertyName, ...] = ("write-without-response", "write")


@dataclass(frozen=True, slots=True)
class NusLayout:
    """A NUS service table: which UUID carries which properties, and the write size."""

    tx_uuid: str = NUS_TX
    rx_uuid: str = NUS_RX
    tx_properties: tuple[CharacteristicPropertyName, ...] = ("notify",)
    rx_properties: tuple[CharacteristicPropertyName, ...] = NUS_RX_PROPERTIES
    extra_uuid: str | None = None  # an extra read-only characteristic in the service, if set
    max_write: int = 20  # max_write_without_response_size: ATT MTU - 3


def nus_service_collection(
    layout: NusLayout = NusLayout(),
) -> tuple[BleakGATTServiceCollection, BleakGATTCharacteristic, BleakGATTCharacteristic]:
    """A NUS service built from real bleak classes; returns (collection, tx/notify char, rx/write char)."""
    collection = BleakGATTServiceCollection()
    service = BleakGATTService(None, 0x0010, NUS_SERVICE)
    collection.add_service(service)

    def characteristic(
        handle: int, uuid: str, properties: Sequence[CharacteristicPropertyName]
    ) -> BleakGATTCharacteristic:
        char = BleakGATTCharacteristic(
            None, handle, uuid.lower(), list(properties), lambda: layout.max_write, service
        )
        collection.add_characteristic(char)
        return char

    if layout.extra_uuid:
        characteristic(0x0011, layout.extra_uuid, ["read"])
    rx = characteristic(0x0013, layout.rx_uuid, layout.rx_properties)
    tx = characteristic(0x0016, layout.tx_uuid, layout.tx_properties)
    collection.add_descriptor(BleakGATTDescriptor(None, 0x0017, "00002902-0000-1000-8000-00805f9b34fb", tx))
    return collection, tx, rx


@dataclass(frozen=True, slots=True)
class DScoreLayout:
    """A D-SCORE wristband's service table (Squore's bluetooth_le_config.json), optionally reordered."""

    notify_uuid: str = DSCORE_BUTTONS
    extra_notify_uuid: str | None = None  # a second notify characteristic listed first, if set


def dscore_service_collection(
    layout: DScoreLayout = DScoreLayout(),
) -> tuple[BleakGATTServiceCollection, BleakGATTCharacteristic, BleakGATTCharacteristic]:
    """A D-SCORE service built from real bleak classes; returns (collection, buttons/notify, player-type/write)."""
    collection = BleakGATTServiceCollection()
    service = BleakGATTService(None, 0x0020, DSCORE_SERVICE)
    collection.add_service(service)

    def characteristic(
        handle: int, uuid: str, properties: Sequence[CharacteristicPropertyName]
    ) -> BleakGATTCharacteristic:
        char = BleakGATTCharacteristic(None, handle, uuid.lower(), list(properties), lambda: 20, service)
        collection.add_characteristic(char)
        return char

    if layout.extra_notify_uuid:
        characteristic(0x0021, layout.extra_notify_uuid, ["read", "notify"])
    write = characteristic(0x0023, DSCORE_PLAYER_TYPE, ["write"])
    notify = characteristic(0x0026, layout.notify_uuid, ["read", "notify"])
    collection.add_descriptor(
        BleakGATTDescriptor(None, 0x0027, "00002902-0000-1000-8000-00805f9b34fb", notify)
    )
    characteristic(0x0029, DSCORE_POKE, ["write"])
    return collection, notify, write


@dataclass(frozen=True, slots=True)
class ChessnutLayout:
    """A Chessnut Air's service table (moveapiece's hardware capture): board reports, commands and replies."""

    command_properties: tuple[CharacteristicPropertyName, ...] = ("write", "write-without-response")
    max_write: int = 20  # max_write_without_response_size


def chessnut_service_collection(
    layout: ChessnutLayout = ChessnutLayout(),
) -> tuple[
    BleakGATTServiceCollection, BleakGATTCharacteristic, BleakGATTCharacteristic, BleakGATTCharacteristic
]:
    """A Chessnut board's services from real bleak classes; returns (collection, board, commands, replies)."""
    collection = BleakGATTServiceCollection()
    board_service = BleakGATTService(None, 0x0030, CHESSNUT_BOARD_SERVICE)
    command_service = BleakGATTService(None, 0x0040, CHESSNUT_COMMAND_SERVICE)
    collection.add_service(board_service)
    collection.add_service(command_service)

    def characteristic(
        service: BleakGATTService, handle: int, uuid: str, properties: Sequence[CharacteristicPropertyName]
    ) -> BleakGATTCharacteristic:
        char = BleakGATTCharacteristic(
            None, handle, uuid, list(properties), lambda: layout.max_write, service
        )
        collection.add_characteristic(char)
        return char

    board = characteristic(board_service, 0x0031, CHESSNUT_BOARD, ["notify"])
    collection.add_descriptor(
        BleakGATTDescriptor(None, 0x0032, "00002902-0000-1000-8000-00805f9b34fb", board)
    )
    commands = characteristic(command_service, 0x0041, CHESSNUT_COMMANDS, layout.command_properties)
    replies = characteristic(command_service, 0x0043, CHESSNUT_REPLIES, ["notify"])
    collection.add_descriptor(
        BleakGATTDescriptor(None, 0x0044, "00002902-0000-1000-8000-00805f9b34fb", replies)
    )
    return collection, board, commands, replies
