"""evaluate(): when the bundle answers, what, and when only the server can."""

from __future__ import annotations

import copy
import json
import unittest
from pathlib import Path
from typing import Any, Dict, List, Tuple

from promptline._bundle import UnsupportedBundleFormat, build_index
from promptline._evaluate import Answer, Invalid, Remote, encode_json, evaluate

#: A hand-made bundle: prompts "welcome" (an experiment with a gap in its ranges), "support" (chat), "moved" (remote_only).
BUNDLE_FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "bundle.json").read_text("utf-8"))


def index(**limits: Any) -> Any:
    bundle = copy.deepcopy(BUNDLE_FIXTURE)
    bundle["limits"].update(limits)
    return build_index(bundle)


INDEX = index(render_max_bytes=1 << 20)


class RoutingTest(unittest.TestCase):
    def remote(self, *args: Any, idx: Any = INDEX) -> str:
        result = evaluate(idx, *args)
        self.assertIsInstance(result, Remote, f"expected Remote, got {result!r}")
        assert isinstance(result, Remote)
        return result.reason

    def test_asks_the_server_for_what_the_bundle_cannot_answer(self) -> None:
        self.remote("welcome", {"name": "x"}, "a", idx=None)
        self.assertIn("not in the bundle", self.remote("nope", {}, None))
        self.assertIn("only the server", self.remote("moved", {}, "a"))
        self.remote(123, {}, None)
        self.remote("welcome", {"name": "x"}, 42)  # the server's 422 for a user id that is not a string
        self.remote("welcome", {"name": "x"}, "u" * 257)
        self.remote("welcome", {"name": "x"}, "😀" * 129)  # 258 UTF-16 units
        self.remote("welcome", {"name": "x"}, "a\x00")
        self.remote("welcome", {"name": "x"}, "a\ud800")  # a lone surrogate: the server's string_unicode
        self.remote("welcome", {"name": "x"}, "a\udc00\ud800")
        self.remote("welcome", {"name": "\x00"}, "a")
        self.remote("welcome", {"na\x00me": "x"}, "a")
        self.remote("welcome", {"name": {"deep": ["\x00"]}}, "a")
        self.remote("welcome", {f"k{i}": i for i in range(257)}, "a")
        self.remote("welcome", [("name", "x")], "a")  # not an object
        self.remote("welcome", {"name": object()}, "a")  # not JSON
        self.remote("welcome", {"name": 10**5000}, "a")  # more digits than the server reads
        deep: Any = "x"
        for _ in range(59):
            deep = [deep]
        self.assertIsInstance(evaluate(INDEX, "welcome", {"name": deep}, "a"), Answer)  # 60 levels, inputs the first
        self.remote("welcome", {"name": [deep]}, "a")

    def test_a_body_over_the_server_limit_goes_to_the_server(self) -> None:
        small = index(body_max_bytes=1000, render_max_bytes=1 << 20)
        body = {"prompt_id": "welcome", "inputs": {"name": "é" * 400}, "external_user_id": "a"}
        self.assertLessEqual(len(encode_json(body)), 1000)  # 800 bytes of UTF-8: fits
        self.assertIsInstance(evaluate(small, "welcome", body["inputs"], "a"), Answer)
        self.remote("welcome", {"name": "é" * 500}, "a", idx=small)
        self.remote("welcome", {"name": ["é" * 500]}, "a", idx=small)

    def test_a_version_missing_from_the_bundle_goes_to_the_server(self) -> None:
        bundle = copy.deepcopy(BUNDLE_FIXTURE)
        welcome = next(p for p in bundle["prompts"] if p["prompt_id"] == "welcome")
        welcome["versions"] = [v for v in welcome["versions"] if v["version"] == 1]
        idx = build_index(bundle)
        self.assertIn("version missing", self.remote("welcome", {"name": "x", "tags": []}, "b", idx=idx))
        self.assertIsInstance(evaluate(idx, "welcome", {"name": "x"}, "c"), Answer)  # control: version 1

    def test_an_unknown_bundle_format_is_refused(self) -> None:
        with self.assertRaises(UnsupportedBundleFormat):
            build_index({**BUNDLE_FIXTURE, "format": 3})
        with self.assertRaises(ValueError):
            build_index({"format": 1, "limits": {}})


class AnswerTest(unittest.TestCase):
    def test_inputs_as_the_server_receives_them(self) -> None:
        # The slow path (a tuple, integer keys) and the fast path answer alike.
        fast = evaluate(INDEX, "welcome", {"name": "Ada", "tags": [1, "x"]}, "b")
        slow = evaluate(INDEX, "welcome", {"name": "Ada", "tags": (1.0, "x"), 7: None}, "b")
        assert isinstance(fast, Answer) and isinstance(slow, Answer)
        self.assertEqual(fast.body, slow.body)
        self.assertEqual(fast.body["prompt_text"], "Greet Ada warmly, 1, x.")
        self.assertEqual(fast.exposure and (fast.exposure.experiment_id, fast.exposure.external_user_id, fast.exposure.variant), ("welcome-warmth", "b", "warm"))

    def test_an_empty_user_id_is_served_but_never_assigned(self) -> None:
        result = evaluate(INDEX, "welcome", {"name": "Ada"}, "")
        assert isinstance(result, Answer)
        self.assertIsNone(result.exposure)
        self.assertEqual(result.body["prompt_version"], 1)

    def test_a_pair_written_as_two_code_points_is_the_users_character(self) -> None:
        joined = evaluate(INDEX, "welcome", {"name": "\ud83d\ude00", "tags": []}, "\ud83d\ude00")
        assert isinstance(joined, Answer) and joined.exposure is not None
        self.assertEqual(joined.exposure.external_user_id, "😀")
        self.assertEqual(joined.body["prompt_text"], "Greet 😀 warmly.")


class ErrorTest(unittest.TestCase):
    def test_errors_echo_what_the_server_holds(self) -> None:
        result = evaluate(INDEX, "welcome", {"big": 12345678901234567890, "n": float("nan"), "f": 1.0}, "c")
        assert isinstance(result, Invalid)
        self.assertEqual(result.detail, [{"type": "missing", "loc": ["body", "inputs", "name"], "msg": "Field required", "input": {"big": 12345678901234567000, "n": None, "f": 1}}])
        self.assertEqual(result.exposure and result.exposure.variant, "control")

    def test_no_user_while_an_experiment_runs(self) -> None:
        absent = evaluate(INDEX, "welcome")
        assert isinstance(absent, Invalid)
        self.assertIsNone(absent.exposure)
        self.assertEqual(absent.detail[0]["input"], {"prompt_id": "welcome", "inputs": {}})
        # The echo is the body as sent: a null sent is a null echoed.
        null = evaluate(INDEX, "welcome", None, None)
        assert isinstance(null, Invalid)
        self.assertEqual(null.detail[0]["input"], {"prompt_id": "welcome", "inputs": {}, "external_user_id": None})

    def test_an_error_is_answered_locally_only_well_within_the_servers_bounds(self) -> None:
        # The rule every client applies (docs/sdks.md): at most 50 items and 8 192 bytes of JSON,
        # each echo at most 2 048 bytes, no string longer than 500 UTF-16 units; else the server answers.
        bundle: Dict[str, Any] = copy.deepcopy(BUNDLE_FIXTURE)
        for prompt_id, count in (("many", 60), ("ten", 10)):
            names = [{"type": "value", "name": f"v{i}"} for i in range(count)]
            bundle["prompts"].append({"prompt_id": prompt_id, "served_version": 1, "versions": [{"version": 1, "kind": "text", "template": names, "messages": None}]})
        idx = build_index(bundle)
        cases: List[Tuple[str, str, Dict[str, Any], Any]] = [
            ("a 500-character string", "welcome", {"other": "x" * 500}, Invalid),
            ("a 501-character string", "welcome", {"other": "x" * 501}, Remote),
            ("a 501-character key", "welcome", {"k" * 501: "x"}, Remote),
            ("an echo over 2 048 bytes (CJK: 3 bytes a character)", "welcome", {"other": ["中" * 100] * 7}, Remote),
            ("an echo within 2 048 bytes", "welcome", {"other": ["中" * 100] * 6}, Invalid),
            ("60 missing names: over 50 items", "many", {}, Remote),
            ("ten missing names echoing 1 800 bytes each: over 8 192 bytes in all", "ten", {"pad": ["y" * 450] * 4}, Remote),
            ("ten missing names echoing 460 bytes each", "ten", {"pad": ["y" * 450]}, Invalid),
        ]
        for what, prompt_id, inputs, expected in cases:
            with self.subTest(what):
                self.assertIsInstance(evaluate(idx, prompt_id, inputs, "c"), expected)

if __name__ == "__main__":
    unittest.main()
