"""RED's early-drop count after a forced drop: the set-up choice shared by the papers that ran
ns-2 (papers 001, 002 and 003; paper 004 sets the key in its scenario files).

ns-2's ``REDQueue::enque`` (``queue/red.cc``) sets ``count = 0`` after every forced drop
(``avg`` above ``max_th``, or above ``2·max_th`` when gentle) and after a drop at a full buffer,
unless ``ns1_compat_``, which ``ns-default.tcl`` sets false (red.cc: "for ns-1 compatibility,
bypass a small bugfix"), so ns-2 restarts the count unless a script asks for ns-1's behaviour;
none of the papers says it did. ns-3's ``RedQueueDisc``, whose decisions ``red.rs`` follows by
default, restarts it only on early drops and marks. aqmlab's key ``forced_resets_count`` (the
``red``, ``nlred``, ``self_config_red`` and ``ared`` kinds) selects ns-2's rule.

A paper that ran ns-2 takes ns-2's rule in every queue that reads the key (:data:`DEFAULT`) and
runs ns-3's rule as the other reading of :func:`choice`. The other kinds built on RED's core
(``chablis``, ``sfred``, ``fred``, ``choke``) do not read the key: they restart the count on a
forced drop, as Floyd and Jacobson's algorithm does, and not on a full buffer.
"""

from __future__ import annotations

from typing import Any

from aqmlab.claims import Choice

#: The scenario key (``bottleneck.qdisc.forced_resets_count``).
KEY = "forced_resets_count"
#: ns-2's rule, the default of the papers that ran ns-2.
DEFAULT = True
#: A label for the runs of the other reading (ns-3's rule).
KEPT = "count kept (ns-3)"


def ns2_rule(qdisc: dict[str, Any]) -> dict[str, Any]:
    """``qdisc`` with ns-2's rule set (a copy)."""
    return {**qdisc, KEY: DEFAULT}


def ns3_rule(qdisc: dict[str, Any]) -> dict[str, Any]:
    """``qdisc`` with ns-3's rule, the other reading: without the key, whose default it is (a
    copy; the scenario is then the same one the paper's runs were before they took ns-2's rule,
    so earlier results are reused)."""
    return {k: v for k, v in qdisc.items() if k != KEY}


def choice(where: str, reruns: str, claims: tuple[str, ...] = ()) -> Choice:
    """The set-up choice for a paper that says it ran ns-2 (``where``: the paper's words and
    section) and reruns ``reruns`` under ns-3's rule; ``claims``: the claims those runs can
    decide (empty: every claim)."""
    return Choice(
        name="RED's early-drop count after a forced drop",
        default="restarted, as ns-2's red.cc (ns1_compat_ false, its default)",
        other="kept, as ns-3's RedQueueDisc (restarted only by early drops and marks)",
        why=f"the paper ran ns-2 ({where}), whose RED restarts the count after every forced "
        f"drop, a full buffer's included. The other reading reruns {reruns}.",
        claims=claims,
    )
