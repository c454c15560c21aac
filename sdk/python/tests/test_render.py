"""The template walk: lookup, text, truthiness and the budget, on trees as the bundle carries them."""

from __future__ import annotations

import unittest
from typing import Any, Dict, List, Tuple

from promptline._mustache import TemplateError, parse_template
from promptline._render import prepare_nodes, render_version


def render(template: str, inputs: Dict[str, Any], max_bytes: int = 1 << 20, max_steps: int = 50000) -> Any:
    result = render_version([prepare_nodes(parse_template(template))], inputs, max_bytes, max_steps)
    if result.exceeded:
        return ("exceeded", result.exceeded)
    if result.missing:
        return ("missing", result.missing)
    return result.contents[0]


RENDERS: List[Tuple[str, Dict[str, Any], str]] = [
    ("Hi {{name}}.", {"name": "Ada"}, "Hi Ada."),
    ("{{n}}|{{f}}|{{z}}|{{b}}|{{u}}", {"n": 1.0, "f": 1e21, "z": -0.0, "b": False, "u": None}, "1|1e+21|0|false|"),
    ("{{big}}", {"big": 12345678901234567890}, "12345678901234567000"),
    ("{{x}}", {"x": float("nan")}, "NaN"),
    ("{{o}}", {"o": {"b": 1, "1": [1.0, float("inf")]}}, '{"1":[1,null],"b":1}'),
    ("<{{html}}>", {"html": "<b>&</b>"}, "<<b>&</b>>"),  # nothing is escaped
    ("{{{a}}}{{& a}}", {"a": "<"}, "<<"),
    # Lists: own keys are the indices and length.
    ("{{items.length}} {{items.1}}", {"items": ["a", "b"]}, "2 b"),
    ("{{#items}}[{{.}}]{{/items}}", {"items": [1, "x", None, True]}, "[1][x][][true]"),
    ("{{#items}}{{name}},{{/items}}", {"items": [{"name": "a"}, {"name": "b"}]}, "a,b,"),
    ("{{#items}}{{length}}{{/items}}", {"items": [[1, 2, 3]]}, "3"),
    # Lookup goes down the stack to the first context that has the name.
    ("{{#o}}{{name}}-{{outer}}{{/o}}", {"o": {"name": "in"}, "outer": "out"}, "in-out"),
    ("{{#o}}{{o.name}}{{/o}}", {"o": {"name": "x"}}, "x"),
    # Truthiness: an empty object is truthy, NaN and empty lists falsy.
    ("{{#e}}yes{{/e}}{{^e}}no{{/e}}", {"e": {}}, "yes"),
    ("{{#e}}yes{{/e}}{{^e}}no{{/e}}", {"e": []}, "no"),
    ("{{#e}}yes{{/e}}{{^e}}no{{/e}}", {"e": float("nan")}, "no"),
    ("{{#e}}yes{{/e}}{{^e}}no{{/e}}", {"e": 0.0}, "no"),
    ("{{#e}}yes{{/e}}{{^e}}no{{/e}}", {"e": ""}, "no"),
    ("{{#e}}yes{{/e}}{{^e}}no{{/e}}", {"e": "0"}, "yes"),
    ("{{#e}}{{.}}{{/e}}", {"e": 5}, '{"e":5}'),  # a scalar section keeps the stack: "." is the inputs
    ("{{^gone}}absent{{/gone}}", {}, "absent"),
    # Split surrogates written one after the other make one character, as in JavaScript.
    ("{{a}}{{b}}", {"a": "\ud83d", "b": "\ude00"}, "😀"),
    ("{{a}}", {"a": "\ud800"}, "\ud800"),
]


class RenderTest(unittest.TestCase):
    def test_renders(self) -> None:
        for template, inputs, expected in RENDERS:
            with self.subTest(template=template, inputs=inputs):
                self.assertEqual(render(template, inputs), expected)

    def test_missing_names_are_collected_in_the_order_met(self) -> None:
        self.assertEqual(render("{{b}}{{a}}{{b}}{{#s}}{{/s}}{{c.d}}", {"c": {}}), ("missing", ["b", "a", "s", "c.d"]))
        # Own keys only: a string has no "length", a list no "01".
        self.assertEqual(render("{{s.length}}{{l.01}}{{l.5}}", {"s": "abc", "l": [1]}), ("missing", ["s.length", "l.01", "l.5"]))
        # Inside an inverted section an absent name is fine.
        self.assertEqual(render("{{^a}}{{b}}{{/a}}", {"a": 1}), "")

    def test_budget_counts_every_step_and_byte(self) -> None:
        # Three nodes: text, value, text. Exactly at the limit is allowed, one over is not.
        self.assertEqual(render("ab{{x}}cd", {"x": "é"}, max_bytes=6), "abécd")
        self.assertEqual(render("ab{{x}}cd", {"x": "é"}, max_bytes=5), ("exceeded", "bytes"))
        self.assertEqual(render("ab{{x}}cd", {"x": "é"}, max_steps=3), "abécd")
        self.assertEqual(render("ab{{x}}cd", {"x": "é"}, max_steps=2), ("exceeded", "steps"))
        # Each item a section walks is one more step: 1 (section) + 3 × (1 item + 1 text).
        self.assertEqual(render("{{#l}}x{{/l}}", {"l": [1, 2, 3]}, max_steps=7), "xxx")
        self.assertEqual(render("{{#l}}x{{/l}}", {"l": [1, 2, 3]}, max_steps=6), ("exceeded", "steps"))
        # A lone surrogate counts three bytes, as Node writes it (U+FFFD).
        self.assertEqual(render("{{x}}", {"x": "\ud800"}, max_bytes=2), ("exceeded", "bytes"))
        # The budget wins over missing names.
        self.assertEqual(render("{{gone}}{{x}}", {"x": "long"}, max_bytes=3), ("exceeded", "bytes"))

    def test_one_budget_for_all_templates_of_a_version(self) -> None:
        templates = [prepare_nodes(parse_template(t)) for t in ["{{a}}{{m1}}", "{{a}}{{m2}}{{m1}}"]]
        both = render_version(templates, {"a": "xxxx"}, 1 << 20, 50000)
        self.assertEqual(both.missing, ["m1", "m2"])
        self.assertEqual(both.contents, ["", ""])
        over = render_version(templates, {"a": "xxxx", "m1": "", "m2": ""}, 7, 50000)
        self.assertEqual(over.exceeded, "bytes")
        self.assertEqual(over.contents, ["xxxx", ""])


class MustacheTest(unittest.TestCase):
    def test_node_trees(self) -> None:
        cases: List[Any] = [
            ("", []),
            ("plain", [{"type": "text", "text": "plain"}]),
            ("a {{ x }} b", [{"type": "text", "text": "a "}, {"type": "value", "name": "x"}, {"type": "text", "text": " b"}]),
            ("{{{x}}}{{&y}}", [{"type": "value", "name": "x"}, {"type": "value", "name": "y"}]),
            ("{{#s}}in{{/s}}", [{"type": "section", "name": "s", "nodes": [{"type": "text", "text": "in"}]}]),
            ("{{^s}}{{/s}}", [{"type": "inverted", "name": "s", "nodes": []}]),
            # A comment renders nothing, and splits the text around it into two nodes.
            ("a{{! note }}b", [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]),
            # Standalone section and comment lines take their whitespace and newline with them.
            ("list:\n  {{#items}}\n  - {{.}}\n  {{/items}}\nend", [
                {"type": "text", "text": "list:\n"},
                {"type": "section", "name": "items", "nodes": [{"type": "text", "text": "  - "}, {"type": "value", "name": "."}, {"type": "text", "text": "\n"}]},
                {"type": "text", "text": "end"},
            ]),
            ("a\n  {{! c }}  \nb", [{"type": "text", "text": "a\n"}, {"type": "text", "text": "b"}]),
            # A value on the line makes it not standalone.
            ("{{#s}} {{x}}\n{{/s}}", [{"type": "section", "name": "s", "nodes": [{"type": "text", "text": " "}, {"type": "value", "name": "x"}, {"type": "text", "text": "\n"}]}]),
            # The last line is standalone without a newline too.
            ("x\n{{#s}}{{/s}}", [{"type": "text", "text": "x\n"}, {"type": "section", "name": "s", "nodes": []}]),
        ]
        for template, expected in cases:
            with self.subTest(template=template):
                self.assertEqual(parse_template(template), expected)

    def test_refusals(self) -> None:
        for template, message in [
            ("{{> partial}}", "partials"),
            ("{{=<% %>=}}", "delimiter"),
            ("{{#a}}", 'Unclosed section "a"'),
            ("{{/a}}", 'Unopened section "a"'),
            ("{{#a}}{{/b}}", 'Unclosed section "a"'),
            ("{{name", "Unclosed tag"),
            ("{{#s}}" * 33 + "{{/s}}" * 33, "deeper than 32"),
        ]:
            with self.subTest(template=template[:20]):
                with self.assertRaises(TemplateError) as caught:
                    parse_template(template)
                self.assertIn(message, str(caught.exception))
        self.assertEqual(len(parse_template("{{#s}}" * 32 + "{{/s}}" * 32)), 1)


if __name__ == "__main__":
    unittest.main()
