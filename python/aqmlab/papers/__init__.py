"""Paper reproductions, one module per paper, each registered here by its id.

``aqmlab reproduce --list`` prints them; ``aqmlab reproduce ID [--quick]`` runs one. A module
ends with ``REPRODUCTION = Paper(ID, TITLE, PAPER_FILE, points, report)``
(:class:`aqmlab.reproduce.Paper`); add it to ``_MODULES`` below. ``published.toml`` beside
this file is the project's copy of the papers' printed numbers (``aqmlab.reproduce.published``).

A module can add a section to another paper's report without touching that paper's module:
it defines ``SECTION = PaperSection(name, points, report)`` (:class:`aqmlab.reproduce.
PaperSection`) and is listed in ``_SECTIONS`` under the paper's id. See
docs/adding-a-paper.md.
"""

from __future__ import annotations

import importlib
from typing import Any

from aqmlab.reproduce import Reproduction, Section

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


#: Paper id -> modules under aqmlab.papers that define ``SECTION``, a section added to that
#: paper's report (a missing module is skipped, as above).
_SECTIONS: dict[str, tuple[str, ...]] = {
    "adaptive_red_004": ("adaptive_red_004_testbed",),
}


def _import(name: str) -> Any:
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as e:
        if e.name == f"{__name__}.{name}":
            return None
        raise


def _load() -> dict[str, Reproduction]:
    found: dict[str, Reproduction] = {}
    for name in _MODULES:
        module = _import(name)
        if module is None:
            continue
        repro: Reproduction = module.REPRODUCTION
        found[repro.id] = repro
    return found


def _load_sections() -> dict[str, list[Section]]:
    out: dict[str, list[Section]] = {}
    for paper, names in _SECTIONS.items():
        for name in names:
            module = _import(name)
            if module is not None and hasattr(module, "SECTION"):
                out.setdefault(paper, []).append(module.SECTION)
    return out


#: id -> reproduction, for every paper module present in this build.
REPRODUCTIONS: dict[str, Reproduction] = _load()
#: paper id -> sections other modules add to its report.
SECTIONS: dict[str, list[Section]] = _load_sections()

__all__ = ["REPRODUCTIONS", "SECTIONS"]
