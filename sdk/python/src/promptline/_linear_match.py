"""Regular-expression search in linear time: a Thompson automaton over the standard library's parse.

Python's ``re`` backtracks: ``(a+)+$`` takes seconds on 24 ``a`` and a ``!``, twice as long with
each ``a`` more. The server runs typed variables' patterns on a linear-time engine (RE2's automata)
with JavaScript's meaning (the ``u`` flag's), so the client must not be slower or answer otherwise.
This module takes the parse tree of the standard library's own regex parser (``re._parser``,
``sre_parse`` before Python 3.11) and runs it as a set of automaton states advanced one character
at a time (Thompson's construction, simulated as a Pike VM without captures): each step costs at
most the automaton's size, whatever the pattern, so a search is linear in the text. Each step's
result is remembered (a lazily built DFA, its memory bounded), so the usual pattern costs a
dictionary look-up per character.

What it runs is the subset RE2 can run, with JavaScript's meaning where Python's differs: literals,
classes (``\\d`` and ``\\w`` ASCII, ``\\s`` JavaScript's white space and line terminators, their
negations, ranges), ``.`` (anything but a line terminator: ``\\n``, ``\\r``, U+2028, U+2029), ``^``
and ``\\A`` (the start of the text), ``$`` and ``\\Z`` (its end, never before a final newline),
``\\b`` and ``\\B`` (ASCII words; ``\\B`` holds in an empty text), alternation, groups, greedy and
lazy repetition including counted ``{m,n}``. Anything else is ``Unsupported``: back-references,
look-around, conditionals, possessive repetition and atomic groups (which RE2 cannot run), inline
flags (``(?i)``: engines do not fold case alike), syntax Python reads otherwise than JavaScript
(``[]`` and ``[^]``, an empty class and any character there, a class holding ``]`` in Python;
``{,n}``; ``[[:alpha:]]``, which Python warns about), and an automaton beyond ``MAX_STATES`` states.

Only whether the pattern matches somewhere is answered, so greedy and lazy repetition are the same
automaton and groups capture nothing.
"""

from __future__ import annotations

import warnings
from typing import Callable, Dict, FrozenSet, Iterable, List, Set, Tuple

try:  # Python 3.11 and later
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.9 and 3.10
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _p  # type: ignore[no-redef]

#: The most states an automaton may have (a counted repetition is unrolled: ``\\w{1000}`` has 1000);
#: RE2 caps a count at 1000 and a program's size too, so a pattern past this is the server's.
MAX_STATES = 20_000

#: How many automaton states one search may visit on steps it has not seen before (a few tenths of
#: a second): only patterns whose set of states keeps changing (long counted repetitions, like
#: ``(a|b)*a(a|b){20}c``) come near it on long texts; past it the search raises ``TooCostly`` and
#: the caller asks the server.
WORK_BUDGET = 200_000

#: How many states the remembered steps may hold in all before they are forgotten (memory bound).
_CACHE_BUDGET = 1_000_000


class Unsupported(ValueError):
    """A pattern this matcher does not run as RE2 would."""


_CHAR, _SPLIT, _ASSERT, _MATCH = range(4)

Ranges = Tuple[Tuple[int, int], ...]

_MAX_CODE_POINT = 0x10FFFF
_DIGITS: Ranges = ((0x30, 0x39),)
_WORD: Ranges = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
#: JavaScript's \s: its WhiteSpace and LineTerminator (RE2's own \s is only [\t\n\f\r ]).
_SPACE: Ranges = (
    (0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A), (0x2028, 0x2029),
    (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000), (0xFEFF, 0xFEFF),
)
#: What JavaScript's ``.`` does not match (RE2's own stops at \n only).
_LINE_TERMINATORS = frozenset((0x0A, 0x0D, 0x2028, 0x2029))
_WORD_CHARS = frozenset(cp for lo, hi in _WORD for cp in range(lo, hi + 1))


def _complement(ranges: Ranges) -> Ranges:
    """The code points outside ``ranges`` (sorted, disjoint)."""
    out = []
    start = 0
    for lo, hi in ranges:
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= _MAX_CODE_POINT:
        out.append((start, _MAX_CODE_POINT))
    return tuple(out)


_CATEGORIES: Dict[object, Ranges] = {
    _c.CATEGORY_DIGIT: _DIGITS,
    _c.CATEGORY_NOT_DIGIT: _complement(_DIGITS),
    _c.CATEGORY_WORD: _WORD,
    _c.CATEGORY_NOT_WORD: _complement(_WORD),
    _c.CATEGORY_SPACE: _SPACE,
    _c.CATEGORY_NOT_SPACE: _complement(_SPACE),
}

_AT_START = frozenset((_c.AT_BEGINNING, _c.AT_BEGINNING_STRING))
_AT_END = frozenset((_c.AT_END, _c.AT_END_STRING))
_UNSUPPORTED_OPS = {
    getattr(_c, name)
    for name in ("GROUPREF", "GROUPREF_EXISTS", "ASSERT", "ASSERT_NOT", "POSSESSIVE_REPEAT", "ATOMIC_GROUP")
    if hasattr(_c, name)
}

Predicate = Callable[[int], bool]


def _class_predicate(items: List[Tuple[object, object]]) -> Predicate:
    """The test of one character class (the parser's IN items)."""
    negate = False
    singles: Set[int] = set()
    ranges: List[Tuple[int, int]] = []
    for op, av in items:
        if op is _c.NEGATE:
            negate = True
        elif op is _c.LITERAL:
            singles.add(av)  # type: ignore[arg-type]
        elif op is _c.RANGE:
            lo, hi = av  # type: ignore[misc]
            ranges.append((lo, hi))
        elif op is _c.CATEGORY and av in _CATEGORIES:
            ranges.extend(_CATEGORIES[av])
        else:
            raise Unsupported(f"class item {op} {av}")
    frozen = frozenset(singles)
    spans = tuple(ranges)

    def test(ch: int) -> bool:
        inside = ch in frozen or any(lo <= ch <= hi for lo, hi in spans)
        return inside != negate

    return test


def _has_empty_class(pattern: str) -> bool:
    """Whether ``pattern`` opens a class with ``[]`` or ``[^]`` (JavaScript's syntax: no nested classes)."""
    i, n, in_class = 0, len(pattern), False
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            rest = pattern[i + 1 : i + 3]
            if rest.startswith("]") or rest == "^]":
                return True
        i += 1
    return False


class _Builder:
    """Compiles a parse tree backwards: each piece is given the state that follows it."""

    def __init__(self) -> None:
        self.kind: List[int] = []
        self.arg: List[object] = []
        self.out1: List[int] = []
        self.out2: List[int] = []

    def node(self, kind: int, arg: object = None, out1: int = -1, out2: int = -1) -> int:
        if len(self.kind) >= MAX_STATES:
            raise Unsupported(f"the automaton would have more than {MAX_STATES} states")
        self.kind.append(kind)
        self.arg.append(arg)
        self.out1.append(out1)
        self.out2.append(out2)
        return len(self.kind) - 1

    def sequence(self, items: List[Tuple[object, object]], follow: int) -> int:
        for op, av in reversed(list(items)):
            follow = self.item(op, av, follow)
        return follow

    def item(self, op: object, av: object, follow: int) -> int:
        if op is _c.LITERAL:
            if 0xD800 <= av <= 0xDFFF:  # type: ignore[operator]
                raise Unsupported("a lone surrogate")
            code = av
            return self.node(_CHAR, lambda ch: ch == code, follow)
        if op is _c.NOT_LITERAL:
            code = av
            return self.node(_CHAR, lambda ch: ch != code, follow)
        if op is _c.ANY:
            return self.node(_CHAR, lambda ch: ch not in _LINE_TERMINATORS, follow)
        if op is _c.IN:
            return self.node(_CHAR, _class_predicate(av), follow)  # type: ignore[arg-type]
        if op is _c.AT:
            if av in _AT_START or av in _AT_END or av is _c.AT_BOUNDARY or av is _c.AT_NON_BOUNDARY:
                return self.node(_ASSERT, av, follow)
            raise Unsupported(f"the anchor {av}")
        if op is _c.SUBPATTERN:
            _group, add_flags, del_flags, body = av  # type: ignore[misc]
            if add_flags or del_flags:
                raise Unsupported("inline flags")
            return self.sequence(body, follow)
        if op is _c.BRANCH:
            _, alternatives = av  # type: ignore[misc]
            entries = [self.sequence(alt, follow) for alt in alternatives]
            entry = entries[-1]
            for other in reversed(entries[:-1]):
                entry = self.node(_SPLIT, None, other, entry)
            return entry
        if op is _c.MAX_REPEAT or op is _c.MIN_REPEAT:
            low, high, body = av  # type: ignore[misc]
            return self.repeat(low, high, body, follow)
        if op in _UNSUPPORTED_OPS:
            raise Unsupported(f"{op} (RE2 has no such construct)")
        raise Unsupported(f"the construct {op}")

    def repeat(self, low: int, high: int, body: List[Tuple[object, object]], follow: int) -> int:
        if high == _c.MAXREPEAT:
            # A loop: the split either enters the body (which comes back to it) or leaves.
            loop = self.node(_SPLIT, None, -1, follow)
            self.out1[loop] = self.sequence(body, loop)
            tail = loop
        else:
            # Optional copies, nested: (x(x(x)?)?)? for high - low of them.
            tail = follow
            for _ in range(high - low):
                tail = self.node(_SPLIT, None, self.sequence(body, tail), follow)
        for _ in range(low):
            tail = self.sequence(body, tail)
        return tail


_State = Tuple[FrozenSet[int], bool]


class TooCostly(Exception):
    """A search that would visit more than ``WORK_BUDGET`` automaton states: the caller asks the server."""


class LinearPattern:
    """A compiled pattern: ``search`` says whether it matches anywhere in a text."""

    def __init__(self, pattern: str, builder: _Builder, start: int) -> None:
        self.pattern = pattern
        self._kind = builder.kind
        self._arg = builder.arg
        self._out1 = builder.out1
        self._out2 = builder.out2
        self._start = start
        self._char_states = [s for s, k in enumerate(builder.kind) if k == _CHAR]
        # character -> the consuming states that take it (one pass over the states per character seen)
        self._takers: Dict[int, FrozenSet[int]] = {}
        # (states before, character, context after) -> (states after, matched): the lazy DFA
        self._steps: Dict[Tuple[FrozenSet[int], int, int], _State] = {}
        self._held = 0

    def _closure(self, entries: Iterable[int], context: int) -> Tuple[FrozenSet[int], bool, int]:
        """The consuming states reachable from ``entries`` without consuming, whether the match is, the work."""
        kind, arg, out1, out2 = self._kind, self._arg, self._out1, self._out2
        seen = set()
        consuming = []
        matched = False
        stack = list(entries)
        while stack:
            s = stack.pop()
            if s in seen:
                continue
            seen.add(s)
            k = kind[s]
            if k == _CHAR:
                consuming.append(s)
            elif k == _SPLIT:
                stack.append(out2[s])
                stack.append(out1[s])
            elif k == _ASSERT:
                if _holds(arg[s], context):
                    stack.append(out1[s])
            else:
                matched = True
        return frozenset(consuming), matched, len(seen)

    def search(self, text: str, budget: int = WORK_BUDGET) -> bool:
        """Whether the pattern matches somewhere in ``text`` (``re.search``), in time linear in its length.

        Raises ``TooCostly`` rather than visit more than ``budget`` states on steps not seen before.
        """
        n = len(text)
        codes = [ord(ch) for ch in text]
        word = _WORD_CHARS
        context = _AT_START_BIT | (_AT_END_BIT if n == 0 else 0) | (_NEXT_WORD_BIT if n > 0 and codes[0] in word else 0)
        states, matched, work = self._closure((self._start,), context)
        if matched:
            return True
        steps, takers_by_char, out1, start = self._steps, self._takers, self._out1, self._start
        for i in range(n):
            ch = codes[i]
            if i + 1 == n:
                context = _AT_END_BIT
            else:
                context = _NEXT_WORD_BIT if codes[i + 1] in word else 0
            if ch in word:
                context |= _PREV_WORD_BIT
            key = (states, ch, context)
            step = steps.get(key)
            if step is None:
                takers = takers_by_char.get(ch)
                if takers is None:
                    takers = self._takers_of(ch)
                    work += len(self._char_states)
                entries = [out1[s] for s in states & takers]
                entries.append(start)  # search: a match may also start at the next position
                after, hit, visited = self._closure(entries, context)
                work += visited
                if work > budget:
                    raise TooCostly(f"more than {budget} automaton states on {n} characters")
                step = (after, hit)
                self._remember(key, step)
            states, matched = step
            if matched:
                return True
        return False

    def _takers_of(self, ch: int) -> FrozenSet[int]:
        arg = self._arg
        takers = frozenset(s for s in self._char_states if arg[s](ch))  # type: ignore[operator]
        if len(self._takers) >= 256:  # a text of many distinct characters: memory stays bounded
            self._takers.clear()
        self._takers[ch] = takers
        return takers

    def _remember(self, key: Tuple[FrozenSet[int], int, int], step: _State) -> None:
        """Keeps a step; past the budget, the steps kept are forgotten and rebuilt as needed."""
        self._held += len(step[0]) + 1
        if self._held > _CACHE_BUDGET:
            self._steps.clear()
            self._held = len(step[0]) + 1
        self._steps[key] = step


_AT_START_BIT, _AT_END_BIT, _PREV_WORD_BIT, _NEXT_WORD_BIT = 1, 2, 4, 8


def _holds(anchor: object, context: int) -> bool:
    """Whether a zero-width assertion holds at a position of this context."""
    if anchor in _AT_START:
        return bool(context & _AT_START_BIT)
    if anchor in _AT_END:
        return bool(context & _AT_END_BIT)
    boundary = bool(context & _PREV_WORD_BIT) != bool(context & _NEXT_WORD_BIT)
    return boundary if anchor is _c.AT_BOUNDARY else not boundary


def compile_pattern(pattern: str) -> LinearPattern:
    """The pattern as an automaton; ``Unsupported`` when it is not RE2's subset as RE2 reads it."""
    if "{," in pattern:
        raise Unsupported("{,n}: Python reads it as {0,n}, JavaScript refuses it and RE2 reads text")
    if _has_empty_class(pattern):
        raise Unsupported("[] or [^]: JavaScript's empty class and any character, a class holding ] in Python")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            parsed = _p.parse(pattern, 0)
    except (_c.error, Warning, RecursionError, OverflowError) as error:
        raise Unsupported(str(error)) from None
    if parsed.state.flags & ~_c.SRE_FLAG_UNICODE:
        raise Unsupported("inline flags")
    builder = _Builder()
    try:
        start = builder.sequence(list(parsed), builder.node(_MATCH))
    except RecursionError:
        raise Unsupported("too deeply nested") from None
    return LinearPattern(pattern, builder, start)
