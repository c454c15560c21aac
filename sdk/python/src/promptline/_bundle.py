"""The SDK bundle (``GET /sdk/bundle``, docs/sdks.md "The bundle"), indexed for the hot path.

Indexing happens once per bundle, in the refresh thread: prompts by id, versions by number, each
prompt's running experiment, template trees as tuples. A request then costs dictionary lookups.
An index is never modified after it is built, so threads can share it without a lock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from ._declarations import Check, PatternNotPortable, prepare_checks
from ._render import Nodes, prepare_nodes

#: The bundle formats this client understands (2: some version declares typed variables); any
#: other is ignored and the server asked instead.
BUNDLE_FORMATS = (1, 2)


@dataclass(frozen=True)
class Limits:
    """The server's render budget and the request limits beyond which the server must answer."""

    render_max_bytes: int
    render_max_steps: int
    prompt_id_max_length: int
    external_user_id_max_length: int
    inputs_max_entries: int
    body_max_bytes: int


#: The limits of a server with default settings: used to render fallbacks before any bundle arrived.
DEFAULT_LIMITS = Limits(1048576, 50000, 128, 256, 256, 1048576)


@dataclass(frozen=True)
class Version:
    version: int
    kind: str  # "text" | "chat"
    #: A text version: one template and role None; a chat version: each message's role and template.
    templates: Tuple[Nodes, ...]
    roles: Tuple[Optional[str], ...]
    #: The typed variables' checks; None: none declared.
    checks: Optional[Tuple[Check, ...]] = None
    #: A declaration this client cannot check as the server does (a pattern ``re`` refuses).
    remote_only: bool = False


@dataclass(frozen=True)
class Variant:
    key: str
    version: int
    range: Tuple[float, float]


@dataclass(frozen=True)
class Experiment:
    experiment_id: str
    seed: str
    remote_only: bool
    variants: Tuple[Variant, ...]
    ranges: Tuple[Tuple[float, float], ...]


@dataclass(frozen=True)
class Prompt:
    prompt_id: str
    served_version: int
    versions: Dict[int, Version]
    experiment: Optional[Experiment]


@dataclass(frozen=True)
class BundleIndex:
    limits: Limits
    prompts: Dict[str, Prompt]


class UnsupportedBundleFormat(ValueError):
    """The server sent a bundle format this client does not know: it asks the server instead."""


def _int(value: Any, what: str) -> int:
    if type(value) is not int:
        raise ValueError(f"{what} must be an integer")
    return value


def _number(value: Any, what: str) -> float:
    if type(value) not in (int, float):
        raise ValueError(f"{what} must be a number")
    return float(value)


def _str(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a string")
    return value


def prepare_version(raw: Dict[str, Any]) -> Version:
    """One version of the bundle: its template, or its messages' templates with their roles."""
    number = _int(raw.get("version"), "version")
    declared = raw.get("declared_variables")
    checks: Optional[Tuple[Check, ...]] = None
    remote_only = False
    if declared is not None:
        try:
            checks = prepare_checks(declared)
        except PatternNotPortable:
            remote_only = True
    kind = raw.get("kind")
    if kind == "chat":
        messages = raw.get("messages")
        if not isinstance(messages, list):
            raise ValueError("a chat version needs messages")
        roles = tuple(_str(m.get("role"), "role") for m in messages)
        templates = tuple(prepare_nodes(m.get("template")) for m in messages)
        return Version(number, "chat", templates, roles, checks, remote_only)
    if kind == "text":
        return Version(number, "text", (prepare_nodes(raw.get("template")),), (None,), checks, remote_only)
    raise ValueError(f"unknown version kind {kind!r}")


def _prepare_experiment(raw: Dict[str, Any]) -> Experiment:
    variants: List[Variant] = []
    for v in raw.get("variants") or []:
        lo, hi = v["range"]
        variants.append(Variant(_str(v.get("key"), "variant key"), _int(v.get("version"), "variant version"), (_number(lo, "range"), _number(hi, "range"))))
    return Experiment(
        experiment_id=_str(raw.get("experiment_id"), "experiment_id"),
        seed=_str(raw.get("seed"), "seed"),
        remote_only=raw.get("remote_only") is not False,
        variants=tuple(variants),
        ranges=tuple(v.range for v in variants),
    )


def build_index(bundle: Any) -> BundleIndex:
    """Indexes a bundle as parsed from JSON. Raises UnsupportedBundleFormat or ValueError (the bundle is then not used)."""
    if not isinstance(bundle, dict):
        raise ValueError("the bundle is not a JSON object")
    if bundle.get("format") not in BUNDLE_FORMATS:
        raise UnsupportedBundleFormat(f"bundle format {bundle.get('format')!r} is not one of {BUNDLE_FORMATS}: asking the server instead")
    try:
        raw_limits = bundle["limits"]
        limits = Limits(**{name: _int(raw_limits[name], name) for name in Limits.__dataclass_fields__})
        experiments: Dict[str, Experiment] = {}
        for raw in bundle["experiments"]:
            experiments[_str(raw.get("prompt_id"), "prompt_id")] = _prepare_experiment(raw)
        prompts: Dict[str, Prompt] = {}
        for raw in bundle["prompts"]:
            prompt_id = _str(raw.get("prompt_id"), "prompt_id")
            versions = {v.version: v for v in (prepare_version(r) for r in raw["versions"])}
            prompts[prompt_id] = Prompt(prompt_id, _int(raw.get("served_version"), "served_version"), versions, experiments.get(prompt_id))
    except (KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"malformed bundle: {error!r}") from None
    return BundleIndex(limits, prompts)
