"""Whether the server would shorten a 422 (src/http/fastapi/errorBounds.ts).

The server bounds every error answer: strings over 1 000 characters, echoed containers over
4 096 bytes of JSON, lists over 100 items or 32 KiB are cut, with markers. Rather than reproduce
the cuts, a local error whose answer would be cut anywhere is asked of the server. This module
answers that question exactly, mirroring the server's fitting arithmetic, so that a local 422 is
always the server's, byte for byte.

Values are taken as the server holds them (see ``as_javascript_sees_it``), keys in JavaScript order.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from ._jsvalue import js_number, js_string_literal, js_stringify

_STRING_CHARS = 1000
_CONTAINER_BYTES = 4096
_ITEMS = 100
_DETAIL_BYTES = 32768
#: Room the server keeps for a "…[truncated: N more keys]" marker after a member that is not the last.
_MARKER_ROOM = 56


def _json_bytes(value: Any) -> int:
    return len(js_stringify(value).encode("utf-8"))


def _string_bytes(s: str) -> int:
    return len(js_string_literal(s).encode("utf-8"))


def _fits(value: Any, budget: int) -> Optional[int]:
    """The JSON byte size of ``value`` when the server would echo it unchanged within ``budget``, else None."""
    t = type(value)
    if t is str:
        return None if len(value) > _STRING_CHARS else _string_bytes(value)
    if value is None:
        return 4
    if t is bool:
        return 4 if value else 5
    if t is int or t is float:
        text = js_number(value)
        return 4 if text in ("NaN", "Infinity", "-Infinity") else len(text)
    if t is list:
        size = 2
        last = len(value) - 1
        for i, member in enumerate(value):
            comma = 0 if i == 0 else 1
            room = budget - size - comma - (0 if i == last else _MARKER_ROOM)
            child = _fits(member, room)
            if child is None or child > room:
                return None
            size += comma + child
        return size
    if t is dict:
        size = 2
        keys = list(value)
        last = len(keys) - 1
        for i, key in enumerate(keys):
            if len(key) > _STRING_CHARS:
                return None
            comma = 0 if i == 0 else 1
            name = _string_bytes(key) + 1
            room = budget - size - comma - name - (0 if i == last else _MARKER_ROOM)
            child = _fits(value[key], room)
            if child is None or child > room:
                return None
            size += comma + name + child
        return size
    return None


def _too_many_errors(omitted: int) -> Dict[str, Any]:
    msg = f"{omitted} more error{'' if omitted == 1 else 's'} left out of this answer"
    return {"type": "too_many_errors", "loc": [], "msg": msg, "input": None, "ctx": {"omitted": omitted}}


def detail_is_unbounded(items: List[Dict[str, Any]]) -> bool:
    """True when the server would send ``items`` as they are: no string, echo or list cut."""
    count = len(items)
    if count > _ITEMS:
        return False
    # Every missing name echoes the same inputs: measure each echo once, as the server does.
    echoes: Dict[int, Optional[int]] = {}
    sizes: List[int] = []
    for item in items:
        echo = item.get("input")
        if id(echo) not in echoes:
            echoes[id(echo)] = _fits(echo, _CONTAINER_BYTES)
        echo_bytes = echoes[id(echo)]
        if echo_bytes is None:
            return False
        if any(isinstance(part, str) and len(part) > _STRING_CHARS for part in item["loc"]):
            return False
        if len(item["msg"]) > _STRING_CHARS:
            return False
        if "ctx" in item and _fits(item["ctx"], _CONTAINER_BYTES) is None:
            return False
        # The item's JSON is the rest of it with the echo's own size in place of "null".
        sizes.append(_json_bytes({**item, "input": None}) - 4 + echo_bytes)
    reserve = 1 + _json_bytes(_too_many_errors(count))
    total = 2
    for i, size in enumerate(sizes):
        comma = 0 if i == 0 else 1
        after = count - i - 1
        if total + comma + size + (reserve if after > 0 else 0) > _DETAIL_BYTES:
            return False
        total += comma + size
    return True
