"""The client against the real server (dist/src/server.js), started here on a free port.

Local answers are compared with the server's own /get_prompt answers user by user; exposures,
outcomes, pauses and remote_only experiments are checked in what the server stores and reports.
"""

from __future__ import annotations

import time
import unittest
import uuid
from collections import Counter
from typing import Any, Dict, List, Optional, Tuple

from promptline import Promptline, PromptlineApiError, PromptlineConnectionError, PromptlineValidationError, PromptResult
from promptline._assign import assign
from promptline._bundle import build_index

from .support.proxy import DroppingProxy
from .support.server import ServerProcess, server_available, unavailable
from .support.limits import STEP_S

SERVER: Optional[ServerProcess] = None
RUNTIME_KEY = ""

GREET_V1 = "Hi {{name}}! {{#items}}[{{.}}]{{/items}}{{^items}}(none){{/items}} n={{n}}"
GREET_V2 = "Hello {{name}}, {{items.length}} items, first {{items.0}}; {{meta}} {{#meta}}{{k}}{{/meta}}"
SUPPORT_V1 = [{"role": "system", "content": "You help {{user.name}}."}, {"role": "user", "content": "{{question}}"}]
SUPPORT_V2 = [{"role": "system", "content": "Be brief with {{user.name}}{{#user.vip}} (VIP){{/user.vip}}."}, {"role": "user", "content": "{{question}} ({{n}})"}]


def server() -> ServerProcess:
    assert SERVER is not None
    return SERVER


def given_prompt(prompt_id: str, first: Dict[str, Any], second: Dict[str, Any]) -> None:
    server().ok("POST", "/prompts", {"prompt_id": prompt_id, "model": "echo/echo", "labels": ["production"], **first})
    server().ok("POST", f"/prompts/{prompt_id}/versions", {"model": "echo/echo", **second})


def given_experiment(experiment_id: str, prompt_id: str, coverage: float, variants: List[Tuple[str, int, float]]) -> None:
    body = {"experiment_id": experiment_id, "prompt_id": prompt_id, "coverage": coverage, "variants": [{"key": k, "version": v, "weight": w} for k, v, w in variants]}
    server().ok("POST", "/experiments", body)
    server().ok("POST", f"/experiments/{experiment_id}/start")


def setUpModule() -> None:
    global SERVER, RUNTIME_KEY
    reason = server_available()
    if reason:
        raise unavailable(reason)
    SERVER = ServerProcess().start()
    RUNTIME_KEY = SERVER.ok("POST", "/keys", {"name": "python-sdk-tests", "role": "runtime"})["key"]
    given_prompt("greet", {"template": GREET_V1}, {"template": GREET_V2})
    given_prompt("support", {"messages": SUPPORT_V1}, {"messages": SUPPORT_V2})
    three = [("a", 1, 1.0), ("b", 2, 1.0), ("c", 2, 1.0)]
    given_experiment("greet-exp", "greet", 0.7, three)
    given_experiment("support-exp", "support", 0.7, [("a", 1, 1.0), ("b", 2, 2.0), ("c", 1, 1.0)])


def tearDownModule() -> None:
    if SERVER is not None:
        SERVER.cleanup()


def as_body(result: PromptResult) -> Dict[str, Any]:
    body: Dict[str, Any] = {
        "prompt_text": result.prompt_text,
        "variant_assigned": result.variant_assigned,
        "experiment_id": result.experiment_id,
        "prompt_version": result.prompt_version,
    }
    if result.messages is not None:
        body["messages"] = result.messages
    return body


def inputs_for(i: int) -> Dict[str, Any]:
    """Inputs that vary with the user: lists, objects, numbers JavaScript writes its own way, gaps."""
    values: List[Any] = [1.0, 1e21, 1e-7, -0.0, 0.1, 12345678901234567890, True, None, "é😀", [1, "x"], {"2": 1, "a": [1.5]}]
    inputs: Dict[str, Any] = {
        "name": f"N{i}",
        "items": [values[j % len(values)] for j in range(i % 4)],
        "n": values[i % len(values)],
        "meta": {"k": i, "1": "one"} if i % 3 else {},
        "user": {"name": f"U{i}", "vip": i % 2 == 0},
        "question": f"Q{i}?",
    }
    if i % 17 == 0:
        del inputs["name"]  # a missing variable in some versions (not all: greet v1 and v2 both use it)
    if i % 23 == 0:
        del inputs["question"]
        del inputs["items"]
    return inputs


class LocalEqualsServerTest(unittest.TestCase):
    def local_or_error(self, client: Promptline, prompt_id: str, inputs: Dict[str, Any], user: Optional[str]) -> Tuple[int, Any]:
        try:
            result = client.get_prompt(prompt_id, inputs, user)
        except PromptlineValidationError as error:
            return 422, {"detail": error.errors}
        self.assertEqual(result.source, "bundle")
        return 200, as_body(result)

    def test_a_local_answers_are_the_servers_for_500_users_and_both_prompts(self) -> None:
        with Promptline(server().url, RUNTIME_KEY) as client:
            self.assertTrue(client.ready(STEP_S))
            statuses: Counter[Tuple[str, int]] = Counter()
            variants: Counter[Optional[str]] = Counter()
            for prompt_id in ("greet", "support"):
                for i in range(500):
                    user = f"user-{i}"
                    inputs = inputs_for(i)
                    local = self.local_or_error(client, prompt_id, inputs, user)
                    remote = server().request("POST", "/get_prompt", {"prompt_id": prompt_id, "inputs": inputs, "external_user_id": user}, key=RUNTIME_KEY)
                    self.assertEqual(local, remote, f"{prompt_id} for {user} with {inputs}")
                    statuses[(prompt_id, local[0])] += 1
                    if local[0] == 200:
                        variants[local[1]["variant_assigned"]] += 1
                # No user while the experiment runs.
                self.assertEqual(
                    self.local_or_error(client, prompt_id, inputs_for(1), None),
                    server().request("POST", "/get_prompt", {"prompt_id": prompt_id, "inputs": inputs_for(1)}, key=RUNTIME_KEY),
                )
            self.assertEqual(client.stats()["server_calls"], 0)
        # Both kinds of answer and every variant were exercised, or the comparison proves little.
        for prompt_id in ("greet", "support"):
            self.assertGreater(statuses[(prompt_id, 200)], 300)
            self.assertGreater(statuses[(prompt_id, 422)], 10)
        self.assertTrue(all(variants[key] > 30 for key in ("a", "b", "c", None)), variants)

    def test_c_exposures_reported_locally_count_in_the_results(self) -> None:
        given_prompt("exposed", {"template": "A {{x}}"}, {"template": "B {{x}}"})
        given_experiment("exposed-exp", "exposed", 0.7, [("a", 1, 1.0), ("b", 2, 1.0), ("c", 2, 2.0)])
        assigned: Dict[str, str] = {}
        with Promptline(server().url, RUNTIME_KEY) as client:
            self.assertTrue(client.ready(STEP_S))
            for i in range(300):
                for _ in range(1 + i % 3):  # repeat calls of one user count once
                    result = client.get_prompt("exposed", {"x": i}, f"exposed-{i}")
                if result.variant_assigned is not None:
                    assigned[f"exposed-{i}"] = result.variant_assigned
        self.assertEqual(client.stats()["exposures_pending"], 0)
        self.assertEqual(client.stats()["exposures_sent"], len(assigned))
        results = server().ok("GET", "/experiments/exposed-exp/results")
        expected = Counter(assigned.values())
        self.assertEqual({v["key"]: v["users"] for v in results["variants"]}, {k: expected[k] for k in ("a", "b", "c")})
        self.assertTrue(all(expected[k] > 20 for k in ("a", "b", "c")), expected)

    def test_d_an_outcome_whose_answer_was_lost_is_stored_once(self) -> None:
        proxy = DroppingProxy(server().port, drop_first="/track_outcome")
        self.addCleanup(proxy.close)
        event = f"lost-answer-{uuid.uuid4().hex[:8]}"
        with Promptline(proxy.url, RUNTIME_KEY, mode="remote") as client:
            outcome = client.track_outcome("greet", external_user_id="user-1", event_type=event, is_success=True, metadata={"try": 1})
        self.assertEqual(outcome.status, "recorded")
        self.assertEqual(len(proxy.dropped), 1, "the proxy must have lost one answer")
        self.assertEqual(sum("/track_outcome" in line for line in proxy.forwarded), 2)
        stored = server().ok("GET", f"/outcomes?prompt_id=greet&event_type={event}")["data"]
        self.assertEqual([o["outcome_id"] for o in stored], [outcome.outcome_id])

    def test_e_a_paused_experiment_stops_applying_after_the_next_refresh(self) -> None:
        given_prompt("pausable", {"template": "one {{x}}"}, {"template": "two {{x}}"})
        given_experiment("pausable-exp", "pausable", 1.0, [("a", 1, 1.0), ("b", 2, 1.0)])
        with Promptline(server().url, RUNTIME_KEY, refresh_interval=0.2) as client:
            self.assertTrue(client.ready(STEP_S))
            before = [client.get_prompt("pausable", {"x": 1}, f"p-{i}") for i in range(20)]
            self.assertTrue(all(r.variant_assigned is not None for r in before))
            self.assertIn(2, {r.prompt_version for r in before})
            server().ok("POST", "/experiments/pausable-exp/pause")
            deadline = time.monotonic() + STEP_S
            while client.get_prompt("pausable", {"x": 1}, "p-0").variant_assigned is not None and time.monotonic() < deadline:
                time.sleep(0.05)
            after = [client.get_prompt("pausable", {"x": 1}, f"p-{i}") for i in range(20)]
        self.assertEqual({(r.variant_assigned, r.experiment_id, r.prompt_version, r.prompt_text, r.source) for r in after}, {(None, None, 1, "one 1", "bundle")})
        self.assertEqual(server().request("POST", "/get_prompt", {"prompt_id": "pausable", "inputs": {"x": 1}, "external_user_id": "p-0"}, key=RUNTIME_KEY)[1]["variant_assigned"], None)

    def test_f_a_remote_only_experiment_is_asked_of_the_server(self) -> None:
        given_prompt("moving", {"template": "first"}, {"template": "second"})
        given_experiment("moving-exp", "moving", 1.0, [("a", 1, 1.0), ("b", 2, 1.0)])
        users = [f"m-{i}" for i in range(60)]
        with Promptline(server().url, RUNTIME_KEY, refresh_interval=0.2) as client:
            self.assertTrue(client.ready(STEP_S))
            first = {u: client.get_prompt("moving", None, u) for u in users}
            self.assertEqual({r.source for r in first.values()}, {"bundle"})
            self.assertTrue(client.flush(STEP_S))
            server().ok("POST", "/experiments/moving-exp/pause")
            server().ok("PATCH", "/experiments/moving-exp", {"variants": [{"key": "a", "version": 1, "weight": 1}, {"key": "b", "version": 2, "weight": 9}]})
            server().ok("POST", "/experiments/moving-exp/start")
            deadline = time.monotonic() + STEP_S
            while client.get_prompt("moving", None, users[0]).source == "bundle" and time.monotonic() < deadline:
                time.sleep(0.05)
            later = {u: client.get_prompt("moving", None, u) for u in users}
        self.assertEqual({r.source for r in later.values()}, {"server"})
        self.assertEqual({u: r.variant_assigned for u, r in later.items()}, {u: r.variant_assigned for u, r in first.items()})
        self.assertEqual({u: r.prompt_text for u, r in later.items()}, {u: r.prompt_text for u, r in first.items()})
        # The test means something only if the new weights would move some of these users.
        bundle = build_index(server().ok("GET", "/sdk/bundle"))
        experiment = bundle.prompts["moving"].experiment
        assert experiment is not None and experiment.remote_only
        moved = [u for u in users if experiment.variants[assign(experiment.seed, u, experiment.ranges) or 0].key != first[u].variant_assigned]
        self.assertGreater(len(moved), 5)

    def test_g_the_servers_refusals_are_raised_with_its_detail_never_the_key(self) -> None:
        with Promptline(server().url, RUNTIME_KEY) as client:
            client.ready(STEP_S)
            with self.assertRaises(PromptlineApiError) as caught:
                client.get_prompt("never-created", {"x": 1})
            self.assertEqual((caught.exception.status, caught.exception.detail), (404, "Prompt 'never-created' not found"))
            self.assertNotIn(RUNTIME_KEY, str(caught.exception) + repr(caught.exception))
            # run_prompt with the built-in echo model answers the rendered prompt.
            rendered = client.get_prompt("greet", {"name": "Ada", "items": "", "n": "7"}, "user-3")
            run = client.run_prompt("greet", {"name": "Ada", "items": "", "n": "7"}, "user-3")
            self.assertEqual((run.output, run.variant_assigned, run.prompt_version), (rendered.prompt_text, rendered.variant_assigned, rendered.prompt_version))
        bad_key = "pl_r_" + "0" * 43
        errors: List[BaseException] = []
        with Promptline(server().url, bad_key, on_error=errors.append) as client:
            self.assertFalse(client.ready(10))
            with self.assertRaises(PromptlineApiError) as caught:
                client.get_prompt("greet", {"name": "x"}, "u")
        self.assertEqual(caught.exception.status, 401)
        self.assertTrue(any(isinstance(e, PromptlineApiError) and e.status == 401 for e in errors))
        for error in [caught.exception, *errors]:
            self.assertNotIn(bad_key, str(error) + repr(error))


class ServerGoneTest(unittest.TestCase):
    """(b): its own server, stopped halfway."""

    def test_b_after_the_server_stops_the_bundle_keeps_answering_and_fallbacks_answer_the_rest(self) -> None:
        reason = server_available()
        if reason:
            raise unavailable(reason)
        own = ServerProcess().start()
        self.addCleanup(own.cleanup)
        own.ok("POST", "/prompts", {"prompt_id": "kept", "template": "Kept {{name}}", "labels": ["production"]})
        own.ok("POST", "/prompts/kept/versions", {"template": "Kept v2 {{name}}"})
        own.ok("POST", "/experiments", {"experiment_id": "kept-exp", "prompt_id": "kept", "variants": [{"key": "a", "version": 1}, {"key": "b", "version": 2}]})
        own.ok("POST", "/experiments/kept-exp/start")
        errors: List[BaseException] = []
        fallbacks = {"never": "Fallback for {{name}}", "kept": "not used while the bundle answers"}
        client = Promptline(own.url, own.request("POST", "/keys", {"name": "k", "role": "runtime"})[1]["key"], timeout=1.0, max_retries=1, refresh_interval=0.2, fallbacks=fallbacks, on_error=errors.append)
        self.addCleanup(client.close)
        self.assertTrue(client.ready(STEP_S))
        before = [client.get_prompt("kept", {"name": "Ada"}, f"k-{i}") for i in range(20)]
        self.assertTrue(client.flush(STEP_S))
        own.stop()
        failures = client.stats()["refresh_failures"]
        after = [client.get_prompt("kept", {"name": "Ada"}, f"k-{i}") for i in range(20)]
        self.assertEqual(after, before)
        self.assertEqual({r.source for r in after}, {"bundle"})
        never = client.get_prompt("never", {"name": "Ada"})
        self.assertEqual(never, PromptResult("Fallback for Ada", None, None, None, None, "fallback"))
        with self.assertRaises(PromptlineConnectionError):
            client.get_prompt("no-fallback-here", {})
        with self.assertRaises(PromptlineConnectionError):
            client.run_prompt("kept", {"name": "Ada"}, "k-1")
        deadline = time.monotonic() + STEP_S
        while client.stats()["refresh_failures"] == failures and time.monotonic() < deadline:
            time.sleep(0.05)
        stats = client.stats()
        self.assertGreater(stats["refresh_failures"], failures)
        self.assertGreater(stats["exposures_pending"], 0)  # the users assigned since cannot be reported
        started = time.monotonic()
        client.close()
        self.assertLess(time.monotonic() - started, 5, "close() must not wait long for a server that is gone")
        self.assertTrue(any(isinstance(e, PromptlineConnectionError) for e in errors))


if __name__ == "__main__":
    unittest.main()
