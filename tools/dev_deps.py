"""Prints the requirements of the named optional-dependency groups of pyproject.toml, one a
line (``make dev`` pipes them to pip): the test and lint tools are listed once, in pyproject."""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

extras = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())[
    "project"
]["optional-dependencies"]
for group in sys.argv[1:]:
    print("\n".join(extras[group]))
