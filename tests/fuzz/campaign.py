"""The long fuzz campaign (``make fuzz``): mutated scenarios through validate (every
``--run-every``-th accepted one also run, shortened), and random replay streams through every
algorithm, plus hostile replay arguments. Prints the figures and exits 1 on any failure.

    python tests/fuzz/campaign.py --scenarios 10000 --run-every 25 --replay-events 1000000
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cases

from aqmlab import scenario as sc


def scenario_campaign(n: int, run_every: int, seed: int, tally: cases.Tally) -> None:
    rng = random.Random(seed)
    bases = [(p.name, sc.load(p)) for p in cases.scenario_files()]
    accepted = 0
    for i in range(n):
        name, base = rng.choice(bases)
        doc = cases.mutate(base, rng)
        resolved = cases.check_validate(doc, tally, f"scenario case {i} ({name})")
        if resolved is None:
            continue
        accepted += 1
        if accepted % run_every == 0:
            short = cases.runnable(resolved)
            if short is not None:
                cases.check_run(short, tally, f"scenario case {i} ({name}) run")


def replay_kind(kind: str, events_per_kind: int, seed: int) -> tuple[cases.Tally, float]:
    """One algorithm's share of the replay campaign (run in a worker process)."""
    rng = random.Random(f"{seed}-{kind}")
    tally = cases.Tally()
    t0 = time.perf_counter()
    done = 0
    call = 0
    while done < events_per_kind:
        n = min(rng.choice([10, 100, 1000, 20000]), events_per_kind - done)
        events, _ = cases.random_events(rng, n)
        uniforms = None
        if rng.random() < 0.3:
            uniforms = [rng.random() for _ in range(rng.choice([0, n // 2, 3 * n]))]
        cases.check_replay(kind, events, tally, f"replay {kind} call {call}", uniforms=uniforms)
        done += n
        call += 1
        if rng.random() < 0.3:
            cases.check_hostile_replay(kind, rng, tally)
    return tally, time.perf_counter() - t0


def many_flows(events: int, flows: int, seed: int) -> tuple[cases.Tally, float, int]:
    """FQ-CoDel with ``flows`` flows (one sub-queue each, up to its buckets): ``events`` replay
    events in calls of 100,000; returns the tally, seconds and the worker's peak RSS (KiB)."""
    import resource

    rng = random.Random(f"{seed}-many")
    tally = cases.Tally()
    t0 = time.perf_counter()
    done, t = 0, 0.0
    fq = {"kind": "fq_codel", "flows": flows}
    while done < events:
        n = min(100_000, events - done)
        evs, t = cases.random_events(rng, n, t, n_flows=flows)
        label = f"fq_codel {flows} flows at {done}"
        cases.check_replay(fq, evs, tally, label, uniforms=None, buffer=20_000)
        done += n
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return tally, time.perf_counter() - t0, peak


def replay_campaign(
    events_per_kind: int, seed: int, tally: cases.Tally, jobs: int
) -> dict[str, float]:
    seconds: dict[str, float] = {}
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        futures = {k: pool.submit(replay_kind, k, events_per_kind, seed) for k in cases.kinds()}
        many = pool.submit(many_flows, events_per_kind, 10_000, seed)
        for kind, fut in futures.items():
            part, secs = fut.result()
            seconds[kind] = secs
            tally.cases += part.cases
            tally.events += part.events
            tally.failures += part.failures
            print(
                f"  {kind}: {part.events} events, {part.cases} hostile calls, "
                f"{len(part.failures)} failures, {secs:.0f} s",
                flush=True,
            )
        part, secs, peak = many.result()
        seconds["fq_codel 10^4 flows"] = secs
        tally.events += part.events
        tally.failures += part.failures
        print(
            f"  fq_codel, 10^4 flows: {part.events} events, {len(part.failures)} failures, "
            f"{secs:.0f} s, worker peak RSS {peak / 1024:.0f} MiB",
            flush=True,
        )
    return seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--scenarios", type=int, default=10_000)
    ap.add_argument("--run-every", type=int, default=25)
    ap.add_argument("--replay-events", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="replay processes")
    args = ap.parse_args()
    t0 = time.perf_counter()
    tally = cases.Tally()
    scenario_campaign(args.scenarios, args.run_every, args.seed, tally)
    t_scen = time.perf_counter() - t0
    scen = (tally.cases, tally.accepted, tally.rejected, tally.runs)
    per_kind = replay_campaign(args.replay_events, args.seed, tally, args.jobs)
    total = time.perf_counter() - t0
    print(
        f"scenario cases: {scen[0]} ({scen[1]} accepted, {scen[2]} rejected), "
        f"{scen[3]} run; {t_scen:.0f} s"
    )
    print(
        f"replay: {tally.events} events over {len(per_kind) - 1} algorithms "
        f"({args.replay_events} each, and as many through FQ-CoDel with 10^4 flows), "
        f"{tally.cases - scen[0]} hostile calls; "
        f"{sum(per_kind.values()):.0f} s of worker time over {args.jobs} processes"
    )
    import resource

    peak = max(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    )
    print(f"total {total:.0f} s; peak RSS of one process {peak / 1024:.0f} MiB")
    print(f"failures: {len(tally.failures)}")
    for f in tally.failures[:50]:
        print(f"  {f}")
    return 1 if tally.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
