"""The server's template walk (src/modules/prompts/template.ts), step for step.

A template arrives as the tree the server compiled (docs/sdks.md, "Rendering a template tree"), so
no mustache parsing happens here: the walk, the lookup rules, the text conversion and the render
budget are ported one to one, including where each step and byte is counted, so that a render
stops exactly where the server's would and reports the same limit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ._jsvalue import is_array_index, join_surrogates, js_number, js_stringify, utf8_length

# Node kinds, as small ints: a node is a tuple, the cheapest thing to walk.
TEXT = 0
VALUE = 1
SECTION = 2
INVERTED = 3

#: ``(TEXT, text, utf8_bytes)``, ``(VALUE, name, path)``, ``(SECTION|INVERTED, name, path, children)``.
Node = Tuple[Any, ...]
Nodes = Tuple[Node, ...]

_KINDS = {"value": VALUE, "section": SECTION, "inverted": INVERTED}


class _Missing:
    """A name the inputs do not have (distinct from ``None``, which is JSON's null)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


def prepare_nodes(wire: Any, depth: int = 0) -> Nodes:
    """The bundle's JSON nodes as tuples, with each text's byte size and each name's path precomputed.

    Raises ``ValueError`` on anything that is not a node tree, so a malformed bundle is refused whole.
    """
    if not isinstance(wire, list):
        raise ValueError("a template must be a list of nodes")
    if depth > 64:
        raise ValueError("template nests too deeply")
    nodes: List[Node] = []
    for node in wire:
        if not isinstance(node, dict):
            raise ValueError("a template node must be an object")
        kind = node.get("type")
        if kind == "text":
            text = node.get("text")
            if not isinstance(text, str):
                raise ValueError("a text node needs a text")
            nodes.append((TEXT, text, utf8_length(text)))
            continue
        name = node.get("name")
        if kind not in _KINDS or not isinstance(name, str):
            raise ValueError(f"unknown template node {kind!r}")
        path = None if name == "." else tuple(name.split("."))
        if kind == "value":
            nodes.append((VALUE, name, path))
        else:
            nodes.append((_KINDS[kind], name, path, prepare_nodes(node.get("nodes"), depth + 1)))
    return tuple(nodes)


def _own(container: Any, key: str) -> Tuple[bool, Any]:
    """JavaScript's ``Object.hasOwn(container, key)`` and the value: a dict's keys; a list's indices and ``length``."""
    t = type(container)
    if t is dict:
        if key in container:
            return True, container[key]
        return False, None
    if t is list:
        if key == "length":
            return True, len(container)
        if is_array_index(key):
            i = int(key)
            if i < len(container):
                return True, container[i]
        return False, None
    return False, None


def lookup(stack: Sequence[Any], path: Optional[Tuple[str, ...]]) -> Any:
    """The value a name refers to, or MISSING: ``.`` is the top; else the first part from the top down, then each part."""
    if path is None:
        return stack[-1]
    head = path[0]
    for i in range(len(stack) - 1, -1, -1):
        found, value = _own(stack[i], head)
        if found:
            break
    else:
        return MISSING
    for part in path[1:]:
        found, value = _own(value, part)
        if not found:
            return MISSING
    return value


def as_text(value: Any) -> str:
    """What a value writes: a string as is, null as nothing, a number as ``String(n)``, a structure as JSON."""
    t = type(value)
    if t is str:
        return str(value)
    if value is None:
        return ""
    if t is bool:
        return "true" if value else "false"
    if t is int or t is float:
        return js_number(value)
    return js_stringify(value)


def is_falsy(value: Any) -> bool:
    """JavaScript's ``!value``, plus an empty array: an empty object is truthy, NaN is falsy."""
    if value is None or value is False:
        return True
    t = type(value)
    if t is str or t is list:
        return len(value) == 0
    if t is int:
        return bool(value == 0)
    if t is float:
        return bool(value == 0 or value != value)
    return False


@dataclass
class RenderBudget:
    """What one render of a version may cost; shared by all of its templates (a chat prompt's messages)."""

    max_bytes: int
    max_steps: int
    bytes: int = 0
    steps: int = 0
    exceeded: Optional[str] = None  # "bytes" | "steps"


@dataclass
class _Renderer:
    budget: RenderBudget
    stack: List[Any]
    out: List[str] = field(default_factory=list)
    missing: Dict[str, None] = field(default_factory=dict)  # an ordered set

    def step(self) -> bool:
        budget = self.budget
        budget.steps += 1
        if budget.steps > budget.max_steps and budget.exceeded is None:
            budget.exceeded = "steps"
        return budget.exceeded is None

    def write(self, text: str, size: int) -> bool:
        budget = self.budget
        budget.bytes += size
        if budget.bytes > budget.max_bytes:
            if budget.exceeded is None:
                budget.exceeded = "bytes"
            return False
        self.out.append(text)
        return True

    def walk(self, nodes: Nodes) -> bool:
        """False once the budget is spent: every caller unwinds at once."""
        for node in nodes:
            if not self.step():
                return False
            kind = node[0]
            if kind == TEXT:
                if not self.write(node[1], node[2]):
                    return False
                continue
            found = lookup(self.stack, node[2])
            if kind == VALUE:
                if found is MISSING:
                    self.missing[node[1]] = None
                else:
                    text = as_text(found)
                    if not self.write(text, utf8_length(text)):
                        return False
            elif kind == INVERTED:
                # An absent name is simply falsy here: inverted sections exist to handle absence.
                if (found is MISSING or is_falsy(found)) and not self.walk(node[3]):
                    return False
            elif found is MISSING:
                self.missing[node[1]] = None
            elif type(found) is list:
                for item in found:
                    if not self.step() or not self.within(item, node[3]):
                        return False
            elif not is_falsy(found):
                ok = self.within(found, node[3]) if type(found) is dict else self.walk(node[3])
                if not ok:
                    return False
        return True

    def within(self, item: Any, children: Nodes) -> bool:
        self.stack.append(item)
        ok = self.walk(children)
        self.stack.pop()
        return ok


#: ``("ok", text)``, ``("missing", [names])`` or ``("exceeded", "bytes" | "steps")``.
RenderResult = Union[Tuple[str, str], Tuple[str, List[str]]]


def render_template(nodes: Nodes, inputs: Dict[str, Any], budget: RenderBudget) -> RenderResult:
    """One template under a (possibly shared) budget: the text, the missing names, or the limit hit."""
    renderer = _Renderer(budget, [inputs])
    renderer.walk(nodes)
    if budget.exceeded is not None:
        return ("exceeded", budget.exceeded)
    if renderer.missing:
        return ("missing", list(renderer.missing))
    # Writes are joined as JavaScript joins UTF-16: a lone high surrogate at the end of one and a
    # lone low one at the start of the next make one character.
    return ("ok", join_surrogates("".join(renderer.out)))


@dataclass
class VersionRender:
    """Every template of a version rendered under one budget (serving.ts's renderVersion)."""

    contents: List[str]
    exceeded: Optional[str]
    missing: List[str]


def render_version(templates: Sequence[Nodes], inputs: Dict[str, Any], max_bytes: int, max_steps: int) -> VersionRender:
    """Renders each template in order; once the budget is spent the rest render as empty, missing names add up."""
    budget = RenderBudget(max_bytes, max_steps)
    missing: Dict[str, None] = {}
    contents: List[str] = []
    for nodes in templates:
        if budget.exceeded is not None:
            contents.append("")
            continue
        status, result = render_template(nodes, inputs, budget)
        if status == "ok":
            contents.append(result)  # type: ignore[arg-type]
        else:
            if status == "missing":
                for name in result:
                    missing[name] = None
            contents.append("")
    return VersionRender(contents, budget.exceeded, list(missing))


def join_messages(messages: Sequence[Mapping[str, Any]]) -> str:
    """A chat prompt's text form: ``"{role}: {content}"`` blocks separated by a blank line."""
    return "\n\n".join(f"{m['role']}: {m['content']}" for m in messages)


def budget_reason(exceeded: str, max_bytes: int, max_steps: int) -> str:
    """The 422 reason naming the limit hit and the setting that raises it, as the server words it."""
    if exceeded == "bytes":
        return f"the rendered prompt would exceed {max_bytes} bytes (PROMPTLINE_RENDER_MAX_BYTES)"
    return f"rendering would take more than {max_steps} steps (PROMPTLINE_RENDER_MAX_STEPS): the inputs repeat sections too often"
