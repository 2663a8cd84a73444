"""Writes the ns-2.35 Tcl script of a scenario, as ``aqmlab crosscheck`` translates it.

``python bench/emit_tcl.py SCENARIO.toml OUT.tcl`` (used by ``bench/vs_ns2.sh``). Like the
cross-check, the scenario runs once in aqmlab with ``tcp.model = "ns2"`` (unless it chooses a
model) to resolve each flow's start time and round-trip time, and the script is generated from
the resolved scenario and those flows, with ns-2's generator seeded with the scenario's seed.
"""

from __future__ import annotations

import sys
from pathlib import Path

from aqmlab import api
from aqmlab import ns2 as cc
from aqmlab.ns2 import tcl


def emit(scenario: Path, out: Path) -> None:
    text = cc.ns2_tcp_model(scenario.read_text(encoding="utf-8"))
    doc = cc._resolved(text)
    res = api.run(text)
    runs = cc.flow_runs(doc, res.flows.to_pydict())
    script = tcl.translate(
        doc,
        runs,
        seed=int(doc["seed"]),
        overhead_s=cc._overhead_s(doc),
        measured_link=res.summary.get("measured_link"),
    )
    out.write_text(script.text, encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python bench/emit_tcl.py SCENARIO.toml OUT.tcl")
    emit(Path(sys.argv[1]), Path(sys.argv[2]))
