"""The claims engine: verdicts from per-seed paired differences, quorums, and failures that are
reported instead of passing silently."""

from __future__ import annotations

import pytest

from aqmlab import claims
from aqmlab.claims import Case, Claim


def _claim(op: str = ">", tol: float = 0.0, quorum: str = "all", measure=None) -> Claim:
    return Claim(
        id="c",
        where="Fig. 1",
        quote="A beats B.",
        metric="m",
        lhs_name="A",
        op=op,  # type: ignore[arg-type]
        rhs_name="B",
        tolerance=tol,
        quorum=quorum,  # type: ignore[arg-type]
        measure=measure or (lambda d: d),
    )


def test_margin_beyond_noise_holds_or_fails():
    # Paired differences 1.0, 1.1, 0.9: mean 1.0, noise 2 * 0.1 / sqrt(3) = 0.115.
    r = claims.judge_case(_claim(), Case("x", [2.0, 2.1, 1.9], [1.0, 1.0, 1.0]))
    assert r.verdict == "holds" and r.noise == pytest.approx(2 * 0.1 / 3**0.5)
    assert claims.judge_case(_claim("<"), Case("x", [2.0, 2.1, 1.9], 1.0)).verdict == "fails"


def test_small_difference_against_large_spread_is_within_noise():
    r = claims.judge_case(_claim(), Case("x", [1.0, 3.0, 2.0], [1.9, 2.0, 2.0]))
    assert r.verdict == "within noise"


def test_single_seed_has_no_noise_estimate():
    r = claims.judge_case(_claim(), Case("x", [1.01], [1.0]))
    assert r.verdict == "holds" and r.noise != r.noise  # NaN


def test_tolerance_loosens_or_tightens():
    # lhs is 0.04 below rhs: "at most 50 kbps lower" holds, strict ">" fails.
    case = Case("x", [9.96], [10.0])
    assert claims.judge_case(_claim(">", 0.05), case).verdict == "holds"
    assert claims.judge_case(_claim(">", 0.0), case).verdict == "fails"
    # "~": |lhs - rhs| within the tolerance.
    assert claims.judge_case(_claim("~", 0.05), case).verdict == "holds"
    assert claims.judge_case(_claim("~", 0.01), case).verdict == "fails"


def test_quorums():
    v = ["holds", "fails", "holds"]
    assert claims.combine("all", v) == "fails"
    assert claims.combine("most", v) == "holds"
    assert claims.combine("any", ["fails", "within noise"]) == "within noise"
    assert claims.combine("all", ["holds", "within noise"]) == "within noise"
    assert claims.combine("all", []) == "not measured"


def test_missing_runs_are_not_measured_and_ids_must_be_unique():
    def boom(_d: object) -> list[Case]:
        raise KeyError("no runs of exp. 9")

    res = claims.evaluate([_claim(measure=boom)], None)
    assert res[0].verdict == "not measured" and "exp. 9" in res[0].error
    with pytest.raises(ValueError, match="repeated"):
        claims.evaluate([_claim(), _claim()], [])


def test_table_has_the_three_columns_and_counts_unique_claims():
    res = claims.evaluate([_claim(measure=lambda d: [Case("x", [2.0], [1.0], "3 vs 1")])], None)
    t = claims.table(res)
    assert {"published", "ns-2", "aqmlab (lhs vs rhs, ±noise)", "verdict"} <= set(t.columns)
    assert t.loc[0, "published"] == "x: 3 vs 1" and t.loc[0, "ns-2"] == claims.DASH
    assert claims.counts(res)["holds"] == 1
    assert claims.summary_line(res).startswith("1 of 1 paper claims hold")


def test_ns2_column_reads_recorded_references():
    c = _claim(measure=lambda d: [Case("x", [2.0], [1.0])])
    refs = {"claims": {"c": {"x": [1.9, 1.1]}}, "tables": {"t": {"red": {"loss": 5.0}}}}
    assert claims.evaluate([c], None, refs)[0].ns2 == "x: 1.90 vs 1.10"
    assert claims.evaluate([c], None, {})[0].ns2 == claims.DASH
    from dataclasses import replace

    assert claims.evaluate([replace(c, in_ns2=False)], None, {})[0].ns2 == "not in ns-2"
    assert claims.ns2_cell(refs, "t", "red", "loss") == 5.0
    assert claims.ns2_cell(refs, "t", "blue", "loss") == claims.DASH
