"""Users assigned locally, reported to the server (``POST /sdk/exposures``, docs/sdks.md).

The server counts a user in an experiment's results only once it has stored the assignment, so
every local assignment must reach it. Calls are gathered per (experiment, user, variant) with the
first and last time seen, and sent in batches of at most 1 000 by a background thread about once a
second, on ``close()``, and before an outcome is tracked.

Delivery is at least once, stored once: each batch is written once (its body and its
``Idempotency-Key`` fixed), and a batch that failed is sent again, unchanged, before any new one. The
queue is bounded; beyond it new users are dropped and counted, never blocking the application.
"""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

from ._transport import Transport, is_transient
from .errors import PromptlineApiError, PromptlineError

#: Items per ``POST /sdk/exposures`` (the server's maximum).
BATCH_SIZE = 1000
#: Distinct (experiment, user, variant) entries waiting at most; beyond, new ones are dropped and counted.
MAX_PENDING = 100_000


def iso_utc(seconds: float) -> str:
    """``2026-11-27T10:00:00.950Z``: ISO 8601 in UTC with milliseconds, as the server writes times."""
    whole = int(seconds)
    millis = int(round((seconds - whole) * 1000))
    if millis == 1000:
        whole, millis = whole + 1, 0
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + f".{millis:03d}Z"


@dataclass
class _Pending:
    calls: int
    first_seen: float
    last_seen: float


@dataclass
class _Batch:
    """A batch as first written: resent byte for byte under the same key until the server answers."""

    key: str
    items: List[Dict[str, object]]


class ExposureReporter:
    """The queue of exposures and their delivery. ``record`` is cheap and never blocks on the network."""

    def __init__(
        self,
        transport: Transport,
        on_error: Callable[[BaseException], None],
        max_pending: int = MAX_PENDING,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._transport = transport
        self._on_error = on_error
        self._max_pending = max_pending
        self._clock = clock
        self._lock = threading.Lock()  # guards the queue and the counters
        self._send_lock = threading.Lock()  # one delivery at a time, so batches go out in order
        self._queue: Dict[Tuple[str, str, str], _Pending] = {}
        self._failed: Optional[_Batch] = None
        self.sent = 0
        self.dropped = 0

    def record(self, experiment_id: str, user_id: str, variant: str) -> None:
        """One call served to a user assigned locally."""
        now = self._clock()
        key = (experiment_id, user_id, variant)
        with self._lock:
            pending = self._queue.get(key)
            if pending is not None:
                pending.calls += 1
                pending.last_seen = now
            elif len(self._queue) >= self._max_pending:
                self.dropped += 1
            else:
                self._queue[key] = _Pending(1, now, now)

    def pending(self) -> int:
        """Entries not yet acknowledged by the server (those of a failed batch included)."""
        with self._lock:
            return len(self._queue) + (len(self._failed.items) if self._failed else 0)

    def _next_batch(self) -> Optional[_Batch]:
        with self._lock:
            if self._failed is not None:
                return self._failed
            if not self._queue:
                return None
            items: List[Dict[str, object]] = []
            for key in list(self._queue)[:BATCH_SIZE]:
                pending = self._queue.pop(key)
                items.append(
                    {
                        "experiment_id": key[0],
                        "external_user_id": key[1],
                        "variant": key[2],
                        "calls": pending.calls,
                        "first_seen": iso_utc(pending.first_seen),
                        "last_seen": iso_utc(pending.last_seen),
                    }
                )
            # Held as failed until acknowledged: a crash of this thread mid-send loses nothing.
            self._failed = _Batch(uuid.uuid4().hex, items)
            return self._failed

    def flush(self, deadline: Optional[float] = None, retries: Optional[int] = None) -> bool:
        """Sends everything queued now, batch after batch; True once the queue is empty.

        Stops (False) at the first batch that could not be delivered, which is kept to be sent
        again first, or once ``deadline`` (a ``time.monotonic()`` value) has passed. ``retries``
        overrides the transport's retries of each batch.
        """
        wait = -1.0 if deadline is None else max(0.0, deadline - time.monotonic())
        if not self._send_lock.acquire(timeout=wait):
            return False
        try:
            while True:
                if deadline is not None and time.monotonic() >= deadline:
                    return self.pending() == 0
                batch = self._next_batch()
                if batch is None:
                    return True
                try:
                    self._transport.request("POST", "/sdk/exposures", {"exposures": batch.items}, idempotency_key=batch.key, retries=retries)
                except PromptlineApiError as error:
                    if is_transient(error):
                        self._on_error(error)
                        return False
                    # The server refused the batch itself (a 4xx): sending it again cannot help.
                    with self._lock:
                        self._failed = None
                        self.dropped += len(batch.items)
                    self._on_error(error)
                    continue
                except PromptlineError as error:
                    self._on_error(error)
                    return False
                with self._lock:
                    self._failed = None
                    self.sent += len(batch.items)
        finally:
            self._send_lock.release()
