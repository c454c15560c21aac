"""HTTP: what is retried, how long it waits, what a write sends on each attempt, what errors say."""

from __future__ import annotations

import time
import unittest
from typing import Any, List

from promptline import PromptlineApiError, PromptlineConnectionError, PromptlineValidationError
from promptline._transport import Transport

from .support.fake import FakeServer, Seen
from .support.server import free_port

KEY = "pl_r_THIS-KEY-MUST-NEVER-SHOW-UP-0123456789"


class TransportTest(unittest.TestCase):
    def setUp(self) -> None:
        self.server = FakeServer()
        self.addCleanup(self.server.close)
        self.sleeps: List[float] = []
        self.transport = Transport(self.server.url, KEY, timeout=2.0, max_retries=3, sleep=self.sleeps.append)

    def assert_no_key(self, error: BaseException) -> None:
        for text in (str(error), repr(error), repr(error.args)):
            self.assertNotIn(KEY, text)
            self.assertNotIn(KEY[8:20], text)

    def test_a_write_sends_the_same_key_and_bytes_on_every_attempt(self) -> None:
        self.server.script("/track_outcome", (503, {"detail": "busy"}, {}), (502, {"detail": "bad gateway"}, {}), (200, {"outcome_id": "o1"}, {}))
        answer = self.transport.request("POST", "/track_outcome", {"prompt_id": "p", "n": 1.5}, idempotency_key="k-1")
        self.assertEqual(answer.body, {"outcome_id": "o1"})
        seen = self.server.requests_to("/track_outcome")
        self.assertEqual(len(seen), 3)
        self.assertEqual({s.headers["idempotency-key"] for s in seen}, {"k-1"})
        self.assertEqual([s.body for s in seen], [{"prompt_id": "p", "n": 1.5}] * 3)
        self.assertEqual(seen[0].headers["content-type"], "application/json")
        self.assertEqual(seen[0].headers["x-api-key"], KEY)
        # Exponential backoff with jitter: [0.05, 0.1), then [0.1, 0.2).
        self.assertEqual(len(self.sleeps), 2)
        self.assertTrue(0.05 <= self.sleeps[0] <= 0.1 and 0.1 <= self.sleeps[1] <= 0.2, self.sleeps)

    def test_429_waits_for_retry_after(self) -> None:
        self.server.script("/get_prompt", (429, {"detail": "slow down"}, {"Retry-After": "2"}), (200, {"ok": True}, {}))
        self.assertEqual(self.transport.request("POST", "/get_prompt", {}).body, {"ok": True})
        self.assertEqual(self.sleeps, [2.0])

    def test_a_retry_after_too_long_to_wait_is_raised(self) -> None:
        for seconds in ("11", "86400"):
            with self.subTest(retry_after=seconds):
                self.server.script("/get_prompt", (429, {"detail": "come back later"}, {"Retry-After": seconds}))
                with self.assertRaises(PromptlineApiError) as caught:
                    self.transport.request("POST", "/get_prompt", {})
                self.assertEqual((caught.exception.status, caught.exception.retry_after), (429, float(seconds)))
        self.assertEqual(self.sleeps, [])

    def test_other_4xx_are_raised_at_once_with_the_servers_detail(self) -> None:
        for status in (400, 401, 403, 404, 409, 413):
            with self.subTest(status=status):
                self.server.script("/run_prompt", (status, {"detail": f"no ({status})"}, {}))
                with self.assertRaises(PromptlineApiError) as caught:
                    self.transport.request("POST", "/run_prompt", {"x": 1}, idempotency_key="k")
                self.assertEqual((caught.exception.status, caught.exception.detail), (status, f"no ({status})"))
                self.assertIn(f"no ({status})", str(caught.exception))
                self.assert_no_key(caught.exception)
        self.assertEqual(len(self.server.requests_to("/run_prompt")), 6)
        self.assertEqual(self.sleeps, [])

    def test_422_carries_the_items(self) -> None:
        items = [{"type": "missing", "loc": ["body", "inputs", "name"], "msg": "Field required", "input": {}}]
        self.server.script("/get_prompt", (422, {"detail": items}, {}))
        with self.assertRaises(PromptlineValidationError) as caught:
            self.transport.request("POST", "/get_prompt", {})
        self.assertEqual((caught.exception.status, caught.exception.errors, caught.exception.detail), (422, items, items))
        self.assertIn("body.inputs.name: Field required", str(caught.exception))

    def test_gives_up_after_max_retries(self) -> None:
        self.server.default("/get_prompt", (500, {"detail": "boom"}, {}))
        with self.assertRaises(PromptlineApiError) as caught:
            self.transport.request("POST", "/get_prompt", {})
        self.assertEqual(caught.exception.status, 500)
        self.assertEqual(len(self.server.requests_to("/get_prompt")), 4)

    def test_no_connection(self) -> None:
        transport = Transport(f"http://127.0.0.1:{free_port()}", KEY, timeout=1.0, max_retries=2, sleep=self.sleeps.append)
        with self.assertRaises(PromptlineConnectionError) as caught:
            transport.request("GET", "/sdk/bundle")
        self.assertIsNone(caught.exception.status)
        self.assertEqual(len(self.sleeps), 2)
        self.assert_no_key(caught.exception)

    def test_a_timeout_is_a_connection_error(self) -> None:
        def slow(_: Seen) -> Any:
            time.sleep(0.6)
            return (200, {}, {})

        self.server.default("/get_prompt", slow)
        transport = Transport(self.server.url, KEY, timeout=0.2, max_retries=1, sleep=self.sleeps.append)
        with self.assertRaises(PromptlineConnectionError) as caught:
            transport.request("POST", "/get_prompt", {})
        self.assertIn("timed out", str(caught.exception))
        self.assertEqual(len(self.sleeps), 1)

    def test_304_is_an_answer(self) -> None:
        self.server.script("/sdk/bundle", (304, None, {"ETag": '"e1"'}))
        answer = self.transport.request("GET", "/sdk/bundle", headers={"If-None-Match": '"e1"'})
        self.assertEqual((answer.status, answer.headers.get("etag")), (304, '"e1"'))
        self.assertEqual(self.server.requests_to("/sdk/bundle")[0].headers["if-none-match"], '"e1"')

    def test_the_transport_does_not_show_its_key(self) -> None:
        self.assertNotIn(KEY, repr(self.transport))
        self.assertNotIn(KEY, str(vars(self.transport).get("_base")))


if __name__ == "__main__":
    unittest.main()
