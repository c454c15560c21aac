"""HTTP to the Promptline server, with ``urllib.request`` (no dependency) and retries.

Retries are for failures that say nothing about the request itself: no connection, a timeout, a
5xx, a 429 (after its ``Retry-After``). Other 4xx answers are the server's verdict and are raised at
once. A write carries one ``Idempotency-Key`` for all of its attempts, so an attempt whose answer
was lost and is sent again is stored once; the caller makes the key (see ``request``).
"""

from __future__ import annotations

import email.utils
import http.client
import json
import random
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from email.message import Message
from typing import Any, Callable, Dict, Mapping, Optional

from ._evaluate import encode_json
from .errors import PromptlineApiError, PromptlineConnectionError, PromptlineError, validation_error

USER_AGENT = "promptline-python/0.1.0"

#: Backoff before retry n (0-based): BASE * 2**n, at most CAP, each with jitter.
_BACKOFF_BASE = 0.1
_BACKOFF_CAP = 5.0
#: A Retry-After longer than this is not waited for: the error is raised instead (as the JavaScript client does).
_MAX_RETRY_AFTER = 10.0


@dataclass
class Response:
    status: int
    #: Case-insensitive (an ``http.client.HTTPMessage``): ``headers.get("etag")``.
    headers: Message
    body: Any  # parsed JSON, or None for an empty body


class _Retryable(Exception):
    """An attempt that failed in a way worth another try; ``error`` is what to raise if none is left."""

    def __init__(self, error: PromptlineError, retry_after: Optional[float] = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after


def _retry_after(value: Optional[str]) -> Optional[float]:
    """``Retry-After`` as seconds: a number of seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def is_transient(error: BaseException) -> bool:
    """A failure that says nothing about the request: no answer, a 5xx, a 429. Worth a retry, or a fallback."""
    if isinstance(error, PromptlineConnectionError):
        return True
    return isinstance(error, PromptlineApiError) and error.status is not None and (error.status >= 500 or error.status == 429)


def _detail(raw: bytes) -> Any:
    """The ``detail`` of an error answer, or its text when it is not the usual JSON."""
    try:
        parsed = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return raw.decode("utf-8", "replace")[:1000] or None
    return parsed.get("detail") if isinstance(parsed, dict) and "detail" in parsed else parsed


class Transport:
    """One server and key; thread-safe (every request opens its own connection)."""

    def __init__(self, base_url: str, api_key: str, timeout: float, max_retries: int, sleep: Callable[[float], None] = time.sleep) -> None:
        self._base = base_url.rstrip("/")
        self.__key = api_key
        self.timeout = timeout
        self.max_retries = max(0, int(max_retries))
        self._sleep = sleep
        self._opener = urllib.request.build_opener()

    def __repr__(self) -> str:
        return f"Transport({self._base!r})"

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        timeout: Optional[float] = None,
        idempotency_key: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
        retries: Optional[int] = None,
    ) -> Response:
        """Sends a request, retrying transient failures; answers 2xx and 304, raises PromptlineError otherwise.

        ``body`` is written once (JSON), so every attempt sends the same bytes as the first, under
        the same ``idempotency_key``. Raises TypeError when ``body`` is not JSON-serialisable.
        """
        data = None if body is None else encode_json(body)
        allowed = self.max_retries if retries is None else retries
        attempt = 0
        while True:
            try:
                return self._once(method, path, data, timeout or self.timeout, idempotency_key, headers)
            except _Retryable as failure:
                if attempt >= allowed:
                    raise failure.error from None
                delay = min(_BACKOFF_CAP, _BACKOFF_BASE * 2**attempt) * (0.5 + random.random() / 2)
                if failure.retry_after is not None:
                    if failure.retry_after > _MAX_RETRY_AFTER:
                        raise failure.error from None
                    delay = max(delay, failure.retry_after)
                self._sleep(delay)
                attempt += 1

    def _once(
        self, method: str, path: str, data: Optional[bytes], timeout: float, idempotency_key: Optional[str], extra: Optional[Mapping[str, str]]
    ) -> Response:
        what = f"{method} {path}"
        headers: Dict[str, str] = {"X-API-Key": self.__key, "Accept": "application/json", "User-Agent": USER_AGENT}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        if extra:
            headers.update(extra)
        request = urllib.request.Request(self._base + path, data=data, method=method, headers=headers)
        try:
            with self._opener.open(request, timeout=timeout) as answer:
                raw = answer.read()
                return Response(answer.status, answer.headers, json.loads(raw.decode("utf-8")) if raw else None)
        except urllib.error.HTTPError as error:
            status = error.code
            try:
                raw = error.read()
            except (OSError, http.client.HTTPException):
                raw = b""
            finally:
                error.close()
            if status == 304:
                return Response(304, error.headers, None)
            detail = _detail(raw)
            if status == 422 and isinstance(detail, list):
                raise validation_error(what, detail) from None
            retry_after = _retry_after(error.headers.get("Retry-After"))
            api_error = PromptlineApiError(f"{what} answered {status}: {detail}", status, detail, retry_after)
            if is_transient(api_error):
                raise _Retryable(api_error, retry_after) from None
            raise api_error from None
        except (socket.timeout, TimeoutError) as error:
            raise _Retryable(PromptlineConnectionError(f"{what}: timed out after {timeout} s")) from error
        except urllib.error.URLError as error:
            reason = error.reason
            message = "timed out" if isinstance(reason, (socket.timeout, TimeoutError)) else f"could not connect: {reason}"
            raise _Retryable(PromptlineConnectionError(f"{what}: {message}")) from error
        except (OSError, http.client.HTTPException) as error:
            # The connection broke before the whole answer came: reset, closed early, a cut body.
            raise _Retryable(PromptlineConnectionError(f"{what}: connection lost ({type(error).__name__}: {error})")) from error
        except ValueError as error:
            # A 2xx whose body is not JSON: not a Promptline answer; retrying will not change it.
            raise PromptlineError(f"{what}: the answer is not JSON ({error})") from None
