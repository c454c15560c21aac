"""Variant assignment: GrowthBook's hash v2, as the server computes it (src/modules/experiments/assignment.ts).

The hash runs over UTF-16 code units, not UTF-8 bytes or code points, because the server (and
GrowthBook's JavaScript SDK) hash JavaScript strings. Bucket ranges are never recomputed here: the
bundle carries the server's own, so floating-point boundaries cannot differ.
"""

from __future__ import annotations

import sys
from array import array
from typing import Iterable, Optional, Sequence, Tuple

_FNV_OFFSET_BASIS = 0x811C9DC5
_FNV_PRIME = 0x01000193
_MASK = 0xFFFFFFFF


def _code_units(s: str) -> Iterable[int]:
    """The UTF-16 code units of ``s`` (surrogatepass: a lone surrogate is one unit, as in JavaScript)."""
    if s.isascii():
        return s.encode("ascii")
    units = array("H", s.encode("utf-16-le", "surrogatepass"))
    if sys.byteorder == "big":
        units.byteswap()
    return units


def fnv_update(h: int, s: str) -> int:
    """Continues an FNV-1a 32-bit hash over the UTF-16 code units of ``s``."""
    for unit in _code_units(s):
        h = ((h ^ unit) * _FNV_PRIME) & _MASK
    return h


def fnv1a32(s: str) -> int:
    """FNV-1a 32-bit over UTF-16 code units, as GrowthBook's ``hashFnv32a``: ``fnv1a32("seeda") == 717764279``."""
    return fnv_update(_FNV_OFFSET_BASIS, s)


def hash_v2(seed: str, user_id: str) -> float:
    """GrowthBook hash v2: ``(fnv1a32(str(fnv1a32(seed + id))) % 10000) / 10000``, in [0, 1) with 4 decimals."""
    inner = fnv_update(fnv_update(_FNV_OFFSET_BASIS, seed), user_id)
    return (fnv1a32(str(inner)) % 10000) / 10000


def choose_variant(n: float, ranges: Sequence[Tuple[float, float]]) -> int:
    """Index of the first range with ``lo <= n < hi``, or -1 (GrowthBook ``chooseVariation``)."""
    for i, (lo, hi) in enumerate(ranges):
        if lo <= n < hi:
            return i
    return -1


def assign(seed: str, user_id: str, ranges: Sequence[Tuple[float, float]]) -> Optional[int]:
    """The variant index of a user, or None outside coverage; an empty id is never assigned (GrowthBook skips it)."""
    if user_id == "":
        return None
    i = choose_variant(hash_v2(seed, user_id), ranges)
    return None if i < 0 else i
