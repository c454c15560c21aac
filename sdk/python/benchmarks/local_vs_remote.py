"""The Python client's get_prompt from its bundle next to the same client asking the server.

Run by ``npm run bench -- sdk`` (bench/sdk.ts), which starts the server and creates the prompts
``welcome`` (no experiment) and ``ab`` (a running experiment). Prints one JSON line: calls per
second and the p50 and p99 of single calls, each timed alone, in microseconds.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Callable, Dict

from promptline import Promptline


def timed(calls: int, call: Callable[[int], object]) -> Dict[str, float]:
    durations = []
    clock = time.perf_counter_ns
    started = clock()
    for i in range(calls):
        t0 = clock()
        call(i)
        durations.append(clock() - t0)
    total = clock() - started
    durations.sort()
    at = lambda q: durations[min(len(durations) - 1, int(q * len(durations)))] / 1000  # noqa: E731
    return {"calls_per_second": calls / total * 1e9, "p50_us": at(0.5), "p99_us": at(0.99)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--api-key", required=True)
    parser.add_argument("--calls", type=int, default=50_000)
    parser.add_argument("--users", type=int, default=10_000)
    args = parser.parse_args()
    users = args.users
    with Promptline(args.base_url, args.api_key) as local, Promptline(args.base_url, args.api_key, mode="remote") as remote:
        if not local.ready(10):
            raise SystemExit("the client could not load the bundle")
        plain = lambda i: local.get_prompt("welcome", {"name": f"Ada {i & 1023}"})  # noqa: E731
        experiment = lambda i: local.get_prompt("ab", {"name": "Ada"}, f"user-{i % users}")  # noqa: E731
        timed(args.calls // 4, plain)  # warm-up, and the first exposure of each user queued
        timed(args.calls // 4, experiment)
        local_plain = timed(args.calls, plain)
        local_experiment = timed(args.calls, experiment)
        remote_calls = lambda i: remote.get_prompt("ab", {"name": "Ada"}, f"user-{i % users}")  # noqa: E731
        timed(200, remote_calls)
        server = timed(2000, remote_calls)
        if local.stats()["bundle_hits"] < 2.5 * args.calls:
            raise SystemExit(f"only {local.stats()['bundle_hits']} calls were answered from the bundle")
    print(json.dumps({"local_plain": local_plain, "local_experiment": local_experiment, "remote": server}))


if __name__ == "__main__":
    main()
