"""JavaScript's view of JSON values, written in Python.

The server is JavaScript: it renders numbers with ``String(n)``, structures with
``JSON.stringify``, measures text in UTF-8 and strings in UTF-16 code units. A local answer must
be byte-for-byte the server's, so every place where Python and JavaScript disagree is spelled
out here once, and the renderer, the evaluator and the error bounds use these functions.

The values handled are those ``json.loads`` produces (dict, list, str, int, float, bool, None),
with surrogate pairs already joined into one code point (see :func:`join_surrogates`).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

#: Integers up to this magnitude are exact JavaScript numbers and print as themselves.
_MAX_SAFE_INTEGER = 2**53

#: An array index is a canonical decimal integer up to 2**32 - 2 (ECMAScript's array index).
_MAX_ARRAY_INDEX = 4294967294

_SURROGATE = re.compile("[\ud800-\udfff]")

# What JSON.stringify escapes in a string: `"`, `\`, the C0 controls, and lone surrogates (which
# are the only surrogates left once pairs are joined).
_NEEDS_ESCAPE = re.compile('["\\\\\x00-\x1f\ud800-\udfff]')
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    short = _SHORT_ESCAPES.get(char)
    return short if short is not None else "\\u%04x" % ord(char)


def js_string_literal(s: str) -> str:
    """``JSON.stringify(s)``: quoted, controls as ``\\u00xx``, lone surrogates as ``\\udxxx``, the rest as is."""
    return '"' + _NEEDS_ESCAPE.sub(_escape, s) + '"'


def has_surrogate(s: str) -> bool:
    """True when ``s`` holds a surrogate code point (a lone one, or half of a pair written as two)."""
    return not s.isascii() and _SURROGATE.search(s) is not None


def join_surrogates(s: str) -> str:
    """``s`` with each high+low surrogate pair written as one code point, as JavaScript sees it.

    In JavaScript a string is UTF-16 code units, so ``"\\ud83d" + "\\ude00"`` *is* ``"😀"``; in Python
    those are two code points until joined. Lone surrogates stay as they are.
    """
    if not has_surrogate(s):
        return s
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def utf8_length(s: str) -> int:
    """Node's ``Buffer.byteLength(s, 'utf8')``: a lone surrogate counts 3 bytes (it is written as U+FFFD)."""
    if s.isascii():
        return len(s)
    return len(s.encode("utf-8", "surrogatepass"))


def utf16_length(s: str) -> int:
    """JavaScript's ``s.length``: UTF-16 code units (a code point beyond U+FFFF counts 2)."""
    if s.isascii():
        return len(s)
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


def js_number_value(n: int | float) -> float | int:
    """The number JavaScript holds for ``n`` once it went through JSON: integers beyond 2**53 become doubles."""
    if type(n) is int and not -_MAX_SAFE_INTEGER <= n <= _MAX_SAFE_INTEGER:
        try:
            return float(n)
        except OverflowError:
            return math.inf if n > 0 else -math.inf
    return n


def js_number(n: int | float) -> str:
    """``String(n)`` in JavaScript: ``1.0`` → ``1``, ``1e21`` → ``1e+21``, ``1e-7`` → ``1e-7``, ``-0`` → ``0``.

    Python's ``repr`` of a float and JavaScript's ``Number.prototype.toString`` both write the
    shortest digits that read back as the same double; only the layout around them differs.
    """
    if type(n) is int:
        if -_MAX_SAFE_INTEGER <= n <= _MAX_SAFE_INTEGER:
            return str(n)
        n = js_number_value(n)
    x = float(n)
    if x != x:
        return "NaN"
    if x == math.inf:
        return "Infinity"
    if x == -math.inf:
        return "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    text = repr(abs(x))
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    # `point`: where the decimal point sits, counted in digits from the first one.
    point = len(whole) + (int(exponent) if exponent else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    k = len(digits)
    if k <= point <= 21:
        return sign + digits + "0" * (point - k)
    if 0 < point <= 21:
        return sign + digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return sign + "0." + "0" * (-point) + digits
    e = point - 1
    exp = ("e+" if e >= 0 else "e-") + str(abs(e))
    if k == 1:
        return sign + digits + exp
    return sign + digits[0] + "." + digits[1:] + exp


def is_array_index(key: str) -> bool:
    """True for a canonical decimal array index (``"0"``, ``"17"``; not ``"01"``, ``"-1"``, ``"1.0"``)."""
    if not key or len(key) > 10 or not key.isascii() or not key.isdigit():
        return False
    if key[0] == "0" and key != "0":
        return False
    return int(key) <= _MAX_ARRAY_INDEX


def js_stringify(value: Any) -> str:
    """``JSON.stringify(value)``, compact, for JSON data.

    Objects list their integer-like keys first in ascending numeric order, then the others in
    insertion order, as JavaScript objects do; non-finite numbers are ``null``.
    """
    parts: list[str] = []
    _stringify_into(value, parts)
    return "".join(parts)


def _stringify_into(value: Any, out: list[str]) -> None:
    t = type(value)
    if t is str:
        out.append(js_string_literal(value))
    elif value is None:
        out.append("null")
    elif t is bool:
        out.append("true" if value else "false")
    elif t is int or t is float:
        text = js_number(value)
        out.append(text if text not in ("NaN", "Infinity", "-Infinity") else "null")
    elif t is list or t is tuple:
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _stringify_into(item, out)
        out.append("]")
    elif t is dict:
        out.append("{")
        first = True
        for key in js_key_order(value):
            if not first:
                out.append(",")
            first = False
            out.append(js_string_literal(key))
            out.append(":")
            _stringify_into(value[key], out)
        out.append("}")
    else:
        raise TypeError(f"not a JSON value: {t.__name__}")


def js_key_order(obj: dict[str, Any]) -> list[str]:
    """A JavaScript object's own key order: array-index keys ascending, then the rest as inserted."""
    keys = list(obj)
    indices = [k for k in keys if k[:1].isdigit() and is_array_index(k)]
    if not indices:
        return keys
    indices.sort(key=int)
    chosen = set(indices)
    return indices + [k for k in keys if k not in chosen]


def as_javascript_sees_it(value: Any) -> Any:
    """``value`` as a client reads it back from the server: ``json.loads(JSON.stringify(value))``.

    Used for what a 422 echoes: ``1.0`` comes back as ``1``, a NaN as ``None``, an integer beyond
    2**53 rounded, keys in JavaScript's order.
    """
    return json.loads(js_stringify(value))
