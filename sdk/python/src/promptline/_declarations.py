"""Typed variables, checked in-process as the server checks them before a render (docs/sdks.md).

Per declared name, in declaration order: a required one absent is the ``missing`` item the server
gives for a missing variable; a value that is not a string, or breaks its enum, length (in code
points) or pattern, is pydantic's item (``string_type``, ``literal_error``, ``string_too_short``,
``string_too_long``, ``string_pattern_mismatch``); an absent optional one gets its default (``""``
when it has none). Inputs nobody declared pass through.

The server runs patterns with JavaScript's meaning (the ``u`` flag, search semantics) on a
linear-time engine (RE2's automata). Python's ``re`` backtracks (``(a+)+$`` takes seconds on 25
characters), so patterns run here on ``_linear_match``'s automaton, which reads them with
JavaScript's meaning, in time linear in the value. What it cannot run as the server would
(back-references, look-around, inline flags, syntax Python reads otherwise, an automaton too large)
leaves the version to the server, and so does a search that would cost more than its work budget.
A value checked against a pattern is checked here only when it is printable ASCII: there
JavaScript's classes, RE2's and Python's agree (``\\s``, ``.``, ``\\w``, ``$``), so the answer does
not hang on a detail of one engine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple, Union

from ._linear_match import LinearPattern, TooCostly, Unsupported, compile_pattern

_PRINTABLE_ASCII = re.compile(r"[\x20-\x7e]*\Z")
#: A string holding UTF-16 surrogates counts and compares differently here and on the server.
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Check:
    name: str
    required: bool
    fallback: str
    enum: Optional[Tuple[str, ...]]
    expected: Optional[str]
    pattern: Optional[str]
    regex: Optional[LinearPattern]
    min_length: Optional[int]
    max_length: Optional[int]


class PatternNotPortable(ValueError):
    """A declared pattern this client cannot run as the server runs it: the version is left to the server."""


def prepare_checks(declared: Any) -> Tuple[Check, ...]:
    """The checks of a version's ``declared_variables`` (a JSON object), patterns compiled once."""
    if not isinstance(declared, dict):
        raise ValueError("declared_variables must be an object")
    checks: List[Check] = []
    for name, raw in declared.items():
        if not isinstance(raw, dict):
            raise ValueError(f"the declaration of {name!r} is not an object")
        pattern = raw.get("pattern")
        regex: Optional[LinearPattern] = None
        if pattern is not None:
            if not isinstance(pattern, str):
                raise ValueError(f"the pattern of {name!r} is not a string")
            try:
                regex = compile_pattern(pattern)
            except Unsupported as error:
                raise PatternNotPortable(str(error)) from None
        values = raw.get("enum")
        enum = tuple(values) if isinstance(values, list) else None
        checks.append(
            Check(
                name=name,
                required=raw.get("required") is not False,
                fallback=raw.get("default", ""),
                enum=enum,
                expected=None if enum is None else _expected_list([py_repr(v) for v in enum]),
                pattern=pattern,
                regex=regex,
                min_length=raw.get("min_length"),
                max_length=raw.get("max_length"),
            )
        )
    return tuple(checks)


def _characters(n: int) -> str:
    return "character" if n == 1 else "characters"


class NeedsServer(Exception):
    """This value can only be checked by the server."""


def _failure(check: Check, value: Any) -> Optional[Dict[str, Any]]:
    if not isinstance(value, str):
        return {"type": "string_type", "msg": "Input should be a valid string"}
    if _SURROGATE.search(value):
        raise NeedsServer()
    if check.enum is not None and value not in check.enum:
        return {"type": "literal_error", "msg": f"Input should be {check.expected}", "ctx": {"expected": check.expected}}
    if check.min_length is not None and len(value) < check.min_length:
        n = check.min_length
        return {"type": "string_too_short", "msg": f"String should have at least {n} {_characters(n)}", "ctx": {"min_length": n}}
    if check.max_length is not None and len(value) > check.max_length:
        n = check.max_length
        return {"type": "string_too_long", "msg": f"String should have at most {n} {_characters(n)}", "ctx": {"max_length": n}}
    if check.regex is not None:
        if not _PRINTABLE_ASCII.match(value):
            raise NeedsServer()
        try:
            found = check.regex.search(value)
        except TooCostly:
            raise NeedsServer() from None
        if not found:
            return {"type": "string_pattern_mismatch", "msg": f"String should match pattern '{check.pattern}'", "ctx": {"pattern": check.pattern}}
    return None


def apply_checks(checks: Tuple[Check, ...], wire: Dict[str, Any], echo: Any) -> Union[Dict[str, Any], List[Dict[str, Any]], None]:
    """The inputs to render (defaults filled in), the 422's items, or None when only the server can tell.

    ``echo`` turns a value into what the server would echo (JavaScript's view of it).
    """
    items: List[Dict[str, Any]] = []
    filled: Optional[Dict[str, Any]] = None
    for check in checks:
        if check.name not in wire:
            if check.required:
                items.append({"type": "missing", "loc": ["body", "inputs", check.name], "msg": "Field required", "input": echo(wire)})
            else:
                if filled is None:
                    filled = dict(wire)
                filled[check.name] = check.fallback
            continue
        value = wire[check.name]
        try:
            failed = _failure(check, value)
        except NeedsServer:
            return None
        if failed is None:
            continue
        item: Dict[str, Any] = {"type": failed["type"], "loc": ["body", "inputs", check.name], "msg": failed["msg"], "input": echo(value)}
        if "ctx" in failed:
            item["ctx"] = failed["ctx"]
        items.append(item)
    if items:
        return items
    return filled if filled is not None else wire


def _expected_list(items: List[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} or {items[-1]}"


def py_repr(s: str) -> str:
    """A string's repr() as the server prints literals in literal_error (its own rules, not this Python's)."""
    quote = '"' if "'" in s and '"' not in s else "'"
    out = [quote]
    for ch in s:
        c = ord(ch)
        if ch == quote or ch == "\\":
            out.append("\\" + ch)
        elif c == 0x0A:
            out.append("\\n")
        elif c == 0x0D:
            out.append("\\r")
        elif c == 0x09:
            out.append("\\t")
        elif c < 0x20 or 0x7F <= c <= 0xA0 or c == 0xAD:
            out.append(f"\\x{c:02x}")
        elif 0xD800 <= c <= 0xDFFF:
            out.append(f"\\u{c:x}")
        else:
            out.append(ch)
    out.append(quote)
    return "".join(out)
