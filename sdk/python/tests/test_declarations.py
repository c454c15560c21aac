"""Typed variables in local mode: what the client checks itself, and what it leaves to the server."""

from __future__ import annotations

import json
import random
import unittest
from pathlib import Path
from typing import Any, Dict

from promptline._bundle import build_index
from promptline._declarations import py_repr
from promptline._evaluate import Answer, Invalid, Remote, evaluate

#: The shared typed suite's bundle (generated from the server): prompt "plan" declares a pattern on "code".
TYPED = json.loads((Path(__file__).resolve().parents[2] / "conformance" / "typed.json").read_text("utf-8"))["bundle"]


def with_pattern(pattern: str) -> Any:
    bundle = json.loads(json.dumps(TYPED))
    plan = next(p for p in bundle["prompts"] if p["prompt_id"] == "plan")
    plan["versions"][0]["declared_variables"]["code"]["pattern"] = pattern
    return build_index(bundle)


OK: Dict[str, Any] = {"tier": "pro", "code": "AB12"}


class TypedVariablesTest(unittest.TestCase):
    def test_a_format_2_bundle_is_used(self) -> None:
        self.assertEqual(TYPED["format"], 2)
        self.assertIsInstance(evaluate(build_index(TYPED), "plan", OK), Answer)

    def test_a_pattern_is_checked_locally_only_on_printable_ascii(self) -> None:
        idx = build_index(TYPED)
        self.assertIsInstance(evaluate(idx, "plan", {"tier": "pro", "code": "ab1"}), Invalid)
        for text in ("AB1\n", "AB1é", "AB١"):
            result = evaluate(idx, "plan", {"tier": "pro", "code": text})
            self.assertIsInstance(result, Remote, text)

    def test_a_pattern_python_cannot_run_sends_the_version_to_the_server(self) -> None:
        for pattern in ("^\\p{Lu}+$", "(?<name>A)B", "\\u{41}"):
            result = evaluate(with_pattern(pattern), "plan", OK)
            self.assertIsInstance(result, Remote, pattern)
            assert isinstance(result, Remote)
            self.assertIn("typed variable", result.reason)

    def test_a_pattern_that_backtracks_exponentially_is_checked_locally_in_linear_time(self) -> None:
        # re takes seconds on 24 letters and a "!", twice as long with each letter more: minutes on
        # the first, never ending on the second. (A longer invalid value would be the server's: its
        # error echoes the value, which the server shortens.)
        idx = with_pattern(r"^([A-Z]+)+$")
        for code in ("A" * 29 + "!", "A" * 498 + "!"):
            result = evaluate(idx, "plan", {"tier": "pro", "code": code})
            self.assertIsInstance(result, Invalid, len(code))
            assert isinstance(result, Invalid)
            self.assertEqual([item["type"] for item in result.detail], ["string_pattern_mismatch"])
        self.assertIsInstance(evaluate(idx, "plan", {"tier": "pro", "code": "A" * 10_000}), Answer)

    def test_a_pattern_the_server_refuses_or_reads_otherwise_is_its_to_check(self) -> None:
        # re ran these here: the linear-time engine refuses the first two, JavaScript's syntax the
        # last two (so no bundle should hold them; a client that meets one still asks the server).
        for pattern in ("^(A)\\1", "A(?=B)", "(?i)ab", "^A{,3}B"):
            self.assertIsInstance(evaluate(with_pattern(pattern), "plan", OK), Remote, pattern)

    def test_a_check_past_its_work_budget_goes_to_the_server(self) -> None:
        idx = with_pattern(r"(A|B)*A(A|B){200}C")
        rng = random.Random(1)
        code = "".join(rng.choice("AB") for _ in range(10_000))
        self.assertIsInstance(evaluate(idx, "plan", {"tier": "pro", "code": code}), Remote)

    def test_a_surrogate_in_a_checked_value_goes_to_the_server(self) -> None:
        self.assertIsInstance(evaluate(build_index(TYPED), "plan", {**OK, "note": "\ud83d"}), Remote)

    def test_repr_follows_the_server(self) -> None:
        self.assertEqual([py_repr(s) for s in ("a", "it's", "a\"b'", "\n\x00\u2028")], ["'a'", '"it\'s"', "'a\"b\\''", "'\\n\\x00\u2028'"])


if __name__ == "__main__":
    unittest.main()
