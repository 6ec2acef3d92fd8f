"""zlink: the routing core of the zlink virtual-actor framework.

One :class:`Runtime` per MeshNode process resolves Spot/Actor global IDs to
their current owner through a positive route cache backed by a shared
Location Store (:class:`MemoryStore` or :class:`RedisStore`), and decides what
to do with every frame that arrives. The host moves the bytes.

Results are immutable objects you ``match`` on::

    match rt.resolve("actor", "user-42"):
        case ReadyRoute(mesh, node, fence): ...
        case Missing(): ...
        case Unavailable(reason): ...
        case StoreFailure(kind, error): ...
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import Literal, Self, Union

from ._errors import (
    ClosedError,
    ConfigError,
    ForkedRuntimeError,
    InputError,
    LifecycleError,
    RelocationError,
    ReplyRouteError,
    SessionError,
    StoreError,
    WireError,
    ZlinkError,
)
from . import _zlink
from ._zlink import (
    ActorRoute,
    Binding,
    BindingRoute,
    BindRefused,
    Bound,
    Cancelled,
    ColdActivation,
    Completed,
    Completion,
    Deliver,
    Dropped,
    Ended,
    Error,
    ForeignSender,
    Held,
    OwnershipLost,
    Ignored,
    Late,
    ManualClock,
    MemoryStore,
    MetricFamily,
    MetricSample,
    Missing,
    NodeIdentity,
    NodeRef,
    NotFound,
    Notice,
    NoticeToken,
    Operation,
    Outbound,
    OwnedObject,
    PeerDescriptor,
    PeerIntent,
    PeerRefused,
    PeerReplacement,
    Pushed,
    ReadyRoute,
    RedisStore,
    Registration,
    Reject,
    Relay,
    RelayRefused,
    Relocation,
    RelocationAborted,
    RelocationAborting,
    RelocationCommitDue,
    RelocationCommitRetry,
    RelocationCommitted,
    RelocationCutover,
    RelocationFailed,
    RelocationHandedOff,
    RelocationIdentity,
    RelocationIgnored,
    RelocationRestore,
    RelocationStarted,
    Reply,
    RouteEnd,
    RouteFence,
    RouteRefreshed,
    RoutingConfig,
    Sealed,
    Send,
    SessionClosed,
    SessionDeliver,
    SessionHeld,
    SessionRef,
    SessionSent,
    Shutdown,
    SpotExecution,
    StoreFailure,
    Submitted,
    SystemClock,
    Timeout,
    Unavailable,
)
from . import wire

__version__: str = _zlink.__version__

Kind = Literal["spot", "actor"]
Resolution = Union[ReadyRoute, Missing, Unavailable, StoreFailure]

_log_pump: threading.Thread | None = None
_log_pump_lock = threading.Lock()


def _pump_logs() -> None:
    while True:
        records, dropped = _zlink._log_take(200)
        for level, target, message in records:
            name = "zlink." + target.removeprefix("zlink_core").strip(":").replace("::", ".")
            logging.getLogger(name.rstrip(".")).log(level, "%s", message)
        if dropped:
            logging.getLogger("zlink").warning("%d core log records dropped", dropped)


def forward_logs(level: int | None = None) -> None:
    """Forwards the core's log events at ``level`` and above (default: the
    ``"zlink"`` logger's effective level) to :mod:`logging`, under
    ``"zlink.<module>"`` loggers. Events are queued by the core (never
    blocking it, never taking the GIL there) and logged from a daemon
    thread, so a handler may call back into a Runtime. Below the level
    nothing is formatted. ``forward_logs(logging.CRITICAL + 1)`` stops."""
    global _log_pump
    if level is None:
        level = logging.getLogger("zlink").getEffectiveLevel()
    _zlink._log_level(level)
    with _log_pump_lock:
        if _log_pump is None or not _log_pump.is_alive():
            _log_pump = threading.Thread(target=_pump_logs, name="zlink-logs", daemon=True)
            _log_pump.start()


def _after_fork_in_child() -> None:
    global _log_pump, _log_pump_lock
    _zlink._after_fork_in_child()
    # The pump thread is not in the child: start one again if one ran.
    _log_pump_lock = threading.Lock()
    if _log_pump is not None:
        _log_pump = threading.Thread(target=_pump_logs, name="zlink-logs", daemon=True)
        _log_pump.start()


# A child of fork() has none of the parent's threads: objects made before the
# fork refuse to run there (ForkedRuntimeError); new ones work.
os.register_at_fork(after_in_child=_after_fork_in_child)


def _settle(future: asyncio.Future[Resolution], value: object, error: object) -> None:
    if future.cancelled():
        return
    if isinstance(error, BaseException):
        future.set_exception(error)
    else:
        future.set_result(value)  # type: ignore[arg-type]


class Runtime(_zlink.Runtime):
    """The routing core of one MeshNode. Thread-safe; one per process."""

    __slots__ = ()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        """Closes the runtime (see ``close``); an exception goes on."""
        self.close()

    async def resolve_async(self, kind: Kind, id: str) -> Resolution:
        """``resolve`` as an awaitable on the running asyncio loop: a cache
        hit returns at once; a store read never blocks the loop."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Resolution] = loop.create_future()

        def done(value: object, error: object) -> None:
            loop.call_soon_threadsafe(_settle, future, value, error)

        hit = self._resolve_start(kind, id, done)
        if hit is not None:
            return hit
        return await future


__all__ = [
    "ActorRoute",
    "BindRefused",
    "Binding",
    "BindingRoute",
    "Bound",
    "Cancelled",
    "ClosedError",
    "ColdActivation",
    "Completed",
    "Completion",
    "ConfigError",
    "Deliver",
    "Dropped",
    "Ended",
    "Error",
    "ForeignSender",
    "ForkedRuntimeError",
    "Held",
    "OwnershipLost",
    "Ignored",
    "InputError",
    "Kind",
    "Late",
    "LifecycleError",
    "ManualClock",
    "MemoryStore",
    "MetricFamily",
    "MetricSample",
    "Missing",
    "NodeIdentity",
    "NodeRef",
    "NotFound",
    "Notice",
    "NoticeToken",
    "Operation",
    "Outbound",
    "OwnedObject",
    "PeerDescriptor",
    "PeerIntent",
    "PeerRefused",
    "PeerReplacement",
    "Pushed",
    "ReadyRoute",
    "RedisStore",
    "Registration",
    "Reject",
    "Relay",
    "RelayRefused",
    "Relocation",
    "RelocationAborted",
    "RelocationAborting",
    "RelocationCommitDue",
    "RelocationCommitRetry",
    "RelocationCommitted",
    "RelocationCutover",
    "RelocationError",
    "RelocationFailed",
    "RelocationHandedOff",
    "RelocationIdentity",
    "RelocationIgnored",
    "RelocationRestore",
    "RelocationStarted",
    "Reply",
    "ReplyRouteError",
    "Resolution",
    "RouteEnd",
    "RouteFence",
    "RouteRefreshed",
    "RoutingConfig",
    "Runtime",
    "Sealed",
    "Send",
    "SessionClosed",
    "SessionDeliver",
    "SessionError",
    "SessionHeld",
    "SessionRef",
    "SessionSent",
    "Shutdown",
    "SpotExecution",
    "StoreError",
    "StoreFailure",
    "Submitted",
    "SystemClock",
    "Timeout",
    "Unavailable",
    "WireError",
    "ZlinkError",
    "forward_logs",
    "wire",
]
