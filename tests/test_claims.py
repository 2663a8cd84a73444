"""The claims engine: verdicts from per-seed paired differences, quorums, and failures that are
reported instead of passing silently."""

from __future__ import annotations

from dataclasses import replace

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
    # Paired differences 1.0, 1.1, 0.9: mean 1.0, sd 0.1; the 95 % t interval with 2 degrees of
    # freedom is +-4.303 * 0.1 / sqrt(3) = 0.248.
    r = claims.judge_case(_claim(), Case("x", [2.0, 2.1, 1.9], [1.0, 1.0, 1.0]))
    assert r.verdict == "holds" and r.noise == pytest.approx(4.302653 * 0.1 / 3**0.5)
    assert claims.judge_case(_claim("<"), Case("x", [2.0, 2.1, 1.9], 1.0)).verdict == "fails"


def test_noise_is_students_t_not_two_standard_errors():
    # Differences 0.3, 0.1, 0.2: mean 0.2, se 0.0577. Two standard errors (0.115) would call it
    # a hold; t(0.975, 2) = 4.30 gives 0.248, so it is within noise. With 5 seeds the quantile
    # is 2.776.
    assert claims.judge_case(_claim(), Case("x", [0.3, 0.1, 0.2], 0.0)).verdict == "within noise"
    d = claims.t_noise(__import__("numpy").array([1.0, 2.0, 3.0, 4.0, 5.0]))
    assert d == pytest.approx(2.776445 * 1.5811388 / 5**0.5)


def test_identical_seeds_with_no_margin_fail_a_strict_comparison():
    # max_p stayed at 0.126 on every seed: "max_p decreases" fails, it is not noise.
    r = claims.judge_case(_claim("<"), Case("x", [-0.9, -0.9, -0.9], [-0.9, -0.9, -0.9]))
    assert r.noise == 0.0 and r.verdict == "fails"


def test_adjective_reads_the_stronger_comparison_and_keeps_the_plain_one():
    # Chablis 0.18 vs RED 0.15 in min/max: better, but not "far" (read as at least 0.2 more).
    far = claims.Adjective("far", offset=0.2)
    c = replace(_claim(), adjective=far)
    r = claims.judge_case(c, Case("x", [0.18, 0.19, 0.17], [0.15, 0.15, 0.15]))
    assert r.plain == "holds" and r.verdict == "fails"
    # "much lower" as at most half: 4 vs 10 holds, 6 vs 10 fails.
    much = claims.Adjective("much", factor=2.0)
    c2 = replace(_claim("<"), adjective=much)
    assert claims.judge_case(c2, Case("x", [4.0, 4.1, 3.9], 10.0)).verdict == "holds"
    r2 = claims.judge_case(c2, Case("x", [6.0, 6.1, 5.9], 10.0))
    assert r2.verdict == "fails" and r2.plain == "holds"
    res = claims.evaluate([replace(c, measure=lambda d: [Case("x", [0.18], [0.15])])], None)
    t = claims.table(res)
    assert "'far'" in t.loc[0, "adjective read as"] and "plain comparison: holds" in str(
        t.loc[0, "adjective read as"]
    )
    with pytest.raises(ValueError, match="adjective"):
        replace(_claim("~"), adjective=far)


def test_an_upper_bound_adjective_needs_the_direction_and_a_small_gap():
    # "slightly better" as 0 < A - B <= 0.25: a gap of 0.1 holds, 0.4 fails (though "better"
    # holds), a gap the wrong way fails, and a gap at the bound within the noise is noise.
    slightly = claims.Adjective("slightly", offset=0.25, at_most=True)
    c = replace(_claim(), adjective=slightly)
    small = claims.judge_case(c, Case("x", [0.60, 0.61, 0.59], [0.5, 0.5, 0.5]))
    assert small.verdict == "holds" and small.plain == "holds"
    large = claims.judge_case(c, Case("x", [0.90, 0.91, 0.89], [0.5, 0.5, 0.5]))
    assert large.verdict == "fails" and large.plain == "holds"
    assert large.margin == pytest.approx(0.25 - 0.4)
    wrong = claims.judge_case(c, Case("x", [0.40, 0.41, 0.39], [0.5, 0.5, 0.5]))
    assert wrong.verdict == "fails" and wrong.plain == "fails"
    edge = claims.judge_case(c, Case("x", [0.70, 0.80, 0.75], [0.5, 0.5, 0.5]))
    assert edge.verdict == "within noise" and edge.plain == "holds"
    # "<": the gap is B - A.
    c2 = replace(_claim("<"), adjective=slightly)
    assert claims.judge_case(c2, Case("x", [0.4, 0.41, 0.39], 0.5)).verdict == "holds"
    assert claims.judge_case(c2, Case("x", [0.1, 0.11, 0.09], 0.5)).verdict == "fails"
    assert slightly.reading(c2) == "'slightly': 0 < B - A <= 0.25"
    with pytest.raises(ValueError, match="upper bound"):
        claims.Adjective("slightly", factor=2.0, offset=0.25, at_most=True)
    with pytest.raises(ValueError, match="upper bound"):
        claims.Adjective("slightly", at_most=True)


def test_failing_claims_carry_a_measured_reason_or_say_unexplained():
    c = _claim(measure=lambda d: [Case("x", [1.0], [2.0])])
    assert claims.evaluate([c], None)[0].why == claims.UNEXPLAINED
    c2 = replace(c, explain=lambda d, r: f"lhs {r.cases[0].lhs:g} is short by {d}")
    assert claims.evaluate([c2], 1.0)[0].why == "lhs 1 is short by 1.0"
    ok = replace(c, measure=lambda d: [Case("x", [3.0], [2.0])])
    assert claims.evaluate([ok], None)[0].why == ""


def test_a_choice_sets_both_readings_verdicts_side_by_side():
    a = claims.evaluate([_claim(measure=lambda d: [Case("x", [3.0], [2.0])])], None)
    b = claims.evaluate([_claim(measure=lambda d: [Case("x", [1.0], [2.0])])], None)
    ch = claims.Choice("buffer unit", "packets", "bytes", "the paper's words", ("c",))
    t = claims.choice_table(ch, a, b)
    assert list(t["packets (default)"]) == ["holds"] and list(t["bytes"]) == ["fails"]
    assert "c (holds -> fails)" in claims.choice_summary(ch, a, b)


def test_a_choice_explains_a_fail_its_other_reading_makes_hold():
    def ev(lhs: float, explain=None) -> list[claims.Result]:
        c = _claim(measure=lambda d: [Case("x", [lhs, lhs + 0.1], [2.0, 2.0])])
        return claims.evaluate([replace(c, explain=explain)], None)

    ch = claims.Choice("buffer unit", "packets", "bytes", "the paper's words", ("c",))
    a, b = ev(1.0), ev(3.0)
    assert a[0].why == claims.UNEXPLAINED and b[0].verdict == "holds"
    claims.explain_by_choice(ch, a, b)
    assert a[0].why.startswith("holds when the set-up choice 'buffer unit' is read as 'bytes'")
    assert "3.05 vs 2" in a[0].why
    # A fail the other reading does not lift, or one explained already, keeps its text.
    a, c = ev(1.0), ev(1.5)
    claims.explain_by_choice(ch, a, c)
    assert a[0].why == claims.UNEXPLAINED
    a = ev(1.0, explain=lambda d, r: "measured elsewhere")
    claims.explain_by_choice(ch, a, b)
    assert a[0].why == "measured elsewhere"


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


def test_versus_reads_one_accessor_on_both_sides():
    calls = []

    def get(table: str, algo: str, col: str, *, scale: float = 1.0) -> list[float]:
        calls.append((table, algo, col, scale))
        return [scale * len(algo), scale * len(col)]

    c = claims.versus("x", get, "t", claims.Vs("red", "droptail"), "q", published="1 vs 2", scale=2)
    assert calls == [("t", "red", "q", 2), ("t", "droptail", "q", 2)]
    assert c == claims.Case("x", [6, 2], [16, 2], "1 vs 2")
    with pytest.raises(TypeError, match="exactly one Vs"):
        claims.versus("x", get, "t", "red", "q")
