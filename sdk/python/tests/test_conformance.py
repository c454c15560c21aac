"""Conformance: every case of the shared files (sdk/conformance/*.json, generated from the server) through ``evaluate``.

Each file is ``{"description", "bundle", "cases": [{"name", "request", "expected"}]}``; ``expected``
is ``{"status": 200, "body", "exposure"}``, ``{"status": 422, "body": {"detail"}, "exposure"}`` or
``{"remote": true, "status": …}`` (the status the server then answers, for the record). Bodies are
compared as parsed JSON, as a client reads them. A request without ``external_user_id`` did not send
one; with ``null`` it sent a null, which the server's 422 echoes.
"""

from __future__ import annotations

import json
import unittest
from pathlib import Path
from typing import Any, Dict, List

from promptline._bundle import build_index
from promptline._evaluate import ABSENT, Answer, Evaluation, Invalid, Remote, evaluate

from .support.server import REPO_ROOT

SHARED = REPO_ROOT / "sdk" / "conformance"


def case_files() -> List[Path]:
    return sorted(SHARED.glob("*.json")) if SHARED.is_dir() else []


def outcome(evaluation: Evaluation) -> Dict[str, Any]:
    """An evaluation in the files' ``expected`` form."""
    if isinstance(evaluation, Remote):
        return {"remote": True}
    exposure = None if evaluation.exposure is None else {"experiment_id": evaluation.exposure.experiment_id, "variant": evaluation.exposure.variant}
    if isinstance(evaluation, Answer):
        return {"status": 200, "body": evaluation.body, "exposure": exposure}
    assert isinstance(evaluation, Invalid)
    return {"status": evaluation.status, "body": {"detail": evaluation.detail}, "exposure": exposure}


def as_read(value: Any) -> Any:
    """``value`` as a client parses it from JSON (1.0 and 1 alike, tuples as lists)."""
    return json.loads(json.dumps(value))


class ConformanceTest(unittest.TestCase):
    def test_every_case_of_every_file(self) -> None:
        files = case_files()
        self.assertTrue(files, f"no conformance file in {SHARED}")
        total = 0
        for path in files:
            document = json.loads(path.read_text("utf-8"))
            index = build_index(document["bundle"])
            for case in document["cases"]:
                request = case["request"]
                with self.subTest(file=path.name, case=case["name"]):
                    evaluation = evaluate(index, request["prompt_id"], request.get("inputs"), request.get("external_user_id", ABSENT))
                    expected = case["expected"]
                    if expected.get("remote"):
                        self.assertIsInstance(evaluation, Remote)
                    else:
                        self.assertEqual(as_read(outcome(evaluation)), expected)
                    if isinstance(evaluation, Answer) and evaluation.exposure is not None:
                        self.assertEqual(evaluation.exposure.external_user_id, request["external_user_id"])
                total += 1
        self.assertGreater(total, 0)


if __name__ == "__main__":
    unittest.main()
