"""An asyncio face of the client: each blocking call runs in a worker thread (``asyncio.to_thread``).

The client's work is either in-process and short (a local ``get_prompt``) or blocking HTTP, and its
background threads already run on their own, so a thread per call is all asyncio needs: the event
loop never waits on the network.
"""

from __future__ import annotations

import asyncio
from typing import Any, Dict, Mapping, Optional

from .client import Promptline
from .results import OutcomeResult, PromptResult, RunResult


class AsyncPromptline:
    """:class:`Promptline` with awaitable calls; the same arguments, the same results and errors.

    Use ``async with AsyncPromptline(...) as client:`` or ``await client.close()``.
    """

    def __init__(self, base_url: str, api_key: str, **options: Any) -> None:
        self._client = Promptline(base_url, api_key, **options)

    def __repr__(self) -> str:
        return f"Async{self._client!r}"

    async def __aenter__(self) -> "AsyncPromptline":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    async def get_prompt(self, prompt_id: str, inputs: Optional[Mapping[str, Any]] = None, external_user_id: Optional[str] = None) -> PromptResult:
        return await asyncio.to_thread(self._client.get_prompt, prompt_id, inputs, external_user_id)

    async def run_prompt(self, prompt_id: str, inputs: Mapping[str, str], external_user_id: Optional[str] = None) -> RunResult:
        return await asyncio.to_thread(self._client.run_prompt, prompt_id, inputs, external_user_id)

    async def track_outcome(self, prompt_id: str, **fields: Any) -> OutcomeResult:
        return await asyncio.to_thread(lambda: self._client.track_outcome(prompt_id, **fields))

    async def ready(self, timeout: Optional[float] = None) -> bool:
        return await asyncio.to_thread(self._client.ready, timeout)

    async def flush(self, timeout: Optional[float] = None) -> bool:
        return await asyncio.to_thread(self._client.flush, timeout)

    def stats(self) -> Dict[str, Any]:
        return self._client.stats()

    async def close(self) -> None:
        await asyncio.to_thread(self._client.close)
