"""A mustache parser for fallback templates, producing the server's node tree.

Fallbacks are written by the application and never reach the server, yet they render with the
same walk as the bundle's templates. So this parser produces what the server's ``compileTemplate``
produces from mustache.js 4.2's ``parseTemplate``: the same tokens (a standalone section or comment
tag on a line of its own takes the line's whitespace and newline with it), the same squashing of
text, comments dropped, partials and delimiter changes refused, sections nested at most 32 deep.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional

from ._jsvalue import join_surrogates

#: JavaScript's ``\\s``: what mustache.js counts as whitespace (not the same set as Python's).
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_WS = f"[{_JS_SPACE}]"

_OPENING_TAG = re.compile(r"\{\{" + _WS + "*")
_CLOSING_TAG = re.compile(_WS + r"*\}\}")
_CLOSING_CURLY = re.compile(_WS + r"*\}\}\}")
_CURLY = re.compile(_WS + r"*\}")
_WHITE = re.compile(_WS + "*")
_TAG_TYPE = re.compile(r"[#^/>{&=!]")
_SPACE_CHARS = frozenset("\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff" + "".join(chr(c) for c in range(0x2000, 0x200B)))

#: Sections may nest this deep (the server's MAX_TEMPLATE_DEPTH).
MAX_TEMPLATE_DEPTH = 32

_FORBIDDEN = {
    ">": "partials ({{> name}}) are not supported",
    "=": "delimiter changes ({{=<% %>=}}) are not supported",
}


class TemplateError(ValueError):
    """A fallback template the server would refuse too."""


class _Scanner:
    """mustache.js's Scanner, over an index instead of a shrinking tail."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.pos = 0

    def eos(self) -> bool:
        return self.pos >= len(self.source)

    def scan(self, pattern: re.Pattern[str]) -> str:
        """The match of ``pattern`` right here, consumed; '' when it does not match here."""
        match = pattern.match(self.source, self.pos)
        if match is None:
            return ""
        self.pos = match.end()
        return match.group()

    def scan_until(self, pattern: re.Pattern[str]) -> str:
        """Everything before the next match of ``pattern`` (all the rest when there is none), consumed."""
        match = pattern.search(self.source, self.pos)
        end = len(self.source) if match is None else match.start()
        text = self.source[self.pos : end]
        self.pos = end
        return text


def _tokens(source: str) -> List[List[Any]]:
    """mustache.js ``parseTemplate`` up to (not including) nesting: flat tokens, standalone lines stripped."""
    tokens: List[Optional[List[Any]]] = []
    sections: List[List[Any]] = []
    spaces: List[int] = []
    state = {"has_tag": False, "non_space": False}

    def strip_space() -> None:
        if state["has_tag"] and not state["non_space"]:
            while spaces:
                tokens[spaces.pop()] = None
        else:
            spaces.clear()
        state["has_tag"] = False
        state["non_space"] = False

    scanner = _Scanner(source)
    while not scanner.eos():
        start = scanner.pos
        value = scanner.scan_until(_OPENING_TAG)
        for char in value:
            if char in _SPACE_CHARS:
                spaces.append(len(tokens))
            else:
                state["non_space"] = True
            tokens.append(["text", char, start])
            start += 1
            if char == "\n":
                strip_space()
        if not scanner.scan(_OPENING_TAG):
            break
        state["has_tag"] = True
        kind = scanner.scan(_TAG_TYPE) or "name"
        scanner.scan(_WHITE)
        if kind in _FORBIDDEN:
            raise TemplateError(_FORBIDDEN[kind])
        if kind == "{":
            value = scanner.scan_until(_CLOSING_CURLY)
            scanner.scan(_CURLY)
            scanner.scan_until(_CLOSING_TAG)
            kind = "&"
        else:
            value = scanner.scan_until(_CLOSING_TAG)
        if not scanner.scan(_CLOSING_TAG):
            raise TemplateError(f"invalid template: Unclosed tag at {scanner.pos}")
        token: List[Any] = [kind, value, start]
        tokens.append(token)
        if kind in ("#", "^"):
            sections.append(token)
        elif kind == "/":
            if not sections:
                raise TemplateError(f'invalid template: Unopened section "{value}" at {start}')
            opened = sections.pop()
            if opened[1] != value:
                raise TemplateError(f'invalid template: Unclosed section "{opened[1]}" at {start}')
        elif kind in ("name", "&"):
            state["non_space"] = True
    strip_space()
    if sections:
        raise TemplateError(f'invalid template: Unclosed section "{sections[-1][1]}" at {scanner.pos}')
    # squashTokens: consecutive text tokens (stripped ones skipped) become one.
    squashed: List[List[Any]] = []
    for item in tokens:
        if item is None:
            continue
        if item[0] == "text" and squashed and squashed[-1][0] == "text":
            squashed[-1][1] += item[1]
        else:
            squashed.append(list(item))
    return squashed


def parse_template(source: str) -> List[Dict[str, Any]]:
    """A mustache template as the server's node tree (the bundle's JSON form). Raises TemplateError."""
    if not isinstance(source, str):
        raise TemplateError("a template must be a string")
    # As the server would receive it: JSON joins a surrogate pair written as two code points.
    source = join_surrogates(source)
    root: List[Dict[str, Any]] = []
    collector = root
    open_sections: List[List[Dict[str, Any]]] = []
    for kind, value, _start in _tokens(source):
        if kind in ("#", "^"):
            if len(open_sections) == MAX_TEMPLATE_DEPTH:
                raise TemplateError(f"sections nest deeper than {MAX_TEMPLATE_DEPTH} levels")
            children: List[Dict[str, Any]] = []
            collector.append({"type": "section" if kind == "#" else "inverted", "name": value, "nodes": children})
            open_sections.append(collector)
            collector = children
        elif kind == "/":
            collector = open_sections.pop()
        elif kind in ("name", "&"):
            collector.append({"type": "value", "name": value})
        elif kind == "text":
            collector.append({"type": "text", "text": value})
        # "!": comments render nothing
    return root
