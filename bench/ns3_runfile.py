"""Writes the ns-3 run file of a scenario, as ``aqmlab crosscheck --against ns3`` translates it.

``python bench/ns3_runfile.py SCENARIO.toml OUT.run`` (used by ``bench/vs_ns3.sh``) prints the
path of the ns-3 program (built on first use, :mod:`aqmlab.ns3.build`). Like the cross-check,
the scenario runs once in aqmlab to resolve each flow's start time and access delay, and the run
file is written from the resolved scenario and those flows, with the scenario's seed.
"""

from __future__ import annotations

import sys
from pathlib import Path

from aqmlab import ns3
from aqmlab.ns3 import build


def emit(scenario: Path, out: Path) -> None:
    out.write_text(ns3.run_file(scenario), encoding="utf-8")
    print(build.program())


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python bench/ns3_runfile.py SCENARIO.toml OUT.run")
    emit(Path(sys.argv[1]), Path(sys.argv[2]))
