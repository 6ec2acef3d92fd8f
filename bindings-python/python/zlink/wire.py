"""The strict frame codec (``docs/wire.md``): ``decode(bytes) -> Frame``,
``encode(Frame) -> bytes``. ``Frame.to_dict()`` describes a frame exactly as
the ``frame`` field of the golden vectors in ``testdata/wire/*.json``.
Invalid bytes raise :class:`zlink.WireError` whose ``kind`` names the error.
"""

from __future__ import annotations

from ._zlink import WIRE_VERSION, Frame, _wire_decode, _wire_encode


def decode(
    data: bytes,
    *,
    max_object_id_bytes: int = 1024,
    max_payload_bytes: int = 1_048_576,
    max_state_bytes: int = 16_777_216,
) -> Frame:
    """Decodes one frame strictly; raises ``WireError`` (with ``kind``).
    ``max_state_bytes`` bounds a relocation Restore's state."""
    return _wire_decode(
        data,
        max_object_id_bytes=max_object_id_bytes,
        max_payload_bytes=max_payload_bytes,
        max_state_bytes=max_state_bytes,
    )


def encode(frame: Frame) -> bytes:
    """The frame's exact bytes."""
    return _wire_encode(frame)


__all__ = ["Frame", "decode", "encode", "WIRE_VERSION"]
