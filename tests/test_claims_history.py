"""tools/claims_history.py: the reason given for each moved verdict, from the two records."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location(
    "claims_history", ROOT / "tools" / "claims_history.py"
)
assert _spec is not None and _spec.loader is not None
ch = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ch)

T4 = 2.7764451051977934  # t(0.975, 4): the after records' noise is t x SE with five seeds


def claim(cid: str, verdict: str, margin: float, se: float, **extra) -> dict:
    case = {"label": "c", "margin": margin, "noise": T4 * se, "seeds": 5, "verdict": verdict}
    return {
        "id": cid,
        "where": "§1",
        "metric": "m",
        "comparison": "a > b",
        "quorum": "all",
        "verdict": verdict,
        "cases": [case],
        **extra,
    }


def test_reasons():
    before = {
        c["id"]: c
        for c in [
            claim("test", "holds", 0.5, 0.2),
            claim("runs", "holds", 1.0, 0.1),
            claim("adj", "holds", 1.0, 0.1),
            claim("read", "holds", 1.0, 0.1),
        ]
    }
    # margin 0.5, SE 0.2: beyond 2 SE (0.4), inside t x SE (0.56): the test alone moved it.
    assert ch.reason(before["test"], claim("test", "within noise", 0.5, 0.2)).startswith("test")
    # margin -1: the earlier rule also says fails, so the numbers moved.
    assert ch.reason(before["runs"], claim("runs", "fails", -1.0, 0.1)).startswith("runs")
    adj = claim("adj", "fails", -0.1, 0.01, adjective="'far'", plain_verdict="holds")
    assert ch.reason(before["adj"], adj).startswith("adjective")
    read = claim("read", "fails", -1.0, 0.1) | {"comparison": "a > 2 b"}
    assert ch.reason(before["read"], read).startswith("reading")
    assert ch.reason(None, claim("new", "holds", 1.0, 0.1)) == "new claim"


def test_render_counts_and_moves(tmp_path: Path):
    before = {
        "about": "x",
        "papers": {
            "sfred_003": {"claims": [claim("a", "holds", 1, 0.1)]},
            "green_tcp_000": {"counts": {"holds": 1, "within noise": 0, "fails": 0, "claims": 1}},
        },
    }
    (tmp_path / "sfred_003").mkdir()
    after = [claim("a", "fails", -1, 0.1), claim("b", "holds", 1, 0.1)]
    (tmp_path / "sfred_003" / "claims.json").write_text(json.dumps(after))
    md = ch.render(before, tmp_path, "a test")
    assert "| `sfred_003` | 1 / 0 / 0 of 1 | 1 / 0 / 1 of 2 | 1 | 1 |" in md
    assert "| `green_tcp_000` | 1 / 0 / 0 of 1 | not run | — | — |" in md
    assert "`a` | §1 | holds | **fails** | runs" in md


def test_borderline_cases_and_seeds_to_settle():
    after = [
        claim("edge", "fails", -0.55, 0.2),  # |margin| 0.55 vs interval 0.555: borderline
        claim("clear", "holds", 2.0, 0.1),  # far beyond its interval
    ]
    found = ch.borderline(after)
    assert [c["id"] for c, _ in found] == ["edge"]
    # A borderline case that does not decide its claim (another case fails beyond doubt).
    both = claim("both", "fails", -0.55, 0.2)
    both["cases"].append(dict(both["cases"][0], label="d", margin=-3.0))
    both["cases"][0]["verdict"] = "within noise"
    assert ch.borderline([both]) == []
    # Same mean and spread (sd = 0.2 x sqrt(5) = 0.447): with n seeds the interval is
    # t(n-1) x 0.447 / sqrt(n); 3/4 of 0.55 is 0.4125. 7 seeds: 2.447 x 0.447 / 2.646 = 0.414;
    # 8 seeds: 2.365 x 0.447 / 2.828 = 0.374.
    assert ch.seeds_to_settle(-0.55, T4 * 0.2, 5) == 8
    assert ch.seeds_to_settle(0.0, T4 * 0.2, 5) is None
