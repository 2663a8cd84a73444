"""Recorded ns-2 results, so aqmlab can be held to ns-2 where ns-2 is not installed.

A reference file (``tests/data/ns2/<name>.json``) holds the scenario it ran (path relative to
the repository and ``--set`` overrides), the seeds, and ns-2's metrics for each seed, as
:func:`aqmlab.crosscheck` measured them. :func:`against` reruns only the aqmlab side on the same
seeds and returns the same rows (spread, ratio, verdict) as a live cross-check.
"""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from aqmlab import api
from aqmlab.xcheck import table

FORMAT = 1


def ns_version() -> str:
    from aqmlab.ns2 import runner

    try:
        out = subprocess.run(
            [runner.ns_binary(), "-version"], capture_output=True, text=True, check=False
        )
        return " ".join((out.stdout + out.stderr).split())[:80]
    except (OSError, runner.NsMissing):
        return "unknown"


def record(cc: Any, path: str | Path, *, scenario: str, overrides: list[str] | None = None) -> Path:
    """Writes the ns-2 side of a cross-check ``cc`` (an :class:`aqmlab.ns2.CrossCheck`)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    doc = {
        "format": FORMAT,
        "name": cc.name,
        "scenario": scenario,
        "set": list(overrides or []),
        "seeds": cc.seeds,
        "ns2": ns_version(),
        "runs": [{"seed": r.seed, "metrics": r.other.values} for r in cc.runs],
        "aqmlab_when_recorded": [{"seed": r.seed, "metrics": r.aqmlab.values} for r in cc.runs],
    }
    p.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return p


def load(path: str | Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    if doc.get("format") != FORMAT:
        raise ValueError(f"{path}: reference format {doc.get('format')!r}, expected {FORMAT}")
    return doc


def against(path: str | Path, *, root: str | Path = ".", jobs: int = 2) -> list[dict[str, Any]]:
    """aqmlab on the reference's scenario and seeds beside the recorded ns-2 runs."""
    from aqmlab.ns2 import _aqmlab_metrics, ns2_tcp_model

    ref = load(path)
    scenario = Path(root) / ref["scenario"]

    def one(seed: int) -> table.RunMetrics:
        text, _ = api.prepare(scenario, set=ref["set"], seed=seed)
        return _aqmlab_metrics(api.run(ns2_tcp_model(text)))

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        aq = list(pool.map(one, ref["seeds"]))
    ns = [table.RunMetrics(values=r["metrics"], goodput_mbps={}, rtt_ms={}) for r in ref["runs"]]
    return table.table(aq, ns)
