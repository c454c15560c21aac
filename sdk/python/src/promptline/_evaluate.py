"""What ``POST /get_prompt`` would answer, decided in-process from the bundle (docs/sdks.md).

:func:`evaluate` is pure: no I/O, no clock, no shared state. It answers one of

- :class:`Answer`: the ``/get_prompt`` body, and the exposure to report when a user was assigned;
- :class:`Invalid`: the server's 422 ``detail``, and the exposure when the user was assigned
  before the render failed (the server assigns before it renders, so the user was exposed);
- :class:`Remote`: only the server can answer this request as the server would.

Anything the client cannot reproduce exactly is :class:`Remote`: a prompt or version not in the
bundle, a ``remote_only`` experiment, a request the server would refuse for its shape (its own 4xx
is the answer), and an error whose echo the server would shorten.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

from ._assign import assign
from ._bundle import BundleIndex, Limits, Version
from ._declarations import apply_checks
from ._jsvalue import as_javascript_sees_it, has_surrogate, join_surrogates, js_stringify, utf8_length, utf16_length
from ._render import budget_reason, join_messages, render_version

#: Nesting a local answer allows (``inputs`` is level 1); the server takes 100 levels of body.
MAX_DEPTH = 60
#: The server shortens long errors (strings over 1 000 characters, echoes over 4 KiB, more than 100
#: items or 32 KiB). Rather than reproduce its cuts, an error is answered locally only well within
#: them, by one rule every client applies alike (docs/sdks.md): at most 50 items and 8 192 bytes of
#: JSON, each echo at most 2 048 bytes, no string (or key) longer than 500 UTF-16 units.
_LOCAL_ERROR_ITEMS = 50
_LOCAL_ERROR_BYTES = 8192
_LOCAL_ECHO_BYTES = 2048
_LOCAL_STRING_UNITS = 500
#: Python writes integers of any size; the server refuses a body with more digits than CPython reads (400).
_TOO_MANY_DIGITS = 10**4300
#: The most bytes one character takes in a JSON body (``\\u001f``, or ``\\ud83d\\ude00`` for one astral character: 12).
_MAX_BYTES_PER_CHAR = 12
#: A generous bound on the bytes of a number or literal in JSON (``-1.7976931348623157e+308`` is 24).
_NUMBER_BYTES = 32
_SCALARS = (str, int, float, bool, type(None))


class _Absent:
    """``external_user_id`` not sent at all (None is a JSON null sent): the server's echo differs."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()


@dataclass(frozen=True)
class Exposure:
    """A user this call assigned: the server hears of it through ``POST /sdk/exposures``."""

    experiment_id: str
    external_user_id: str
    variant: str


@dataclass(frozen=True)
class Answer:
    body: Dict[str, Any]
    exposure: Optional[Exposure]


@dataclass(frozen=True)
class Invalid:
    detail: List[Dict[str, Any]]
    exposure: Optional[Exposure]
    status: int = 422


@dataclass(frozen=True)
class Remote:
    reason: str


Evaluation = Union[Answer, Invalid, Remote]


def encode_json(value: Any) -> bytes:
    """How the client writes a JSON body: UTF-8 as is, or ASCII escapes when a lone surrogate cannot be UTF-8.

    ``NaN`` and ``Infinity`` are written as Python writes them, and the server reads them as Python does.
    """
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, separators=(",", ":")).encode("ascii")


def _fast_inputs(inputs: Mapping[Any, Any]) -> Optional[int]:
    """For flat inputs of plain scalars, an upper bound of their JSON size; None when they need the slow path."""
    size = 2
    for key, value in inputs.items():
        if type(key) is not str or type(value) not in _SCALARS:
            return None
        if "\x00" in key or has_surrogate(key):
            return None
        size += len(key) * _MAX_BYTES_PER_CHAR + 4
        if type(value) is str:
            if "\x00" in value or has_surrogate(value):
                return None
            size += len(value) * _MAX_BYTES_PER_CHAR + 2
        elif type(value) is int and value.bit_length() > 64:
            if abs(value) >= _TOO_MANY_DIGITS:
                return None
            size += len(str(value))
        else:
            size += _NUMBER_BYTES
    return size


def _nul_or_deep(value: Any, depth: int) -> bool:
    """True when a string or key holds NUL (the server refuses it) or containers nest beyond MAX_DEPTH."""
    t = type(value)
    if t is str:
        return "\x00" in value
    if t is int:
        return bool(abs(value) >= _TOO_MANY_DIGITS)
    if t is dict:
        if depth > MAX_DEPTH:
            return True
        return any("\x00" in k or _nul_or_deep(v, depth + 1) for k, v in value.items())
    if t is list:
        if depth > MAX_DEPTH:
            return True
        return any(_nul_or_deep(v, depth + 1) for v in value)
    return False


def wire_inputs(inputs: Any) -> Union[Tuple[Dict[str, Any], Optional[int]], str]:
    """The inputs as the server will hold them and, for flat inputs, a bound of their JSON size;
    or why only the server can answer (a string)."""
    if inputs is None:
        return {}, 2
    if type(inputs) is dict:
        bound = _fast_inputs(inputs)
        if bound is not None:
            return inputs, bound
    try:
        wire = json.loads(json.dumps(inputs))
    except (TypeError, ValueError, RecursionError, OverflowError):
        return "inputs that JSON cannot carry"
    if type(wire) is not dict:
        return "inputs that are not a JSON object"
    if _nul_or_deep(wire, 1):
        return "a NUL character, deep nesting or a huge integer in the inputs"
    return wire, None


def _body_fits(prompt_id: str, inputs: Any, user_id: Optional[str], bound: Optional[int], limit: int, sent_null: bool) -> bool:
    """Whether the request body, as the client would write it, is within the server's body limit.

    Measured only when a cheap upper bound does not already say so.
    """
    overhead = 64 + (len(prompt_id) + (len(user_id) if user_id is not None else 0)) * _MAX_BYTES_PER_CHAR
    if bound is None:
        # Escaped, the JSON is ASCII and at least as long as the UTF-8 text the client sends.
        bound = len(json.dumps(inputs))
    if bound + overhead <= limit:
        return True
    body = request_body(prompt_id, inputs, user_id)
    if sent_null:
        body["external_user_id"] = None
    return len(encode_json(body)) <= limit


def request_body(prompt_id: str, inputs: Any, user_id: Optional[str]) -> Dict[str, Any]:
    """The ``/get_prompt`` body the client sends: ``inputs`` always, ``external_user_id`` only when given."""
    body: Dict[str, Any] = {"prompt_id": prompt_id, "inputs": inputs if inputs is not None else {}}
    if user_id is not None:
        body["external_user_id"] = user_id
    return body


def _user_id_missing(experiment_id: str, prompt_id: str, echo_body: Dict[str, Any]) -> Dict[str, Any]:
    return {
        "type": "missing",
        "loc": ["body", "external_user_id"],
        "msg": "Field required",
        "input": echo_body,
        "ctx": {"reason": f"experiment {experiment_id} is running on prompt {prompt_id}"},
    }


def render_error(version_render: Any, limits: Limits, echo: Any) -> List[Dict[str, Any]]:
    """The 422 items of a failed render: the budget first, else one item per missing name in the order met."""
    if version_render.exceeded is not None:
        reason = budget_reason(version_render.exceeded, limits.render_max_bytes, limits.render_max_steps)
        return [{"type": "value_error", "loc": ["body", "inputs"], "msg": f"Value error, {reason}", "input": echo, "ctx": {"error": reason}}]
    return [{"type": "missing", "loc": ["body", "inputs", name], "msg": "Field required", "input": echo} for name in version_render.missing]


def _has_long_string(value: Any) -> bool:
    if isinstance(value, str):
        return utf16_length(value) > _LOCAL_STRING_UNITS
    if isinstance(value, dict):
        return any(utf16_length(k) > _LOCAL_STRING_UNITS or _has_long_string(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_long_string(v) for v in value)
    return False


def local_error_fits(detail: List[Dict[str, Any]]) -> bool:
    """Whether a 422 is well within the server's bounds, so the server would send it unchanged."""
    return (
        len(detail) <= _LOCAL_ERROR_ITEMS
        and utf8_length(js_stringify(detail)) <= _LOCAL_ERROR_BYTES
        and all(utf8_length(js_stringify(item.get("input"))) <= _LOCAL_ECHO_BYTES for item in detail)
        and not _has_long_string(detail)
    )


def answer_body(version: Version, contents: List[str], exposure: Optional[Exposure], prompt_version: Optional[int]) -> Dict[str, Any]:
    """The /get_prompt body for a rendered version: a chat prompt's messages joined into its text."""
    body: Dict[str, Any] = {
        "prompt_text": contents[0] if version.kind != "chat" else "",
        "variant_assigned": exposure.variant if exposure else None,
        "experiment_id": exposure.experiment_id if exposure else None,
        "prompt_version": prompt_version,
    }
    if version.kind == "chat":
        messages = [{"role": role, "content": content} for role, content in zip(version.roles, contents)]
        body["prompt_text"] = join_messages(messages)
        body["messages"] = messages
    return body


def _invalid(detail: List[Dict[str, Any]], exposure: Optional[Exposure]) -> Evaluation:
    if not local_error_fits(detail):
        return Remote("an error the server would shorten")
    return Invalid(detail, exposure)


def evaluate(index: Optional[BundleIndex], prompt_id: Any, inputs: Any = None, external_user_id: Any = ABSENT) -> Evaluation:
    """What the server would answer to ``POST /get_prompt`` with this request, or Remote.

    ``inputs`` None is sent as ``{}``; ``external_user_id`` ABSENT is not sent, None is sent as null
    (the same for the server, but its 422 echoes the body as sent).
    """
    if index is None:
        return Remote("no bundle")
    limits = index.limits
    if type(prompt_id) is not str:
        return Remote("a prompt_id that is not a string")
    prompt = index.prompts.get(prompt_id)
    if prompt is None:
        return Remote("the prompt is not in the bundle")
    if utf16_length(prompt_id) > limits.prompt_id_max_length:
        return Remote("a prompt_id longer than the server accepts")

    user_id: Optional[str] = None
    sent_null = external_user_id is None
    if external_user_id is not None and external_user_id is not ABSENT:
        if type(external_user_id) is not str:
            return Remote("an external_user_id that is not a string")
        user_id = join_surrogates(external_user_id)
        # A lone surrogate (what is left after joining pairs), as a NUL, is an id the server refuses.
        if "\x00" in user_id or has_surrogate(user_id) or utf16_length(user_id) > limits.external_user_id_max_length:
            return Remote("an external_user_id the server refuses")

    prepared = wire_inputs(inputs)
    if isinstance(prepared, str):
        return Remote(prepared)
    wire, bound = prepared
    if len(wire) > limits.inputs_max_entries:
        return Remote("more inputs than the server accepts")
    if not _body_fits(prompt_id, inputs, user_id, bound, limits.body_max_bytes, sent_null):
        return Remote("a body larger than the server accepts")

    version_number = prompt.served_version
    exposure: Optional[Exposure] = None
    experiment = prompt.experiment
    if experiment is not None:
        if experiment.remote_only:
            return Remote("an experiment only the server can assign")
        if user_id is None:
            sent: Dict[str, Any] = {"prompt_id": prompt_id, "inputs": wire}
            if sent_null:
                sent["external_user_id"] = None  # the body as sent: an explicit null is echoed
            echo_body = as_javascript_sees_it(sent)
            return _invalid([_user_id_missing(experiment.experiment_id, prompt_id, echo_body)], None)
        chosen = assign(experiment.seed, user_id, experiment.ranges)
        if chosen is not None:
            variant = experiment.variants[chosen]
            version_number = variant.version
            exposure = Exposure(experiment.experiment_id, user_id, variant.key)

    version: Optional[Version] = prompt.versions.get(version_number)
    if version is None:
        return Remote("a version missing from the bundle")
    if version.remote_only:
        return Remote("a typed variable this client cannot check")

    # Typed variables first, as the server checks them before it renders.
    if version.checks is not None:
        checked = apply_checks(version.checks, wire, as_javascript_sees_it)
        if checked is None:
            return Remote("a pattern checked on text only the server can match exactly")
        if isinstance(checked, list):
            return _invalid(checked, exposure)
        wire = checked

    rendered = render_version(version.templates, wire, limits.render_max_bytes, limits.render_max_steps)
    if rendered.exceeded is not None or rendered.missing:
        return _invalid(render_error(rendered, limits, as_javascript_sees_it(wire)), exposure)

    return Answer(answer_body(version, rendered.contents, exposure, version.version), exposure)
