"""The exception hierarchy of zlink, rooted at :class:`ZlinkError`.

Routing outcomes (``Missing``, ``Unavailable``, ``StoreFailure``, ``NotFound``
...) are *values* a call returns, never exceptions. Exceptions are for input
the core refuses, invalid configs, authority writes the store refused, and
frames that are not valid.

Wrong Python types (``resolve(1, b"x")``) raise the built-in ``TypeError``.
"""

from __future__ import annotations


class ZlinkError(Exception):
    """Base of every zlink exception. ``kind`` names the precise cause."""

    kind: str

    def __init__(self, message: str, kind: str = "") -> None:
        super().__init__(message)
        self.kind = kind


class ConfigError(ZlinkError, ValueError):
    """A RoutingConfig breaks a rule (e.g. the route cache must expire at
    least 5 s before Message Follow ends). Nothing was changed."""


class InputError(ZlinkError, ValueError):
    """An argument the core refuses: empty or too long ID, unknown kind,
    payload over the message bound, zero deadline. Fix the input."""


class StoreError(ZlinkError):
    """The Location Store could not be opened or asked (``kind``: Timeout,
    Unreachable, Config, Protocol)."""


class LifecycleError(ZlinkError):
    """An authority write did not happen (``kind``: AlreadyExists, NotFound,
    StaleGeneration, WrongState, NotLeaseHolder, LeaseExpired, NotOwned,
    NotACommittedMove, Store ...). Re-read and decide again."""


class WireError(ZlinkError, ValueError):
    """Bytes that are not a valid frame (``kind``: BadMagic, Truncated,
    UnsupportedVersion, UnknownCommand, FlagsNotAllowed, LengthMismatch,
    TooLong, Invalid, TrailingBytes)."""


class ReplyRouteError(ZlinkError, ValueError):
    """``reply()`` on a one-way message, or a reply over the message bound."""


class SessionError(ZlinkError):
    """A session call on an unknown or disconnected Session, an Actor it has
    no binding to, or a binding sealed for a relocation (``kind``:
    UnknownSession, Closing, NotBound, Sealed)."""


class RelocationError(ZlinkError):
    """A relocation call was refused; nothing changed (``kind``: NotOwned,
    TargetIsSelf, AlreadyRelocating, StateTooLarge, TooManySaved,
    ForeignOperation, NotRelocating, AfterRelayReady, Refused). For
    ``Refused``, ``refusal`` names why (e.g. AlreadyRelayReady); it is None
    otherwise. A bad ID or an oversized saved payload is an InputError."""

    refusal: str | None

    def __init__(self, message: str, kind: str = "", refusal: str | None = None) -> None:
        super().__init__(message, kind)
        self.refusal = refusal


class ForkedRuntimeError(ZlinkError):
    """This object was created in the parent of a ``fork()``: its threads do
    not exist in the child. Create a new Runtime in the child."""


class ClosedError(ZlinkError):
    """This object was closed (``Runtime.close()`` or the end of its ``with``
    block): it refuses every later call."""


__all__ = [
    "ZlinkError",
    "ConfigError",
    "InputError",
    "StoreError",
    "LifecycleError",
    "WireError",
    "ReplyRouteError",
    "SessionError",
    "RelocationError",
    "ForkedRuntimeError",
    "ClosedError",
]
