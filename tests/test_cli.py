"""The ``aqmlab`` command line, run as a user would (``python -m aqmlab`` in a subprocess)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aqmlab.scenario import tomllib
from conftest import STABLE_KEYS, TINY, kinds, run_cli


def test_run_json_prints_one_object_with_the_stable_keys(tiny_path: Path, tmp_path: Path):
    out = tmp_path / "out"
    r = run_cli("run", tiny_path, "--json", "--no-plots", "--out", out)
    assert r.code == 0, r.stderr
    summary = json.loads(r.stdout)  # the whole of stdout is one JSON document
    assert isinstance(summary, dict)
    assert summary.keys() >= STABLE_KEYS
    # ...and it is summary.json, byte for byte (bar the final newline).
    assert (out / "summary.json").read_text().rstrip("\n") == r.stdout.rstrip("\n")
    assert (out / "flows.parquet").exists()


def test_run_prints_a_readable_summary_and_writes_to_results_stem(tiny_path: Path, tmp_path):
    r = run_cli("run", tiny_path, "--no-plots", cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert "utilisation" in r.stdout and "Jain index" in r.stdout
    assert (tmp_path / "results" / "tiny" / "summary.json").exists()


def test_same_seed_is_byte_identical_another_seed_differs(tiny_path: Path, tmp_path: Path):
    def summary(seed: int, out: str) -> bytes:
        r = run_cli(
            "run", tiny_path, "--json", "--no-plots", "--seed", seed, "--out", tmp_path / out
        )
        assert r.code == 0, r.stderr
        return (tmp_path / out / "summary.json").read_bytes()

    a, b, c = summary(5, "a"), summary(5, "b"), summary(6, "c")
    assert a == b
    assert a != c
    assert json.loads(a)["seed"] == 5 and json.loads(c)["seed"] == 6


def test_set_overrides_reach_the_run(tiny_path: Path, tmp_path: Path):
    out = tmp_path / "out"
    r = run_cli(
        "run",
        tiny_path,
        "--json",
        "--no-plots",
        "--out",
        out,
        "--set",
        "flows.0.count=3",
        "--set",
        "bottleneck.rate=1Mbps",
        "--set",
        "flows.0.group=web",
    )
    assert r.code == 0, r.stderr
    s = json.loads(r.stdout)
    assert len(s["flows"]) == 3
    assert set(s["groups"]) == {"web"}
    resolved = tomllib.loads((out / "scenario.toml").read_text())
    assert resolved["flows"][0]["count"] == 3
    assert resolved["bottleneck"]["rate"] in ("1Mbps", "1000kbps", "1000000bps")
    # Three flows on 1 Mbps: the mean goodput is bounded by a third of it.
    assert s["goodput_mbps"]["mean"] <= 1.0 / 3 + 1e-9


def test_validate_prints_the_resolved_scenario(tiny_path: Path):
    r = run_cli("validate", tiny_path, "--set", "seed=42")
    assert r.code == 0, r.stderr
    doc = tomllib.loads(r.stdout)
    assert doc["seed"] == 42
    assert doc["bottleneck"]["qdisc"]["kind"] == "droptail"
    assert "sample_interval" in doc  # defaults are written out


def test_algorithms_lists_kinds_params_and_sources():
    r = run_cli("algorithms")
    assert r.code == 0, r.stderr
    assert "droptail" in r.stdout and "source" in r.stdout
    j = run_cli("algorithms", "--json")
    algos = json.loads(j.stdout)
    assert "droptail" in {a["kind"] for a in algos}
    for a in algos:
        assert a["kind"] in r.stdout


def test_compare_writes_each_run_and_the_comparison(tiny_path: Path, tmp_path: Path):
    other = tmp_path / "big_buffer.toml"
    other.write_text(TINY.replace("buffer = 20", "buffer = 200"))
    out = tmp_path / "cmp"
    r = run_cli("compare", tiny_path, other, "--out", out, "--json")
    assert r.code == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [row["run"] for row in rows] == ["tiny", "big_buffer"]
    # A ten times larger tail-drop buffer queues more.
    assert rows[1]["queue_pkts_mean"] > rows[0]["queue_pkts_mean"]
    for name in ("tiny", "big_buffer"):
        assert (out / name / "summary.json").exists()
    for f in ("comparison.csv", "comparison.md", "comparison.png"):
        assert (out / f).stat().st_size > 0
    # The comparison's page embeds its figure and links every run's own page.
    page = (out / "report.html").read_text()
    assert page.count("data:image/png;base64,") == 1
    # One column per run and one row per metric, labelled with its unit: fits a narrow page.
    assert page.count("<th>") == 1 + 2
    assert "<td>queueing delay p99 (ms)</td>" in page
    for name in ("tiny", "big_buffer"):
        assert f'href="{name}/report.html"' in page
        assert (out / name / "report.html").is_file()


def test_run_writes_a_self_contained_html_report(tiny_path: Path, tmp_path: Path):
    summary = json.loads(run_cli("run", tiny_path, "--json", "--out", tmp_path / "p").stdout)
    page = (tmp_path / "p" / "report.html").read_text()
    # Headline numbers as in summary.json, the three plots embedded, the scenario included.
    assert f"{summary['utilisation']:.4g}" in page
    assert f"{summary['jain_index']:.4g}" in page
    assert page.count("data:image/png;base64,") == 3
    assert "[bottleneck]" in page and page.rstrip().endswith("</html>")
    # Without plots the page still has the tables, and no images.
    r = run_cli("run", tiny_path, "--no-plots", "--out", tmp_path / "q")
    assert r.code == 0, r.stderr
    bare = (tmp_path / "q" / "report.html").read_text()
    assert "<img" not in bare and f"{summary['utilisation']:.4g}" in bare


def test_python_dash_m_and_version():
    r = run_cli("--version")
    assert r.code == 0
    assert r.stdout.startswith("aqmlab ")


# ---------------------------------------------------------------------------------------------
# Bad input: exit 2, one line on stderr naming the key, no traceback, no result files.

RED = 'qdisc = { kind = "red", min_th = 5, max_th = 15, max_p = 0.1 }'

# (id, text replacements on TINY, extra CLI args, expected key path, algorithm needed)
BAD: list[tuple[str, list[tuple[str, str]], list[str], str, str]] = [
    ("unknown key", [("buffer = 20", "buffer = 20\ncolour = 1")], [], "bottleneck.colour", ""),
    (
        "unknown algorithm",
        [('kind = "droptail"', 'kind = "magic"')],
        [],
        "bottleneck.qdisc.kind",
        "",
    ),
    (
        "misspelled algorithm parameter",
        [('qdisc = { kind = "droptail" }', 'qdisc = { kind = "droptail", max_pp = 0.1 }')],
        [],
        "bottleneck.qdisc.max_pp",
        "",
    ),
    ("negative rate", [('"2Mbps"', '"-2Mbps"')], [], "bottleneck.rate", ""),
    ("bad unit string", [('delay = "5ms"', 'delay = "5 parsecs"')], [], "bottleneck.delay", ""),
    ("zero buffer", [("buffer = 20", "buffer = 0")], [], "bottleneck.buffer", ""),
    ("missing flows", [(TINY[TINY.index("[[flows]]") :], "")], [], "flows", ""),
    ("NaN loss", [("buffer = 20", "buffer = 20\nloss = nan")], [], "bottleneck.loss", ""),
    ("wrong type", [("count = 4", 'count = "four"')], [], "flows.0.count", ""),
    ("zero flows", [("count = 4", "count = 0")], [], "flows.0.count", ""),
    ("missing duration", [('duration = "4s"\n', "")], [], "duration", ""),
    ("warmup past the end", [('warmup = "1s"', 'warmup = "9s"')], [], "warmup", ""),
    ("tiny mss", [('group = "a"', 'group = "a"\ntcp = { mss = 1 }')], [], "flows.0.tcp.mss", ""),
    ("bad override value", [], ["--set", "bottleneck.rate=fast"], "bottleneck.rate", ""),
    ("override past a list", [], ["--set", "flows.3.count=1"], "flows.3", ""),
    ("override NaN", [], ["--set", "duration=nan"], "duration", ""),
    (
        "min_th > max_th",
        [('qdisc = { kind = "droptail" }', RED.replace("min_th = 5", "min_th = 16"))],
        [],
        "bottleneck.qdisc.",
        "red",
    ),
    (
        "max_p above 1",
        [('qdisc = { kind = "droptail" }', RED.replace("max_p = 0.1", "max_p = 1.5"))],
        [],
        "bottleneck.qdisc.max_p",
        "red",
    ),
    (
        "max_p zero",
        [('qdisc = { kind = "droptail" }', RED.replace("max_p = 0.1", "max_p = 0.0"))],
        [],
        "bottleneck.qdisc.max_p",
        "red",
    ),
]


def _bad_params() -> list:
    params = []
    for id_, repl, args, path, kind in BAD:
        # Every case's algorithm is in the build; a missing one fails here rather than skipping.
        assert not kind or kind in kinds(), kind
        params.append(pytest.param(repl, args, path, id=id_))
    return params


def assert_rejected(r, path: str) -> None:
    assert r.code == 2, (r.code, r.stdout, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"error: {path}"), lines[0]
    assert "Traceback" not in r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize(("replacements", "args", "path"), _bad_params())
def test_bad_scenarios_are_rejected_cleanly(replacements, args, path, tmp_path: Path):
    text = TINY
    for old, new in replacements:
        assert old in text, f"test bug: {old!r} not in the scenario"
        text = text.replace(old, new)
    scenario = tmp_path / "bad.toml"
    scenario.write_text(text)
    out = tmp_path / "out"
    r = run_cli("run", scenario, "--out", out, *args)
    assert_rejected(r, path)
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]  # nothing else written
    # `validate` agrees with `run`: one schema.
    v = run_cli("validate", scenario, *args)
    assert_rejected(v, path)


def test_toml_syntax_error_and_missing_file(tmp_path: Path):
    bad = tmp_path / "syntax.toml"
    bad.write_text('duration = "4s\n')
    assert_rejected(run_cli("run", bad, "--out", tmp_path / "o"), str(bad))
    missing = tmp_path / "missing.toml"
    assert_rejected(run_cli("run", missing, "--out", tmp_path / "o"), str(missing))
    assert not (tmp_path / "o").exists()


def test_compare_rejects_before_running_anything(tiny_path: Path, tmp_path: Path):
    bad = tmp_path / "bad.toml"
    bad.write_text(TINY.replace("count = 4", "count = -1"))
    out = tmp_path / "cmp"
    r = run_cli("compare", tiny_path, bad, "--out", out)
    assert_rejected(r, "flows.0.count")
    assert not out.exists()
