"""The golden wire vectors of testdata/wire: every valid frame decodes to
its JSON description and re-encodes byte for byte; every invalid one fails
with the error kind its description names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import zlink
from zlink import wire

from conftest import WIRE

VALID = sorted(WIRE.glob("*.bin"))
INVALID = sorted((WIRE / "invalid").glob("*.bin"))


def test_vectors_are_there() -> None:
    assert len(VALID) >= 50 and len(INVALID) >= 50


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_valid_vector_decodes_and_reencodes_byte_for_byte(path: Path) -> None:
    data = path.read_bytes()
    desc = json.loads(path.with_suffix(".json").read_text())
    frame = wire.decode(data)
    assert frame.command == desc["command"]
    assert frame.to_dict() == desc["frame"]
    assert wire.encode(frame) == data
    assert len(data) == desc["size"]
    assert data[3] == desc["command_number"]


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_invalid_vector_fails_with_its_kind(path: Path) -> None:
    desc = json.loads(path.with_suffix(".json").read_text())
    limits = desc["limits"]
    with pytest.raises(zlink.WireError) as caught:
        wire.decode(
            path.read_bytes(),
            max_object_id_bytes=limits["max_object_id_bytes"],
            max_payload_bytes=limits["max_payload_bytes"],
            max_state_bytes=limits.get("max_state_bytes", 16 << 20),
        )
    assert caught.value.kind == desc["error"]["kind"]
    assert isinstance(caught.value, ValueError)


def test_runtime_drops_an_invalid_frame() -> None:
    rt = zlink.Runtime(zlink.NodeIdentity("main", 1))
    dropped = rt.on_frame(2, b"ZM\x01\x01")
    assert isinstance(dropped, zlink.Dropped)
    assert rt.stats()["follow"]["frames_dropped"] == 1


def test_frames_compare_by_value() -> None:
    data = VALID[0].read_bytes()
    assert wire.decode(data) == wire.decode(data)
    assert wire.WIRE_VERSION == 2
