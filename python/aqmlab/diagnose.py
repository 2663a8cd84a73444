"""A run that delivered nothing, said in one line.

Some accepted values leave a run without traffic: a link too slow to send one packet in the
window (``bottleneck.rate = "1bps"``), a loss probability of 0.999, a qdisc parameter that drops
everything, flows that start after the run or whose first round trip is longer than it
(``flows.N.start``, ``access_delay``, ``bottleneck.delay``). The schema cannot refuse them all
(each alone is a legitimate extreme), so the summary is read afterwards and the user is told
which case it is; :func:`aqmlab.run` issues it as a :class:`NoTrafficWarning`, the CLI prints
it as ``warning: ...`` on stderr.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class NoTrafficWarning(UserWarning):
    """A run whose measured link or receivers saw no traffic in the measurement window."""


def no_traffic(summary: Mapping[str, Any]) -> str | None:
    """Why the run delivered nothing in its window, or ``None`` if it delivered something."""
    arrivals = summary.get("arrivals") or 0
    departures = summary.get("departures") or 0
    window = summary.get("window_s")
    flows = summary.get("flows") or []
    delivered = any((f.get("goodput_mbps") or 0) > 0 for f in flows if isinstance(f, Mapping))
    if arrivals == 0:
        return (
            f"no packet reached the measured link in the {window} s window: check the flows' "
            "start times (flows.N.start) and delays (access_delay, bottleneck.delay) against "
            "duration"
        )
    if (summary.get("loss_rate") or 0) >= 1:
        return (
            f"the measured link dropped all {arrivals} packets it was offered in the window "
            "(loss rate 100 %): check the qdisc's and the link's parameters for one that drops "
            "everything (a controller gain or threshold of 0, loss near 1)"
        )
    if departures == 0:
        return (
            f"the measured link sent no packet in the {window} s window ({arrivals} arrived): "
            "its rate is too low to send one packet in the window (bottleneck.rate)"
        )
    if flows and not delivered:
        return (
            f"no data reached any receiver in the {window} s window: a round trip is longer "
            "than the window (access_delay, bottleneck.delay) or every packet is lost after "
            "the measured link"
        )
    return None
