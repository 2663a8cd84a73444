"""What every ``aqmlab crosscheck`` backend shares: the metric table and its verdicts
(:mod:`aqmlab.xcheck.table`), aqmlab's side of a run (:mod:`aqmlab.xcheck.aqmlab_side`), the
result of a cross-check and how it is written (:mod:`aqmlab.xcheck.result`), and the refusal a
backend raises for what it cannot express (:class:`Unsupported`).

The backends: :mod:`aqmlab.ns2` (ns-2.35, the default) and :mod:`aqmlab.ns3` (ns-3.44).
"""

from __future__ import annotations

from typing import Any


class Unsupported(ValueError):
    """The scenario uses something the other simulator (or its translation) cannot express.
    The message names the key path, the value and what is allowed."""

    def __init__(self, path: str, value: Any, allowed: str) -> None:
        super().__init__(f"{path}: {value!r} ({allowed})")
        self.path = path
        self.value = value
        self.allowed = allowed


__all__ = ["Unsupported"]
