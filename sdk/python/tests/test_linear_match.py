"""The linear-time matcher typed variables' patterns run on (promptline._linear_match).

It must answer as the server does (JavaScript's meaning, on a linear-time engine), in time linear
in the text: the patterns below backtrack exponentially in Python's ``re``; here each finishes on
10 000 characters (the tests assert the answers; a slow matcher would show as a test run that does
not end).
"""

from __future__ import annotations

import random
import re
import sys
import unittest
from typing import List, Tuple

from promptline._linear_match import MAX_STATES, TooCostly, Unsupported, compile_pattern

#: (pattern, text, whether it matches somewhere): each froze a backtracking engine.
EVIL: List[Tuple[str, str, bool]] = [
    (r"^(\d|\w)+$", "1" * 29 + "!", False),
    (r"^(\d|\w)+$", "1" * 9_999 + "!", False),
    (r"^(\d|\w)+$", "1" * 10_000, True),
    (r"^(a|a)*$", "a" * 9_999 + "!", False),
    (r"^(a|a)*$", "a" * 10_000, True),
    (r"^(a|aa)+$", "a" * 9_999 + "!", False),
    (r"^(?:a|b|ab)*c$", "ab" * 5_000, False),
    (r"^(?:a|b|ab)*c$", "ab" * 4_999 + "c", True),
    (r"[a-z]+@[a-z]+\.com", "a" * 5_000 + "@" + "a" * 4_999, False),
    (r"[a-z]+@[a-z]+\.com", "a" * 5_000 + "@" + "a" * 4_995 + ".com", True),
    (r"\s*,\s*x", " " * 5_000 + "," + " " * 4_999, False),
    (r"(.*),(.*),(.*),(.*)x", "," * 10_000, False),
    (r"(.*),(.*),(.*),(.*)x", "," * 9_999 + "x", True),
    (r"a*a*a*a*a*a*b", "a" * 10_000, False),
    (r"(a+)+$", "a" * 9_999 + "!", False),
    (r"(a+)+b", "a" * 10_000, False),
    (r"^(a?){30}a{30}$", "a" * 30, True),
    (r"^(?:[a-z0-9]+-?)+[a-z0-9]$", "a" * 9_999 + "_", False),
    (r"^([a-zA-Z0-9])(([\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$", "a" * 9_999 + "!", False),
]

#: Ordinary patterns: the answers must be Python's re's (ASCII classes) on the texts below.
ORDINARY = [
    r"^[A-Z]{2}\d{2}$",
    r"^\d{3}-\d{4}$",
    r"\d",
    r"^\w+$",
    r"^\W+$",
    r"^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$",
    r"^(?:pro|free|team)$",
    r"pro|free",
    r"^$",
    r"",
    r"^a*$",
    r"^a+?b",
    r"^(ab)*?$",
    r"^(a|b)*c",
    r"^a{2}$",
    r"^a{2,}$",
    r"^a{0,2}$",
    r"^a{1,3}?b$",
    r"^[^a-c]+$",
    r"^[\d\s]+$",
    r"^[^\d\s]+$",
    r"^[\D]+$",
    r"^[\W_]+$",
    r"\bAB\b",
    r"\Bb\B",
    r"^\S+\s\S+$",
    r"^.{3}$",
    r"^.*x.*$",
    r"\Aab",
    r"ab\Z",
    r"^(?P<year>\d{4})-(?P<month>\d{2})$",
    r"^(?:(?:a|b)(?:c|d))+$",
    r"^(a|ab)(c|bcd)(d*)$",
    r"^\x41\u0042\101$",
    r"^[\]a]+$",
    r"^[a\-z]+$",
    r"^\.\*\+\?\(\)\[\]\{\}\|\^\$\\$",
    r"^(?:)+$",
    r"^(a*)*$",
    r"^(a*)+b$",
    r"x*",
    r"^[ -~]*$",
    r"^é$",
]

TEXTS = [
    "", "a", "b", "ab", "aa", "aab", "abab", "abc", "ac", "abcd", "abbcd", "x", "xx", "axb",
    "AB12", "ab12", "AB123", "555-1234", "55-1234", "ada@example.com", "ada@example", "a.b@c.io",
    "pro", "free", "team", "pros", "a pro", "AB", "AB AB", "ABAB", " a b ", "a b", "a  b", "abc def",
    "123", "1 2", "___", "a_b", "!!", "!_!", "2024-05", "2024-5", "ABA", "aaaa", "aaab", ".*+?()[]{}|^$\\",
    "]a]", "a-z", "-", "é", "~", " ",
]


def python_re(pattern: str, text: str) -> bool:
    return re.search(pattern, text, re.ASCII) is not None


class EvilPatternsTest(unittest.TestCase):
    def test_each_finishes_with_the_right_answer(self) -> None:
        for pattern, text, expected in EVIL:
            with self.subTest(pattern=pattern, length=len(text)):
                self.assertEqual(compile_pattern(pattern).search(text), expected)

    def test_a_compiled_pattern_answers_again_from_what_it_remembers(self) -> None:
        matcher = compile_pattern(r"^(\d|\w)+$")
        for _ in range(3):
            self.assertFalse(matcher.search("1" * 9_999 + "!"))
            self.assertTrue(matcher.search("1" * 10_000))


class AgreesWithPythonTest(unittest.TestCase):
    """On printable ASCII, JavaScript's answers are Python's for the patterns both read alike."""

    def test_ordinary_patterns(self) -> None:
        for pattern in ORDINARY:
            matcher = compile_pattern(pattern)
            for text in TEXTS:
                with self.subTest(pattern=pattern, text=text):
                    self.assertEqual(matcher.search(text), python_re(pattern, text))

    def test_random_patterns_on_random_texts(self) -> None:
        rng = random.Random(38)
        for _ in range(400):
            pattern = random_pattern(rng, 3)
            if rng.random() < 0.5:  # anchored: fewer patterns that match anything at all
                pattern = f"^(?:{pattern})$"
            matcher = compile_pattern(pattern)
            for _ in range(12):
                text = "".join(rng.choice("ab1 _") for _ in range(rng.randint(0, 8)))
                with self.subTest(pattern=pattern, text=text):
                    self.assertEqual(matcher.search(text), python_re(pattern, text))


def random_pattern(rng: random.Random, depth: int) -> str:
    """A pattern of literals, classes, anchors, groups, alternation and repetition (RE2's subset)."""
    atoms = ["a", "b", "1", " ", ".", r"\d", r"\w", r"\s", r"\W", "[ab]", "[^a]", "[a-b1]", r"\b", "^", "$"]
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(atoms)
    shape = rng.randrange(4)
    if shape == 0:
        return "".join(random_pattern(rng, depth - 1) for _ in range(rng.randint(1, 3)))
    if shape == 1:
        return "(?:" + "|".join(random_pattern(rng, depth - 1) for _ in range(rng.randint(2, 3))) + ")"
    inner = random_pattern(rng, depth - 1)
    if inner in ("^", "$", r"\b"):  # Python refuses to repeat an anchor
        return inner
    quantifier = rng.choice(["*", "+", "?", "{2}", "{1,3}", "{0,2}", "{2,}"]) + rng.choice(["", "?"])
    return "(" + inner + ")" + quantifier


class JavaScriptMeaningsTest(unittest.TestCase):
    """Where Python's re answers otherwise, the answer is JavaScript's (the server's)."""

    def test_dollar_is_the_end_of_the_text_only(self) -> None:
        self.assertFalse(compile_pattern(r"^a$").search("a\n"))
        self.assertTrue(re.search(r"^a$", "a\n"))

    def test_s_is_javascripts_white_space_and_line_terminators(self) -> None:
        matcher = compile_pattern(r"^\s$")
        spaces = " \t\n\v\f\r\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
        self.assertEqual([c for c in spaces if not matcher.search(c)], [])
        self.assertEqual([c for c in "a\x1c\x85\u180e\u200b" if matcher.search(c)], [])
        self.assertTrue(compile_pattern(r"^[^\S]$").search("\u3000"))
        self.assertFalse(compile_pattern(r"^\S$").search("\v"))

    def test_dot_stops_at_every_line_terminator(self) -> None:
        matcher = compile_pattern(r"^.$")
        self.assertEqual([matcher.search(c) for c in "\n\r\u2028\u2029"], [False] * 4)
        self.assertEqual([matcher.search(c) for c in "a\v\x85😀"], [True] * 4)

    def test_word_classes_are_ascii_whatever_the_text(self) -> None:
        self.assertFalse(compile_pattern(r"\d").search("١"))
        self.assertFalse(compile_pattern(r"\w").search("é"))
        self.assertTrue(compile_pattern(r"^\W$").search("é"))
        self.assertTrue(compile_pattern(r"a\b").search("aé"))
        self.assertFalse(compile_pattern(r"é\b").search("aé"))

    def test_non_boundary_holds_on_an_empty_text(self) -> None:
        self.assertTrue(compile_pattern(r"\B").search(""))


class UnsupportedTest(unittest.TestCase):
    def test_what_re2_refuses_or_reads_otherwise_is_unsupported(self) -> None:
        patterns = [
            r"(a)\1",  # back-references
            r"(?P<n>a)(?P=n)",
            r"(?=a)",  # look-around
            r"(?!a)",
            r"(?<=a)b",
            r"(?<!a)b",
            r"(a)?(?(1)b|c)",  # a conditional
            r"(?i)a",  # inline flags
            r"(?i:a)",
            r"(?m)^a",
            r"(?s).",
            r"(?x)a",
            r"a{,3}",  # {0,3} in Python, literal text in RE2
            "[[:alpha:]]",  # a POSIX class in RE2, a set and a "]" in Python
            r"\p{L}",  # not Python's
            r"(?<n>a)",
            "[]|[a]",  # JavaScript's empty class, a class of "]", "|", "[" and "a" in Python
            "^[^]$",
            "\ud800",
            "[",
            r"\w{1000}" * 21,  # more states than MAX_STATES
        ]
        if sys.version_info >= (3, 11):
            patterns += [r"a*+", r"(?>a)"]  # possessive, atomic
        for pattern in patterns:
            with self.subTest(pattern=pattern):
                with self.assertRaises(Unsupported):
                    compile_pattern(pattern)

    def test_a_bracket_that_does_not_open_an_empty_class_is_run(self) -> None:
        self.assertTrue(compile_pattern(r"^[\[\]]+$").search("[]"))
        self.assertTrue(compile_pattern(r"^\[\]$").search("[]"))
        self.assertTrue(compile_pattern(r"^[a\]]$").search("]"))

    def test_the_largest_counted_repetition_re2_takes_is_run(self) -> None:
        self.assertLess(1_000, MAX_STATES)
        self.assertTrue(compile_pattern(r"^a{1000}$").search("a" * 1_000))
        self.assertFalse(compile_pattern(r"^a{1000}$").search("a" * 999))

    def test_a_search_past_its_budget_says_so(self) -> None:
        # Every step of this one is a set of states not seen before: it is the server's to answer.
        matcher = compile_pattern(r"(a|b)*a(a|b){20}c")
        rng = random.Random(1)
        text = "".join(rng.choice("ab") for _ in range(2_000))
        with self.assertRaises(TooCostly):
            matcher.search(text, budget=1_000)
        self.assertFalse(matcher.search(text))
        self.assertTrue(matcher.search(text + "a" + "b" * 20 + "c"))


if __name__ == "__main__":
    unittest.main()
