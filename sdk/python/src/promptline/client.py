"""The Promptline client: ``get_prompt``, ``run_prompt``, ``track_outcome``.

In local mode (the default) ``get_prompt`` answers in-process from the server's bundle, exactly as
``POST /get_prompt`` would (docs/sdks.md, "How local mode works"), and reports the users it assigns;
the server is asked only for what the bundle cannot answer. Two daemon threads do the background
work: one loads the bundle and refreshes it, one reports exposures. ``run_prompt`` and
``track_outcome`` always go to the server.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import uuid
import weakref
from typing import Any, Callable, Dict, List, Mapping, Optional

from ._bundle import DEFAULT_LIMITS, BundleIndex, UnsupportedBundleFormat, Version, build_index
from ._evaluate import ABSENT, Answer, Invalid, Remote, evaluate, request_body
from ._exposures import ExposureReporter
from ._fallbacks import FallbackSpec, compile_fallbacks, render_fallback
from ._jsvalue import join_surrogates
from ._transport import Transport, is_transient
from .errors import PromptlineApiError, PromptlineConnectionError, PromptlineError, validation_error
from .results import OutcomeResult, PromptResult, RunResult

_log = logging.getLogger("promptline")

#: How often the exposure thread sends what it gathered.
_EXPOSURE_FLUSH_SECONDS = 1.0
_MODES = ("local", "remote")
_COUNTERS = ("bundle_hits", "server_calls", "fallbacks", "refreshes", "refresh_failures")

#: Local-mode clients not closed yet: closed at interpreter exit, so their queued exposures are sent.
_unclosed: "weakref.WeakSet[Promptline]" = weakref.WeakSet()


@atexit.register
def _close_unclosed() -> None:
    for client in list(_unclosed):
        client.close()


class Promptline:
    """A client of one Promptline server, with one API key (and so one project).

    Thread-safe: share one client across threads. Use it as a context manager, or call
    :meth:`close`, so that exposures still queued are sent.

    :param base_url: the server, e.g. ``"http://127.0.0.1:8000"``.
    :param api_key: a key of any role (``runtime`` is enough). Never written in errors or logs.
    :param timeout: seconds for each HTTP request but ``run_prompt``'s; also the longest
        ``get_prompt`` waits for the first bundle.
    :param run_timeout: seconds for ``run_prompt``, which waits for the model.
    :param mode: ``"local"`` answers ``get_prompt`` from the bundle; ``"remote"`` always asks the server.
    :param refresh_interval: seconds between bundle refreshes (local mode).
    :param fallbacks: ``{prompt_id: "template"}`` or ``{prompt_id: [{"role": …, "content": "template"}]}``,
        answered when neither the bundle nor the server can answer (no connection, a timeout, a 5xx,
        a 429 after the retries).
    :param on_error: called with each error the client absorbs instead of raising: a failed bundle
        refresh, a failed exposure report, a server failure answered by a fallback.
    :param max_retries: retries of a request after a connection failure, a timeout, a 5xx or a 429.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = 5.0,
        run_timeout: float = 120.0,
        mode: str = "local",
        refresh_interval: float = 10.0,
        fallbacks: Optional[Mapping[str, FallbackSpec]] = None,
        on_error: Optional[Callable[[BaseException], None]] = None,
        max_retries: int = 2,
    ) -> None:
        if mode not in _MODES:
            raise ValueError(f"mode must be 'local' or 'remote', not {mode!r}")
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError("base_url must be an http:// or https:// URL")
        if not isinstance(api_key, str) or not api_key:
            raise ValueError("api_key must be a non-empty string")
        if timeout <= 0 or run_timeout <= 0 or refresh_interval <= 0:
            raise ValueError("timeout, run_timeout and refresh_interval must be positive")
        self._base_url = base_url.rstrip("/")
        self._mode = mode
        self._timeout = float(timeout)
        self._run_timeout = float(run_timeout)
        self._refresh_interval = float(refresh_interval)
        self._on_error = on_error
        # Parsed now: a fallback the server would refuse is a mistake to report at start, not in an outage.
        self._fallbacks: Dict[str, Version] = compile_fallbacks(fallbacks)
        self._transport = Transport(self._base_url, api_key, self._timeout, max_retries)

        self._lock = threading.Lock()
        self._counts: Dict[str, int] = dict.fromkeys(_COUNTERS, 0)
        self._index: Optional[BundleIndex] = None  # replaced whole, never modified: read without a lock
        self._etag: Optional[str] = None
        self._confirmed_at: Optional[float] = None  # monotonic time the server last confirmed the bundle
        self._first_load = threading.Event()
        self._stop = threading.Event()
        self._closed = False
        self._reporter = ExposureReporter(self._transport, self._report_error)
        self._threads: List[threading.Thread] = []
        if mode == "local":
            self._threads.append(threading.Thread(target=self._bundle_loop, name="promptline-bundle", daemon=True))
            self._threads.append(threading.Thread(target=self._exposure_loop, name="promptline-exposures", daemon=True))
            for thread in self._threads:
                thread.start()
            _unclosed.add(self)
        else:
            self._first_load.set()

    def __repr__(self) -> str:
        return f"Promptline({self._base_url!r}, mode={self._mode!r})"

    def __enter__(self) -> "Promptline":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # -- the runtime calls --------------------------------------------------------------------

    def get_prompt(self, prompt_id: str, inputs: Optional[Mapping[str, Any]] = None, external_user_id: Optional[str] = None) -> PromptResult:
        """The prompt rendered with ``inputs``, for ``external_user_id`` (required while an experiment runs).

        Raises :class:`PromptlineValidationError` for what the server answers 422 (a missing input,
        no user while an experiment runs), :class:`PromptlineApiError` for other refusals (404
        unknown prompt, 401 bad key), :class:`PromptlineConnectionError` when the server cannot be
        reached and the prompt has no fallback, and TypeError for inputs JSON cannot carry.
        """
        self._ensure_open()
        if self._mode == "local":
            if not self._first_load.is_set():
                self._first_load.wait(self._timeout)
            # The client sends no external_user_id when it is None: so it is absent, not null.
            evaluation = evaluate(self._index, prompt_id, inputs, ABSENT if external_user_id is None else external_user_id)
            if not isinstance(evaluation, Remote):
                self._count("bundle_hits")
                if evaluation.exposure is not None:
                    # Before the answer, as the server stores the assignment before it renders.
                    exposure = evaluation.exposure
                    self._reporter.record(exposure.experiment_id, exposure.external_user_id, exposure.variant)
                if isinstance(evaluation, Invalid):
                    raise validation_error("POST /get_prompt", evaluation.detail)
                return PromptResult.from_body(evaluation.body, "bundle")
        return self._ask_server(prompt_id, inputs, external_user_id)

    def run_prompt(self, prompt_id: str, inputs: Mapping[str, str], external_user_id: Optional[str] = None) -> RunResult:
        """Renders the prompt and runs it on its model (``POST /run_prompt``); waits up to ``run_timeout``.

        Retried after a lost answer under one Idempotency-Key, so the run is stored (and paid) once.
        """
        self._ensure_open()
        body = request_body(prompt_id, inputs, _wire_user(external_user_id))
        response = self._transport.request("POST", "/run_prompt", body, timeout=self._run_timeout, idempotency_key=uuid.uuid4().hex)
        return RunResult.from_body(response.body)

    def track_outcome(
        self,
        prompt_id: str,
        *,
        prompt_run_id: Optional[str] = None,
        external_user_id: Optional[str] = None,
        event_type: Optional[str] = None,
        label: Optional[str] = None,
        value: Optional[str] = None,
        numeric_value: Optional[float] = None,
        is_success: Optional[bool] = None,
        source: Optional[str] = None,
        metadata: Optional[Mapping[str, Any]] = None,
    ) -> OutcomeResult:
        """Records an outcome (``POST /track_outcome``); only the fields given are sent.

        Exposures still queued are sent first, so that an outcome by user is attributed to the
        variant this client assigned the user. Stored once, even when an answer is lost and retried.
        """
        self._ensure_open()
        body: Dict[str, Any] = {"prompt_id": prompt_id}
        given = {
            "prompt_run_id": prompt_run_id,
            "external_user_id": _wire_user(external_user_id),
            "event_type": event_type,
            "label": label,
            "value": value,
            "numeric_value": numeric_value,
            "is_success": is_success,
            "source": source,
            "metadata": metadata,
        }
        body.update((name, field) for name, field in given.items() if field is not None)
        if self._mode == "local":
            self._reporter.flush(deadline=time.monotonic() + self._timeout)
        response = self._transport.request("POST", "/track_outcome", body, idempotency_key=uuid.uuid4().hex)
        return OutcomeResult.from_body(response.body)

    # -- state ---------------------------------------------------------------------------------

    def ready(self, timeout: Optional[float] = None) -> bool:
        """Waits (at most ``timeout`` seconds; None: until it settles) for the first bundle load.

        True when a bundle is loaded; False when the load failed or is still under way, and always
        in remote mode, which loads no bundle.
        """
        if self._mode == "remote":
            return False
        self._first_load.wait(timeout)
        return self._index is not None

    def flush(self, timeout: Optional[float] = None) -> bool:
        """Sends the exposures queued so far now; True once none is left. Waits at most ``timeout`` seconds."""
        limit = self._timeout if timeout is None else timeout
        return self._reporter.flush(deadline=time.monotonic() + limit)

    def stats(self) -> Dict[str, Any]:
        """Counters since start: how calls were answered, bundle refreshes, exposure delivery.

        ``bundle_age_seconds`` is the time since the server last confirmed the bundle (a load or a
        304), None while no bundle is loaded.
        """
        with self._lock:
            counts: Dict[str, Any] = dict(self._counts)
            confirmed = self._confirmed_at
        counts["bundle_age_seconds"] = None if confirmed is None or self._index is None else time.monotonic() - confirmed
        counts["exposures_pending"] = self._reporter.pending()
        counts["exposures_sent"] = self._reporter.sent
        counts["exposures_dropped"] = self._reporter.dropped
        return counts

    def close(self) -> None:
        """Stops the background threads and sends the exposures still queued (waiting about ``timeout`` at most).

        Idempotent. The client cannot be used afterwards. A client still open when the interpreter
        exits is closed then (``atexit``), but a process killed outright loses what was queued.
        """
        if self._closed:
            return
        self._closed = True
        _unclosed.discard(self)
        self._stop.set()
        for thread in self._threads:
            thread.join(self._timeout + 1)
        if self._reporter.pending():
            self._reporter.flush(deadline=time.monotonic() + self._timeout, retries=0)

    # -- internals -----------------------------------------------------------------------------

    def _ensure_open(self) -> None:
        if self._closed:
            raise PromptlineError("this Promptline client is closed")

    def _count(self, name: str) -> None:
        with self._lock:
            self._counts[name] += 1

    def _report_error(self, error: BaseException) -> None:
        _log.debug("promptline: %s", error)
        if self._on_error is not None:
            try:
                self._on_error(error)
            except Exception:  # noqa: BLE001 - a faulty callback must not stop the background work
                _log.exception("promptline: on_error raised")

    def _ask_server(self, prompt_id: str, inputs: Any, external_user_id: Any) -> PromptResult:
        self._count("server_calls")
        body = request_body(prompt_id, inputs, _wire_user(external_user_id))
        try:
            response = self._transport.request("POST", "/get_prompt", body)
        except (PromptlineConnectionError, PromptlineApiError) as error:
            # Only an outage is answered by a fallback (no answer, a 5xx, a 429 after the retries);
            # another 4xx (a wrong key, an unknown prompt) is a bug to see, not an outage to hide.
            fallback = self._fallbacks.get(prompt_id) if isinstance(prompt_id, str) else None
            if fallback is None or not is_transient(error):
                raise
            return self._answer_fallback(fallback, inputs, error)
        return PromptResult.from_body(response.body, "server")

    def _answer_fallback(self, fallback: Version, inputs: Any, cause: PromptlineError) -> PromptResult:
        self._count("fallbacks")
        self._report_error(cause)
        index = self._index
        evaluation = render_fallback(fallback, inputs, index.limits if index is not None else DEFAULT_LIMITS)
        if isinstance(evaluation, Invalid):
            raise validation_error("POST /get_prompt (fallback)", evaluation.detail)
        assert isinstance(evaluation, Answer)
        return PromptResult.from_body(evaluation.body, "fallback")

    def _bundle_loop(self) -> None:
        try:
            self._refresh()
        finally:
            self._first_load.set()
        while not self._stop.wait(self._refresh_interval):
            self._refresh()

    def _refresh(self) -> None:
        """One load of the bundle: a new one replaces the index, a 304 confirms it, a failure keeps it."""
        headers = {"If-None-Match": self._etag} if self._etag else None
        try:
            response = self._transport.request("GET", "/sdk/bundle", headers=headers, retries=0)
            if response.status != 304:
                etag = response.headers.get("etag")
                try:
                    index: Optional[BundleIndex] = build_index(response.body)
                except UnsupportedBundleFormat as error:
                    # A format from a newer server: its semantics are unknown, so the server answers.
                    index = None
                    self._report_error(PromptlineError(str(error)))
                self._index = index
                self._etag = etag
            with self._lock:
                self._counts["refreshes"] += 1
                self._confirmed_at = time.monotonic()
        except Exception as error:  # noqa: BLE001 - stale-while-revalidate: any failure keeps the last bundle
            self._count("refresh_failures")
            self._report_error(error)

    def _exposure_loop(self) -> None:
        while not self._stop.wait(_EXPOSURE_FLUSH_SECONDS):
            try:
                self._reporter.flush(deadline=time.monotonic() + self._timeout)
            except Exception as error:  # noqa: BLE001 - the thread must outlive any one failure
                self._report_error(error)


def _wire_user(external_user_id: Any) -> Any:
    """The user id as sent: surrogate pairs joined, so the server hashes what the bundle hashed."""
    return join_surrogates(external_user_id) if isinstance(external_user_id, str) else external_user_id
