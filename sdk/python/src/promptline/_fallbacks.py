"""Fallback prompts: what ``get_prompt`` answers when neither the bundle nor the server can.

A fallback is parsed once, at construction (a template the server would refuse is refused there,
not at the worst moment), into the same tree the bundle carries, and rendered by the same walk under
the same budget. So a fallback behaves like a served version: the same text for the same inputs,
and the same 422 for a missing variable.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from ._bundle import Limits, Version
from ._evaluate import Answer, Evaluation, Invalid, answer_body, render_error, wire_inputs
from ._jsvalue import as_javascript_sees_it
from ._mustache import TemplateError, parse_template
from ._render import prepare_nodes, render_version

#: ``"template text"`` or ``[{"role": "system" | "user" | "assistant", "content": "template"}, ...]``.
FallbackSpec = Union[str, Sequence[Mapping[str, str]]]

_ROLES = ("system", "user", "assistant")


def compile_fallbacks(fallbacks: Optional[Mapping[str, FallbackSpec]]) -> Dict[str, Version]:
    """Each fallback as a version (number 0: never a served one). Raises ValueError naming the prompt at fault."""
    compiled: Dict[str, Version] = {}
    for prompt_id, spec in (fallbacks or {}).items():
        try:
            if isinstance(spec, str):
                compiled[prompt_id] = Version(0, "text", (prepare_nodes(parse_template(spec)),), (None,))
                continue
            if not isinstance(spec, (list, tuple)) or not spec:
                raise TemplateError("a fallback is a template string or a non-empty list of {'role', 'content'} messages")
            roles: List[Optional[str]] = []
            templates = []
            for message in spec:
                role = message.get("role") if isinstance(message, Mapping) else None
                content = message.get("content") if isinstance(message, Mapping) else None
                if role not in _ROLES or not isinstance(content, str):
                    raise TemplateError(f"each message needs a role ({', '.join(_ROLES)}) and a content string")
                roles.append(role)
                templates.append(prepare_nodes(parse_template(content)))
            compiled[prompt_id] = Version(0, "chat", tuple(templates), tuple(roles))
        except TemplateError as error:
            raise ValueError(f"fallback for prompt {prompt_id!r}: {error}") from None
    return compiled


def render_fallback(version: Version, inputs: Any, limits: Limits) -> Evaluation:
    """The fallback rendered with the walk and budget of a served version (no experiment, no version number)."""
    prepared = wire_inputs(inputs)
    # A request the server would refuse for its shape (a NUL, deep nesting) still gets its fallback:
    # the server cannot be asked, and the application wants an answer.
    wire = json.loads(json.dumps(inputs)) if isinstance(prepared, str) else prepared[0]
    if not isinstance(wire, dict):
        raise TypeError("inputs must be a JSON object (a dict)")
    rendered = render_version(version.templates, wire, limits.render_max_bytes, limits.render_max_steps)
    if rendered.exceeded is not None or rendered.missing:
        return Invalid(render_error(rendered, limits, as_javascript_sees_it(wire)), None)
    return Answer(answer_body(version, rendered.contents, None, None), None)
