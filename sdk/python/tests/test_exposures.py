"""The exposure queue: what a batch holds, and that a failed batch is resent unchanged before new ones."""

from __future__ import annotations

import unittest
from typing import Any, Dict, List, Tuple

from promptline._exposures import ExposureReporter, iso_utc
from promptline._transport import Transport

from .support.fake import FakeServer

OK: Tuple[int, Any, Dict[str, str]] = (200, {"accepted": 1, "conflicts": [], "skipped": []}, {})


class ExposureTest(unittest.TestCase):
    def setUp(self) -> None:
        self.server = FakeServer()
        self.addCleanup(self.server.close)
        self.errors: List[BaseException] = []
        self.now = 1795773600.0  # 2026-11-27T10:00:00Z
        transport = Transport(self.server.url, "pl_r_key", timeout=2.0, max_retries=0, sleep=lambda _: None)
        self.reporter = ExposureReporter(transport, self.errors.append, max_pending=3000, clock=lambda: self.now)

    def test_calls_are_gathered_per_user_with_first_and_last_seen(self) -> None:
        self.server.default("/sdk/exposures", OK)
        self.reporter.record("exp", "u1", "a")
        self.now += 0.95
        self.reporter.record("exp", "u1", "a")
        self.reporter.record("exp", "u2", "b")
        self.assertEqual(self.reporter.pending(), 2)
        self.assertTrue(self.reporter.flush())
        (seen,) = self.server.requests_to("/sdk/exposures")
        self.assertEqual(
            seen.body["exposures"],
            [
                {"experiment_id": "exp", "external_user_id": "u1", "variant": "a", "calls": 2, "first_seen": "2026-11-27T10:00:00.000Z", "last_seen": "2026-11-27T10:00:00.950Z"},
                {"experiment_id": "exp", "external_user_id": "u2", "variant": "b", "calls": 1, "first_seen": "2026-11-27T10:00:00.950Z", "last_seen": "2026-11-27T10:00:00.950Z"},
            ],
        )
        self.assertTrue(seen.headers["idempotency-key"])
        self.assertEqual((self.reporter.pending(), self.reporter.sent), (0, 2))

    def test_batches_of_at_most_1000_each_with_its_own_key(self) -> None:
        self.server.default("/sdk/exposures", OK)
        for i in range(2500):
            self.reporter.record("exp", f"user-{i}", "a")
        self.assertTrue(self.reporter.flush())
        seen = self.server.requests_to("/sdk/exposures")
        self.assertEqual([len(s.body["exposures"]) for s in seen], [1000, 1000, 500])
        self.assertEqual(len({s.headers["idempotency-key"] for s in seen}), 3)
        self.assertEqual(self.reporter.sent, 2500)

    def test_a_failed_batch_is_resent_unchanged_before_new_ones(self) -> None:
        self.server.script("/sdk/exposures", (503, {"detail": "busy"}, {}))
        self.server.default("/sdk/exposures", OK)
        self.reporter.record("exp", "u1", "a")
        self.assertFalse(self.reporter.flush())
        self.assertEqual(self.reporter.pending(), 1)
        self.assertEqual(len(self.errors), 1)
        self.now += 5
        self.reporter.record("exp", "u1", "a")  # a new call of the same user: a new entry, in a later batch
        self.reporter.record("exp", "u2", "b")
        self.assertTrue(self.reporter.flush())
        first, again, later = self.server.requests_to("/sdk/exposures")
        self.assertEqual((again.headers["idempotency-key"], again.body), (first.headers["idempotency-key"], first.body))
        self.assertNotEqual(later.headers["idempotency-key"], first.headers["idempotency-key"])
        self.assertEqual([e["external_user_id"] for e in later.body["exposures"]], ["u1", "u2"])
        self.assertEqual(self.reporter.sent, 3)

    def test_a_batch_the_server_refuses_is_dropped_and_counted(self) -> None:
        self.server.script("/sdk/exposures", (422, {"detail": [{"type": "x", "loc": [], "msg": "bad", "input": None}]}, {}))
        self.reporter.record("exp", "u1", "a")
        self.assertTrue(self.reporter.flush())
        self.assertEqual((self.reporter.pending(), self.reporter.dropped, self.reporter.sent), (0, 1, 0))
        self.assertEqual(len(self.errors), 1)

    def test_the_queue_is_bounded(self) -> None:
        for i in range(3005):
            self.reporter.record("exp", f"user-{i}", "a")
        self.reporter.record("exp", "user-0", "a")  # a known user still counts its call
        self.assertEqual((self.reporter.pending(), self.reporter.dropped), (3000, 5))

    def test_iso_times(self) -> None:
        self.assertEqual(iso_utc(0), "1970-01-01T00:00:00.000Z")
        self.assertEqual(iso_utc(1795773600.9996), "2026-11-27T10:00:01.000Z")


if __name__ == "__main__":
    unittest.main()
