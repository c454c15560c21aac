"""Promptline's Python client: serve prompts and A/B-test their versions, answering in-process.

    from promptline import Promptline

    with Promptline("http://127.0.0.1:8000", "pl_r_…") as client:
        prompt = client.get_prompt("welcome", {"name": "Ada"}, external_user_id="user-42")
        print(prompt.prompt_text, prompt.variant_assigned)

See docs/sdks.md for how local mode answers exactly as the server would.
"""

from .aio import AsyncPromptline
from .client import Promptline
from .errors import PromptlineApiError, PromptlineConnectionError, PromptlineError, PromptlineValidationError
from .results import OutcomeResult, PromptResult, RunResult

__all__ = [
    "AsyncPromptline",
    "OutcomeResult",
    "Promptline",
    "PromptlineApiError",
    "PromptlineConnectionError",
    "PromptlineError",
    "PromptlineValidationError",
    "PromptResult",
    "RunResult",
]

__version__ = "0.1.0"
