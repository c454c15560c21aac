"""Differential tests: the Python ports against the built server's own code, on generated cases.

The tables in the other test files pin known answers; these look for the answers nobody thought
of: thousands of random templates (standalone lines, comments, sections over lists and objects,
dotted names, ``length``, budgets that run out), inputs with NaN, huge integers, lone surrogates
and integer-like keys, user ids in every script. Seeds are fixed, so a failure reproduces.
"""

from __future__ import annotations

import json
import random
import struct
import unittest
from typing import Any, Dict, List

from promptline._assign import fnv1a32, hash_v2
from promptline._evaluate import local_error_fits
from promptline._jsvalue import as_javascript_sees_it, js_number, js_stringify
from promptline._linear_match import Unsupported, compile_pattern
from promptline._mustache import TemplateError, parse_template
from promptline._render import prepare_nodes, render_version

from .support.oracle import ask, oracle_available
from .support.server import unavailable
from .test_linear_match import ORDINARY, TEXTS as PATTERN_TEXTS, random_pattern

NAMES = ["a", "b", "a.b", "items", "items.length", "items.0", "items.1", ".", "x.y.z", "n", "t", "o", "o.k", "l.length", "__proto__", "constructor", "u", "1"]
TEXTS = ["hi", " ", "\n", "  \n", "\t", "x\n", "é", "😀", "\u2028", "\r\n", "{", "}", "{{", "a}}", "\u00a0", "\ufeff", "\ud800", "\udc00"]
KEYS = ["a", "b", "k", "y", "z", "1", "0", "10", "01", "length", "__proto__", ".", "4294967295"]
SCALARS: List[Any] = [0, 1, -1, 1.5, 0.0, -0.0, 1e21, 1e-7, 12345678901234567890, float("nan"), float("inf"), 2**53 + 1, 0.1, 5e-324]
STRINGS = ["", "x", "hello", "é😀", "\ud800", "\udc00", "\ud83d", "\ude00", '"q"\n', "\x01", "\u2028"]


def _template(rng: random.Random, depth: int = 0) -> str:
    parts: List[str] = []
    for _ in range(rng.randint(0, 6)):
        r = rng.random()
        if r < 0.3:
            parts.append(rng.choice(TEXTS))
        elif r < 0.5:
            parts.append("{{" + rng.choice(["", " ", "  "]) + rng.choice(NAMES) + rng.choice(["", " "]) + "}}")
        elif r < 0.55:
            parts.append("{{{" + rng.choice(NAMES) + "}}}")
        elif r < 0.6:
            parts.append("{{& " + rng.choice(NAMES) + "}}")
        elif r < 0.65:
            parts.append(rng.choice(["", "  "]) + "{{! note " + rng.choice(["", "\n"]) + "}}" + rng.choice(["", "\n", " \n"]))
        elif r < 0.92 and depth < 4:
            name = rng.choice(NAMES)
            kind = rng.choice("#^")
            inner = _template(rng, depth + 1)
            parts.append(
                rng.choice(["", "  ", "\n"])
                + "{{" + kind + name + "}}" + rng.choice(["", "\n", "  \n", " "])
                + inner
                + rng.choice(["", "\n", "\n  ", " "]) + "{{/" + name + "}}"
                + rng.choice(["", "\n", " \n", "x"])
            )
        elif rng.random() < 0.1:
            parts.append(rng.choice(["{{/a}}", "{{#a}}", "{{> p}}", "{{=<% %>=}}", "{{a", "plain"]))
    return "".join(parts)


def _value(rng: random.Random, depth: int = 0) -> Any:
    r = rng.random() * (0.6 if depth > 3 else 1)
    if r < 0.1:
        return None
    if r < 0.2:
        return rng.choice([True, False])
    if r < 0.35:
        return rng.choice(SCALARS)
    if r < 0.6:
        return rng.choice(STRINGS)
    if r < 0.8:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(KEYS): _value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def _inputs(rng: random.Random) -> Dict[str, Any]:
    keys = ["a", "b", "items", "x", "n", "t", "o", "l", "__proto__", "constructor", "u", "1"]
    return {k: _value(rng) for k in rng.sample(keys, rng.randint(0, 8))}


#: Patterns where engines part ways: shorthands, escapes, anchors, classes.
_PATTERN_EDGES = [
    r"^\s+$", r"^\S+$", r"^[\s\d]$", r"^[^\s]$", r"^.$", r"^.+$", r"^[.]$", r"\B", r"^\B$", r"\b", r"a$", r"^$",
    r"^\x41$", r"^\u0041$", r"^\0$", r"^[\b]$", r"^\/$", r"^[\-a]+$", r"^(?:)$", r"^[\]]$", r"^\t\n\v\f\r$",
    r"[]|[a]", r"^[^]$", r"\cJ", r"\p{L}", r"(?<n>a)", r"a{,2}", r"^(a)\1$", r"^a(?=b)", r"\k<n>", r"^\u{41}$",
]
#: Texts beyond printable ASCII (the client sends those to the server, but the matcher answers alike).
_BEYOND_ASCII = ["\v", "\u00a0", "\r", "\n", "a\n", "\u2028", "\u3000", "\ufeff", "é", "😀", "\x00", "\b", "\t\n\v\f\r"]


class OracleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        reason = oracle_available()
        if reason:
            raise unavailable(reason)

    def test_templates_parse_and_render_as_the_server_does(self) -> None:
        rng = random.Random(20261127)
        budgets = [(1 << 20, 50000), (30, 50000), (1 << 20, 12), (64, 40)]
        cases: List[Dict[str, Any]] = []
        for _ in range(3000):
            max_bytes, max_steps = rng.choice(budgets)
            templates = [_template(rng) for _ in range(rng.choice([1, 1, 2, 3]))]
            cases.append({"kind": "render", "templates": templates, "inputs_json": json.dumps(_inputs(rng)), "max_bytes": max_bytes, "max_steps": max_steps})
        answers = ask(cases)
        rendered = refused = 0
        for case, answer in zip(cases, answers):
            with self.subTest(templates=case["templates"], inputs=case["inputs_json"]):
                try:
                    wires = [parse_template(t) for t in case["templates"]]
                except TemplateError:
                    self.assertIn("error", answer, "the server compiles a template the fallback parser refuses")
                    refused += 1
                    continue
                self.assertNotIn("error", answer, "the fallback parser accepts a template the server refuses")
                self.assertEqual(wires, answer["wire"])
                result = render_version([prepare_nodes(w) for w in answer["wire"]], json.loads(case["inputs_json"]), case["max_bytes"], case["max_steps"])
                self.assertEqual(
                    {"contents": result.contents, "exceeded": result.exceeded, "missing": result.missing},
                    {"contents": answer["contents"], "exceeded": answer["exceeded"], "missing": answer["missing"]},
                )
                rendered += 1
        # The generator must exercise both paths, or this test proves little.
        self.assertGreater(rendered, 1000)
        self.assertGreater(refused, 50)

    def test_hash_over_utf16_code_units(self) -> None:
        rng = random.Random(5)
        alphabet = ["a", "Z", "0", "-", "é", "ß", "中", "😀", "\ud800", "\udfff", " ", "\x00", "\u2028"]
        cases = [{"kind": "hash", "seed": "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8))), "id": "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))} for _ in range(2000)]
        for case, answer in zip(cases, ask(cases)):
            self.assertEqual(hash_v2(case["seed"], case["id"]), answer["hash"], case)
            self.assertEqual(fnv1a32(case["seed"] + case["id"]), answer["fnv"], case)

    def test_numbers_and_json_as_javascript_writes_them(self) -> None:
        rng = random.Random(11)
        values: List[Any] = []
        for _ in range(3000):
            r = rng.random()
            if r < 0.4:
                x = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
            elif r < 0.7:
                x = rng.uniform(-1e6, 1e6) * 10 ** rng.randint(-30, 30)
            else:
                x = round(rng.uniform(-1e4, 1e4), rng.randint(0, 8))
            values.append(x)
        values += [rng.getrandbits(rng.randint(1, 1100)) * rng.choice([1, -1]) for _ in range(300)]
        values += [_value(rng) for _ in range(1000)]
        cases = [{"kind": "value", "json": json.dumps(v)} for v in values]
        for value, answer in zip(values, ask(cases)):
            if type(value) in (int, float):
                self.assertEqual(js_number(value), answer["string"], repr(value))
            self.assertEqual(js_stringify(value), answer["json"], repr(value))

    def test_patterns_match_as_the_server_matches_them(self) -> None:
        rng = random.Random(38)
        patterns = list(ORDINARY) + list(_PATTERN_EDGES)
        for _ in range(600):
            pattern = random_pattern(rng, 3)
            patterns.append(f"^(?:{pattern})$" if rng.random() < 0.5 else pattern)
        texts = PATTERN_TEXTS + _BEYOND_ASCII
        answers = ask([{"kind": "pattern", "pattern": p, "texts": texts} for p in patterns])
        compared = 0
        for pattern, answer in zip(patterns, answers):
            if answer["refused"] is not None:
                continue  # never in a bundle
            try:
                matcher = compile_pattern(pattern)
            except Unsupported:
                continue  # left to the server
            compared += 1
            for text, expected in zip(texts, answer["matches"]):
                with self.subTest(pattern=pattern, text=text):
                    self.assertEqual(matcher.search(text), expected)
        self.assertGreater(compared, 500)

    def test_errors_answered_locally_are_ones_the_server_sends_unchanged(self) -> None:
        rng = random.Random(3)

        def echo(size: int, depth: int = 0) -> Any:
            r = rng.random()
            if depth > 2 or r < 0.3:
                return rng.choice(["x" * rng.randint(0, size), "é" * rng.randint(0, size // 2), "中" * rng.randint(0, size // 3), rng.randint(-(10**20), 10**20), None, 1.5, True])
            if r < 0.6:
                return [echo(size // 3, depth + 1) for _ in range(rng.randint(0, 5))]
            return {rng.choice(["a", "1", "b" * rng.randint(1, 1010), "k", "2"]) + str(i): echo(size // 3, depth + 1) for i in range(rng.randint(0, 5))}

        cases, details = [], []
        for _ in range(1000):
            shared = echo(rng.choice([300, 1500, 3000, 6000]))
            if rng.random() < 0.2:
                shared = {"prompt_id": "p", "inputs": shared}
                ctx = {"reason": "r" * rng.randint(0, 1100)}
                sent = [{"type": "missing", "loc": ["body", "external_user_id"], "msg": "Field required", "input": shared, "ctx": ctx}]
                held = [{**sent[0], "input": as_javascript_sees_it(shared)}]
            else:
                count = rng.choice([1, 2, 5, 20, 99, 100, 101, 120])
                locs = [["body", "inputs", "v" * rng.choice([1, 1, 999, 1000, 1001]) + str(i)] for i in range(count)]
                sent = [{"type": "missing", "loc": loc, "msg": "Field required", "input": shared} for loc in locs]
                echoed = as_javascript_sees_it(shared)  # one object for all items, as on the server
                held = [{**item, "input": echoed} for item in sent]
            details.append(held)
            cases.append({"kind": "bound", "json": json.dumps(sent)})
        local = unchanged = 0
        for items, answer in zip(details, ask(cases)):
            if local_error_fits(items):
                self.assertTrue(answer["unchanged"], js_stringify(items)[:300])
                local += 1
            unchanged += answer["unchanged"]
        # The rule is safe, not exact: it answers a good share of what the server sends unchanged.
        self.assertGreater(local, 100)
        self.assertLess(local, unchanged)


if __name__ == "__main__":
    unittest.main()
