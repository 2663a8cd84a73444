"""Example scenarios shipped inside the package, so that an installed wheel has somewhere to
start: ``aqmlab examples`` lists them, ``aqmlab example red > red.toml`` copies one out, and
``aqmlab.example("red")`` is its path for the API.

``droptail``, ``red`` and ``gred`` are the demo's three runs (30 TCP flows with base RTTs of
20-310 ms through a 10 Mbps bottleneck under DropTail, RED and gentle RED); ``parking_lot`` is a
three-hop chain given as a ``[topology]``. ``aqmlab examples`` prints each with its description.

In the repository, ``scenarios/demo`` and ``scenarios/examples`` are links to these files.
"""

from __future__ import annotations

from pathlib import Path

from aqmlab.scenario import scenario_error

#: Where the examples live: ``aqmlab/data/demo`` (the demo's three) and ``aqmlab/data/examples``.
_DATA = Path(__file__).resolve().parent / "data"
DIRS = (_DATA / "demo", _DATA / "examples")


def examples() -> dict[str, Path]:
    """Every example scenario: name (the file's stem) -> path, in name order."""
    found = {p.stem: p for d in DIRS if d.is_dir() for p in d.glob("*.toml")}
    return dict(sorted(found.items()))


def example(name: str) -> Path:
    """The path of the example scenario ``name`` (see :func:`examples`); an unknown name is a
    :class:`aqmlab.ScenarioError` listing the known ones."""
    known = examples()
    if name not in known:
        raise scenario_error("example", repr(name), f"one of {', '.join(known)}")
    return known[name]


def demo_dir() -> Path:
    """The directory of the demo's scenarios (DropTail, RED, gentle RED)."""
    return DIRS[0]


def describe(path: Path) -> str:
    """An example's ``name`` key (its one-line description), or its file name."""
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    name = tomllib.loads(path.read_text(encoding="utf-8")).get("name")
    return str(name) if name else path.name
