"""The metric registry (aqmlab.METRICS, from the core): its keys are the summary's, and the
comparison table, reports and the CLI take their metrics from it."""

from __future__ import annotations

import json
import math

import aqmlab
from aqmlab import compare, pages, registry
from conftest import TINY, run_cli


def test_every_run_metric_has_a_value_in_a_real_summary():
    summary = aqmlab.run(TINY).summary
    for m in registry.metrics("run"):
        v = m.value(summary)
        assert isinstance(v, (int, float)) and not math.isnan(v), (m.key, v)
    drops = registry.METRICS[[m.key for m in registry.METRICS].index("drops")]
    assert drops.value(summary) == sum(summary["drops"].values())


def test_comparison_columns_and_headline_come_from_the_registry():
    headline = registry.metrics("run", headline=True)
    assert compare.COLUMNS[2:] == tuple(m.column for m in headline)
    rows = pages.headline(aqmlab.run(TINY).summary)
    titles = {metric for metric, _ in rows}
    for ms in registry.grouped(headline):
        if ms[0].key != "drops":
            assert registry.group_title(ms) in titles
    assert tuple(m.key for m in registry.plotted()) == pages.SWEEP_METRICS


def test_metric_value_is_nan_when_absent_and_fmt_uses_the_format():
    util = next(m for m in aqmlab.METRICS if m.key == "utilisation")
    assert math.isnan(util.value({}))
    assert util.fmt(0.5) == "50.00%"
    assert util.title == "utilisation" and util.better == "higher"
    p99 = next(m for m in aqmlab.METRICS if m.key == "delay_ms.p99")
    assert (p99.column, p99.group, p99.stat, p99.title) == (
        "delay_ms_p99",
        "delay_ms",
        "p99",
        "queueing delay p99 (ms)",
    )


def test_cli_lists_the_metrics():
    r = run_cli("metrics", "--json")
    assert r.code == 0, r.stderr
    listed = json.loads(r.stdout)
    assert [m["key"] for m in listed] == [m.key for m in aqmlab.METRICS]
    r = run_cli("metrics")
    assert r.code == 0 and "delay_ms.p99" in r.stdout
