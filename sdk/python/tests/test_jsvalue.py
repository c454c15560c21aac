"""JavaScript's String(n), JSON.stringify and string lengths, as tables of known answers."""

from __future__ import annotations

import unittest

from promptline._assign import assign, choose_variant, fnv1a32, hash_v2
from promptline._jsvalue import as_javascript_sees_it, is_array_index, join_surrogates, js_number, js_stringify, utf8_length, utf16_length

NUMBERS = [
    (1.0, "1"),
    (1, "1"),
    (1.5, "1.5"),
    (-1.5, "-1.5"),
    (0.1, "0.1"),
    (-0.0, "0"),
    (0, "0"),
    (1e21, "1e+21"),
    (1e20, "100000000000000000000"),
    (123456789012345680000, "123456789012345680000"),
    (123456789012345680000.0, "123456789012345680000"),
    (1e-6, "0.000001"),
    (1e-7, "1e-7"),
    (1.5e-7, "1.5e-7"),
    (-1e-7, "-1e-7"),
    (5e-324, "5e-324"),
    (1.7976931348623157e308, "1.7976931348623157e+308"),
    (2.5e25, "2.5e+25"),
    (0.000123, "0.000123"),
    (123.456, "123.456"),
    (100.0, "100"),
    (2**53, "9007199254740992"),
    (2**53 + 1, "9007199254740992"),  # beyond 2**53 an integer is the nearest double
    (12345678901234567890, "12345678901234567000"),
    (-12345678901234567890, "-12345678901234567000"),
    (10**21, "1e+21"),
    (10**400, "Infinity"),  # JSON.parse gives Infinity for a number beyond the doubles
    (-(10**400), "-Infinity"),
    (float("nan"), "NaN"),
    (float("inf"), "Infinity"),
    (float("-inf"), "-Infinity"),
]

STRINGIFY = [
    ({}, "{}"),
    ([], "[]"),
    ({"a": 1.0, "b": [True, None, "x"]}, '{"a":1,"b":[true,null,"x"]}'),
    # Integer-like keys first, ascending; then the others in insertion order.
    ({"b": 1, "2": 2, "a": 3, "1": 4, "01": 5, "-1": 6, "4294967294": 7, "4294967295": 8}, '{"1":4,"2":2,"4294967294":7,"b":1,"a":3,"01":5,"-1":6,"4294967295":8}'),
    ([float("nan"), float("inf"), -0.0, 1e21, 12345678901234567890], "[null,null,0,1e+21,12345678901234567000]"),
    ('"\\/\b\f\n\r\t', '"\\"\\\\/\\b\\f\\n\\r\\t"'),
    ("\x00\x01\x1f\x7f", '"\\u0000\\u0001\\u001f\x7f"'),
    ("\u2028\u2029é😀", '"\u2028\u2029é😀"'),
    ("\ud800 \udfff", '"\\ud800 \\udfff"'),
    ({"k": {"n": [{"x": []}]}}, '{"k":{"n":[{"x":[]}]}}'),
]


class NumberTest(unittest.TestCase):
    def test_string_of_a_number_as_javascript_writes_it(self) -> None:
        for value, expected in NUMBERS:
            with self.subTest(value=value):
                self.assertEqual(js_number(value), expected)


class StringifyTest(unittest.TestCase):
    def test_json_as_javascript_writes_it(self) -> None:
        for value, expected in STRINGIFY:
            with self.subTest(value=value):
                self.assertEqual(js_stringify(value), expected)

    def test_what_a_client_reads_back_from_the_server(self) -> None:
        echoed = as_javascript_sees_it({"n": 1.0, "big": 12345678901234567890, "nan": float("nan"), "2": 0, "1": 0})
        self.assertEqual(echoed, {"1": 0, "2": 0, "n": 1, "big": 12345678901234567000, "nan": None})
        self.assertEqual(list(echoed), ["1", "2", "n", "big", "nan"])

    def test_array_indices(self) -> None:
        for key, expected in [("0", True), ("7", True), ("4294967294", True), ("4294967295", False), ("01", False), ("-1", False), ("1.0", False), ("", False), ("١", False), ("length", False)]:
            with self.subTest(key=key):
                self.assertEqual(is_array_index(key), expected)


class LengthTest(unittest.TestCase):
    def test_utf8_bytes_as_node_counts_them(self) -> None:
        for text, expected in [("", 0), ("abc", 3), ("é", 2), ("中", 3), ("😀", 4), ("\ud800", 3), ("a\udc00b", 5)]:
            with self.subTest(text=text):
                self.assertEqual(utf8_length(text), expected)

    def test_utf16_code_units(self) -> None:
        self.assertEqual(utf16_length("a😀é"), 4)

    def test_a_pair_written_as_two_code_points_is_one_character(self) -> None:
        self.assertEqual(join_surrogates("x\ud83d\ude00y"), "x😀y")
        self.assertEqual(join_surrogates("\ude00\ud83d"), "\ude00\ud83d")  # wrong order: two lone halves
        self.assertEqual(join_surrogates("plain"), "plain")


class HashTest(unittest.TestCase):
    def test_growthbook_vectors(self) -> None:
        self.assertEqual(fnv1a32("seeda"), 717764279)
        self.assertEqual(hash_v2("seed", "a"), 0.0505)
        # The hash of a seed and an id is the hash of their concatenation.
        self.assertEqual(hash_v2("se", "eda"), hash_v2("seed", "a"))
        self.assertEqual(fnv1a32(""), 0x811C9DC5)

    def test_utf16_code_units_not_utf8_bytes(self) -> None:
        # "é" is one code unit (0xE9): hashing its two UTF-8 bytes would give another number.
        h = 0x811C9DC5
        h = ((h ^ 0xE9) * 0x01000193) & 0xFFFFFFFF
        self.assertEqual(fnv1a32("é"), h)
        # An astral character is two units; written as one code point or as a pair, the same.
        self.assertEqual(fnv1a32("😀"), fnv1a32("\ud83d\ude00"))

    def test_ranges_choose_the_first_holding_the_bucket(self) -> None:
        ranges = [(0.0, 0.35), (0.5, 0.85)]
        self.assertEqual(choose_variant(0.0, ranges), 0)
        self.assertEqual(choose_variant(0.35, ranges), -1)
        self.assertEqual(choose_variant(0.5, ranges), 1)
        self.assertEqual(choose_variant(0.85, ranges), -1)
        self.assertIsNone(assign("seed", "", [(0.0, 1.0)]), "an empty id is never assigned")
        self.assertEqual(assign("seed", "a", [(0.0, 0.0505), (0.0505, 1.0)]), 1)
        self.assertEqual(assign("seed", "a", [(0.0, 0.0506), (0.0506, 1.0)]), 0)


if __name__ == "__main__":
    unittest.main()
