"""Paper reproductions, one module per paper, each registered here by its id.

``aqmlab reproduce --list`` prints them; ``aqmlab reproduce ID [--quick]`` runs one. A module
provides an object with ``id``, ``title``, ``paper_file``, ``points(quick)`` and
``report(runs, rep, quick)`` (see :class:`aqmlab.reproduce.Reproduction`); add it to
``_MODULES`` below. ``published.toml`` beside this file is the project's copy of the papers'
printed numbers (``aqmlab.reproduce.published``).
"""

from __future__ import annotations

import importlib

from aqmlab.reproduce import Reproduction

#: Modules under aqmlab.papers that define ``REPRODUCTION``; a missing one is skipped, so that
#: branches adding papers in parallel merge without touching each other's lines.
_MODULES = (
    "adaptive_red_004",
    "nlred_003",
    "chablis_002",
    "sfred_003",
    "green_tcp_000",
    "green_rate_001",
)


def _load() -> dict[str, Reproduction]:
    found: dict[str, Reproduction] = {}
    for name in _MODULES:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"{__name__}.{name}":
                continue
            raise
        repro: Reproduction = module.REPRODUCTION
        found[repro.id] = repro
    return found


#: id -> reproduction, for every paper module present in this build.
REPRODUCTIONS: dict[str, Reproduction] = _load()

__all__ = ["REPRODUCTIONS"]
