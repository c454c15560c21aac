"""The exceptions the client raises.

One base class, so an application can catch everything from Promptline at once, and three kinds
that call for different reactions: the server answered no (:class:`PromptlineApiError`, with the
422's items in :class:`PromptlineValidationError`), or no answer came at all
(:class:`PromptlineConnectionError`). Messages name the request and the server's detail, never the
API key.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional


class PromptlineError(Exception):
    """Anything that went wrong talking to Promptline.

    ``status`` is the HTTP status of the answer (None when there was none) and ``detail`` the
    answer's ``detail`` (a message, or a list of validation items).
    """

    def __init__(self, message: str, status: Optional[int] = None, detail: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.detail = detail

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r}, status={self.status!r})"


class PromptlineApiError(PromptlineError):
    """The server answered with an HTTP error: ``status``, its JSON ``detail``, and ``retry_after``
    (seconds, from a ``Retry-After`` header; None without one)."""

    status: int

    def __init__(self, message: str, status: int, detail: Any = None, retry_after: Optional[float] = None) -> None:
        super().__init__(message, status, detail)
        self.retry_after = retry_after


class PromptlineValidationError(PromptlineApiError):
    """A 422: ``errors`` lists the items (``type``, ``loc``, ``msg``, ``input``, and ``ctx`` for some).

    A local answer from the bundle raises the very items the server would have answered.
    """

    def __init__(self, message: str, errors: List[Dict[str, Any]]) -> None:
        super().__init__(message, 422, errors)
        self.errors = errors


class PromptlineConnectionError(PromptlineError):
    """No answer: the connection failed or timed out (after the retries). ``status`` is None."""

    def __init__(self, message: str) -> None:
        super().__init__(message, None, None)


def describe_items(items: List[Dict[str, Any]]) -> str:
    """A short, readable account of 422 items: ``body.inputs.name: Field required; …``."""
    parts = []
    for item in items[:5]:
        loc = ".".join(str(part) for part in item.get("loc", []))
        parts.append(f"{loc}: {item.get('msg')}" if loc else str(item.get("msg")))
    if len(items) > 5:
        parts.append(f"and {len(items) - 5} more")
    return "; ".join(parts)


def validation_error(what: str, items: List[Dict[str, Any]]) -> PromptlineValidationError:
    """The exception for a 422 answer to ``what`` (e.g. ``POST /get_prompt``)."""
    return PromptlineValidationError(f"{what} answered 422: {describe_items(items)}", items)
