"""The client against a scripted server: local and remote answers, refreshes, fallbacks, exposures, close."""

from __future__ import annotations

import asyncio
import copy
import json
import os
import subprocess
import sys
import time
import unittest
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

from promptline import (
    AsyncPromptline,
    Promptline,
    PromptlineApiError,
    PromptlineConnectionError,
    PromptlineError,
    PromptlineValidationError,
    PromptResult,
)

from .support.fake import FakeServer
from .support.server import free_port
from .support.limits import STEP_S

KEY = "pl_r_SECRET-KEY-NEVER-TO-BE-PRINTED-0123456789"
SOURCES = str(Path(__file__).resolve().parents[1] / "src")
#: A hand-made bundle: prompts "welcome" (an experiment with a gap in its ranges), "support" (chat), "moved" (remote_only).
BUNDLE_FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "bundle.json").read_text("utf-8"))
BUNDLE = copy.deepcopy(BUNDLE_FIXTURE)
BUNDLE["limits"]["render_max_bytes"] = 1 << 20
SERVED = {"prompt_text": "from the server", "variant_assigned": None, "experiment_id": None, "prompt_version": 3}
FALLBACKS: Dict[str, Any] = {
    "welcome": "Hello {{name}}{{#vip}}, our VIP{{/vip}}.",
    "support": [{"role": "system", "content": "Be kind."}, {"role": "user", "content": "{{question}}"}],
}


def wait_until(condition: Callable[[], bool], seconds: float = STEP_S) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


class LocalClientTest(unittest.TestCase):
    def setUp(self) -> None:
        self.server = FakeServer()
        self.addCleanup(self.server.close)
        self.server.default("/sdk/bundle", (200, BUNDLE, {"ETag": '"v1"'}))
        self.server.default("/sdk/exposures", (200, {"accepted": 1, "conflicts": [], "skipped": []}, {}))
        self.server.default("/get_prompt", (200, SERVED, {}))
        self.errors: List[BaseException] = []

    def client(self, **options: Any) -> Promptline:
        options.setdefault("on_error", self.errors.append)
        client = Promptline(self.server.url, KEY, **options)
        self.addCleanup(client.close)
        return client

    def test_answers_from_the_bundle_and_reports_the_assigned_users(self) -> None:
        client = self.client()
        self.assertTrue(client.ready(STEP_S))
        result = client.get_prompt("welcome", {"name": "Ada", "tags": ["x"]}, "b")
        self.assertEqual(result, PromptResult("Greet Ada warmly, x.", "warm", "welcome-warmth", 2, None, "bundle"))
        chat = client.get_prompt("support", {"user": {"name": "Bo"}, "question": "Why?"})
        self.assertEqual(chat.messages, [{"role": "system", "content": "You help Bo."}, {"role": "user", "content": "Why?"}])
        self.assertEqual(self.server.requests_to("/get_prompt"), [])
        # A render that fails after the assignment still exposed the user, as on the server.
        with self.assertRaises(PromptlineValidationError) as caught:
            client.get_prompt("welcome", {}, "c")
        self.assertEqual(caught.exception.errors[0]["loc"], ["body", "inputs", "name"])
        self.assertEqual(client.stats()["exposures_pending"], 2)
        client.close()
        (report,) = self.server.requests_to("/sdk/exposures")
        self.assertEqual([(e["external_user_id"], e["variant"], e["calls"]) for e in report.body["exposures"]], [("b", "warm", 1), ("c", "control", 1)])
        stats = client.stats()
        self.assertEqual((stats["bundle_hits"], stats["server_calls"], stats["exposures_sent"], stats["exposures_pending"]), (3, 0, 2, 0))

    def test_asks_the_server_for_what_the_bundle_cannot_answer(self) -> None:
        client = self.client()
        client.ready(STEP_S)
        self.assertEqual(client.get_prompt("nope", {"a": 1}).source, "server")
        self.assertEqual(client.get_prompt("moved", None, "u").source, "server")
        sent = [s.body for s in self.server.requests_to("/get_prompt")]
        self.assertEqual(sent, [{"prompt_id": "nope", "inputs": {"a": 1}}, {"prompt_id": "moved", "inputs": {}, "external_user_id": "u"}])
        self.assertEqual(client.stats()["server_calls"], 2)

    def test_refreshes_with_if_none_match_and_keeps_the_bundle_when_a_refresh_fails(self) -> None:
        self.server.script("/sdk/bundle", (200, BUNDLE, {"ETag": '"v1"'}), (304, None, {"ETag": '"v1"'}), (500, {"detail": "down"}, {}))
        self.server.default("/sdk/bundle", (503, {"detail": "still down"}, {}))
        client = self.client(refresh_interval=0.05)
        self.assertTrue(client.ready(STEP_S))
        self.assertTrue(wait_until(lambda: client.stats()["refresh_failures"] >= 2))
        bundle_requests = self.server.requests_to("/sdk/bundle")
        self.assertNotIn("if-none-match", bundle_requests[0].headers)
        self.assertEqual(bundle_requests[1].headers["if-none-match"], '"v1"')
        self.assertEqual(client.get_prompt("welcome", {"name": "Ada"}, "a").source, "bundle")
        stats = client.stats()
        self.assertEqual(stats["refreshes"], 2)
        self.assertIsNotNone(stats["bundle_age_seconds"])
        self.assertTrue(any(isinstance(e, PromptlineApiError) and e.status == 500 for e in self.errors))

    def test_a_bundle_format_it_does_not_know_is_not_used(self) -> None:
        self.server.default("/sdk/bundle", (200, {**BUNDLE, "format": 3}, {"ETag": '"v2"'}))
        client = self.client()
        self.assertFalse(client.ready(5))
        self.assertEqual(client.get_prompt("welcome", {"name": "Ada"}, "a").source, "server")
        self.assertIsNone(client.stats()["bundle_age_seconds"])
        self.assertTrue(any("format" in str(e) for e in self.errors))

    def test_track_outcome_sends_the_exposures_first_and_only_the_fields_given(self) -> None:
        self.server.default("/track_outcome", (200, {"outcome_id": "out_1", "status": "recorded", "experiment_id": "welcome-warmth", "variant_assigned": "warm"}, {}))
        client = self.client()
        client.ready(STEP_S)
        client.get_prompt("welcome", {"name": "Ada", "tags": []}, "b")
        outcome = client.track_outcome("welcome", external_user_id="b", event_type="signup", is_success=False, numeric_value=0.0)
        self.assertEqual((outcome.outcome_id, outcome.variant_assigned), ("out_1", "warm"))
        paths = [s.path for s in self.server.seen if s.method == "POST"]
        self.assertEqual(paths, ["/sdk/exposures", "/track_outcome"])
        (sent,) = self.server.requests_to("/track_outcome")
        self.assertEqual(sent.body, {"prompt_id": "welcome", "external_user_id": "b", "event_type": "signup", "is_success": False, "numeric_value": 0.0})
        self.assertEqual(len(sent.headers["idempotency-key"]), 32)

    def test_a_client_left_open_reports_its_exposures_when_python_exits(self) -> None:
        script = (
            "import sys; from promptline import Promptline\n"
            "client = Promptline(sys.argv[1], 'pl_r_key')\n"
            "assert client.get_prompt('welcome', {'name': 'Ada', 'tags': []}, 'b').variant_assigned == 'warm'\n"
        )
        done = subprocess.run([sys.executable, "-c", script, self.server.url], capture_output=True, timeout=60, env={**os.environ, "PYTHONPATH": SOURCES})
        self.assertEqual(done.returncode, 0, done.stderr.decode("utf-8", "replace"))
        (report,) = self.server.requests_to("/sdk/exposures")
        self.assertEqual([(e["external_user_id"], e["variant"]) for e in report.body["exposures"]], [("b", "warm")])

    def test_a_closed_client_refuses_calls(self) -> None:
        with self.client() as client:
            client.ready(STEP_S)
        with self.assertRaises(PromptlineError):
            client.get_prompt("welcome", {"name": "x"}, "a")
        client.close()  # idempotent


class FallbackTest(unittest.TestCase):
    def test_answers_fallbacks_when_nothing_answers(self) -> None:
        errors: List[BaseException] = []
        with Promptline(f"http://127.0.0.1:{free_port()}", KEY, timeout=0.5, max_retries=0, fallbacks=FALLBACKS, on_error=errors.append) as client:
            self.assertFalse(client.ready(5))
            text = client.get_prompt("welcome", {"name": "Ada", "vip": True}, "user-1")
            self.assertEqual(text, PromptResult("Hello Ada, our VIP.", None, None, None, None, "fallback"))
            chat = client.get_prompt("support", {"question": "Why?"})
            self.assertEqual(chat.prompt_text, "system: Be kind.\n\nuser: Why?")
            self.assertEqual(chat.messages, [{"role": "system", "content": "Be kind."}, {"role": "user", "content": "Why?"}])
            # The fallback renders as a served version would: a missing input is the server's 422.
            with self.assertRaises(PromptlineValidationError):
                client.get_prompt("welcome", {})
            with self.assertRaises(PromptlineConnectionError) as caught:
                client.get_prompt("no-fallback", {})
            self.assertNotIn(KEY, str(caught.exception))
            stats = client.stats()
            self.assertEqual((stats["fallbacks"], stats["refresh_failures"], stats["bundle_hits"]), (3, 1, 0))
            self.assertTrue(all(isinstance(e, PromptlineConnectionError) for e in errors) and len(errors) >= 4)
            self.assertNotIn(KEY, repr(client))

    def test_remote_mode_uses_fallbacks_on_5xx_and_429_but_raises_other_4xx(self) -> None:
        server = FakeServer()
        self.addCleanup(server.close)
        server.script(
            "/get_prompt",
            (503, {"detail": "busy"}, {}),
            (429, {"detail": "slow down"}, {"Retry-After": "3600"}),
            (404, {"detail": "Prompt 'welcome' not found"}, {}),
        )
        with Promptline(server.url, KEY, mode="remote", max_retries=0, fallbacks=FALLBACKS) as client:
            self.assertFalse(client.ready())
            for _ in ("after a 503", "after a 429"):
                answer = client.get_prompt("welcome", {"name": "Ada", "vip": False})
                self.assertEqual((answer.source, answer.prompt_text), ("fallback", "Hello Ada."))
            with self.assertRaises(PromptlineApiError) as caught:
                client.get_prompt("welcome", {"name": "Ada", "vip": False})
            self.assertEqual((caught.exception.status, caught.exception.detail), (404, "Prompt 'welcome' not found"))
        self.assertEqual(server.requests_to("/sdk/bundle"), [], "remote mode loads no bundle")

    def test_templates_the_server_would_refuse_are_refused_at_construction(self) -> None:
        refused: List[Tuple[Dict[str, Any], str]] = [
            ({"p": "{{> partial}}"}, "partials"),
            ({"p": "{{=<% %>=}}"}, "delimiter"),
            ({"p": "{{#open}}"}, "Unclosed section"),
            ({"p": [{"role": "robot", "content": "x"}]}, "role"),
            ({"p": []}, "non-empty"),
        ]
        for bad, why in refused:
            with self.subTest(bad=bad):
                with self.assertRaises(ValueError) as caught:
                    Promptline("http://127.0.0.1:1", KEY, mode="remote", fallbacks=bad)
                self.assertIn(why, str(caught.exception))
                self.assertIn("'p'", str(caught.exception))

    def test_bad_options(self) -> None:
        for options in ({"mode": "hybrid"}, {"timeout": 0}):
            with self.subTest(options=options), self.assertRaises(ValueError):
                Promptline("http://127.0.0.1:1", KEY, **options)
        with self.assertRaises(ValueError):
            Promptline("127.0.0.1:8000", KEY)


class AsyncTest(unittest.TestCase):
    def test_the_same_calls_awaited(self) -> None:
        server = FakeServer()
        self.addCleanup(server.close)
        server.default("/sdk/bundle", (200, BUNDLE, {"ETag": '"v1"'}))
        server.default("/sdk/exposures", (200, {"accepted": 1, "conflicts": [], "skipped": []}, {}))

        async def main() -> Any:
            async with AsyncPromptline(server.url, KEY) as client:
                self.assertTrue(await client.ready(STEP_S))
                results = await asyncio.gather(*(client.get_prompt("welcome", {"name": "Ada", "tags": []}, f"user-{i}") for i in range(20)))
                return results, client.stats()

        results, stats = asyncio.run(main())
        self.assertEqual({r.source for r in results}, {"bundle"})
        self.assertEqual(stats["bundle_hits"], 20)
        self.assertEqual(sum(len(s.body["exposures"]) for s in server.requests_to("/sdk/exposures")), sum(r.variant_assigned is not None for r in results))


if __name__ == "__main__":
    unittest.main()
