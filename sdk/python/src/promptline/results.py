"""What the client's calls return: plain frozen dataclasses, one per runtime endpoint."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Dict, List, Mapping, Optional


@dataclass(frozen=True)
class PromptResult:
    """A rendered prompt, as ``POST /get_prompt`` answers it, and where the answer came from.

    ``source`` is ``"bundle"`` (answered in-process), ``"server"`` (asked the server) or
    ``"fallback"`` (neither could answer; ``prompt_version``, ``variant_assigned`` and
    ``experiment_id`` are then None). ``messages`` is set for chat prompts only.
    """

    prompt_text: str
    variant_assigned: Optional[str]
    experiment_id: Optional[str]
    prompt_version: Optional[int]
    messages: Optional[List[Dict[str, str]]]
    source: str

    @classmethod
    def from_body(cls, body: Mapping[str, Any], source: str) -> "PromptResult":
        return cls(
            prompt_text=body["prompt_text"],
            variant_assigned=body.get("variant_assigned"),
            experiment_id=body.get("experiment_id"),
            prompt_version=body.get("prompt_version"),
            messages=body.get("messages"),
            source=source,
        )


@dataclass(frozen=True)
class RunResult:
    """``POST /run_prompt``'s answer: the model's output and what the run cost."""

    run_id: str
    output: str
    model_used: str
    latency_ms: int
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    token_cost_usd: float
    variant_assigned: Optional[str]
    experiment_id: Optional[str]
    prompt_version: int

    @classmethod
    def from_body(cls, body: Mapping[str, Any]) -> "RunResult":
        values: Dict[str, Any] = {f.name: body.get(f.name) for f in fields(cls)}
        return cls(**values)


@dataclass(frozen=True)
class OutcomeResult:
    """``POST /track_outcome``'s answer: the outcome's id and the variant it was attributed to."""

    outcome_id: str
    status: str
    experiment_id: Optional[str]
    variant_assigned: Optional[str]

    @classmethod
    def from_body(cls, body: Mapping[str, Any]) -> "OutcomeResult":
        values: Dict[str, Any] = {f.name: body.get(f.name) for f in fields(cls)}
        return cls(**values)
