"""What reaches the terminal: names from a scenario never act on it (control characters,
rich markup), and a long run says how far it got."""

from __future__ import annotations

import io

import tomli_w

from aqmlab import api, cli, scenario
from aqmlab.report import printable
from conftest import TINY, run_cli


def test_printable_escapes_control_and_format_characters():
    assert printable("a\x1b[31mb\rc\x08\u202ed\n") == "a\\x1b[31mb\\x0dc\\x08\\u202ed\\x0a"
    assert printable("débit 10 Mbit/s — ok") == "débit 10 Mbit/s — ok"


def test_group_names_reach_the_terminal_escaped(tmp_path):
    hostile = "evil\x1b]0;pwned\x07\x1b[2J[bold]x[/bold]"
    doc = scenario.loads(TINY)
    doc["flows"][0]["group"] = hostile
    p = tmp_path / "s.toml"
    p.write_text(tomli_w.dumps(doc))
    r = run_cli("run", p, "--out", tmp_path / "out", "--no-plots")
    assert r.code == 0, r.stderr
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout
    assert "evil" in r.stdout and "\\x1b" in r.stdout  # shown, escaped (maybe wrapped)


def test_errors_are_one_escaped_line(tmp_path):
    r = run_cli("run", tmp_path / "no\x1b[2Jsuch.toml")
    assert r.code == 2 and r.stderr.count("\n") == 1 and "\x1b" not in r.stderr


def test_a_huge_duration_is_announced_and_progress_shown(monkeypatch):
    text, _ = api.prepare(
        TINY, set={"duration": "1e7s", "sample_interval": "1s", "series_bin": "10s"}
    )
    err = io.StringIO()
    monkeypatch.setattr(cli.sys, "stderr", err)
    progress = cli._Progress(text)
    assert "1e+07 s of simulated time" in err.getvalue()
    progress.t0 -= 100.0  # as if the run had lasted 100 s
    progress(250 * 10**9)
    assert "simulated 250 s of 1e+07 s" in err.getvalue()


def test_a_black_hole_is_warned(capsys):
    cli._warn_black_hole({"arrivals": 50, "departures": 0, "loss_rate": 1.0})
    assert "dropped all 50 packets" in capsys.readouterr().err
    cli._warn_black_hole({"arrivals": 50, "departures": 40, "loss_rate": 0.2})
    assert capsys.readouterr().err == ""
    cli._warn_black_hole({"arrivals": 0, "departures": 0, "loss_rate": 0.0, "window_s": 4.0})
    assert capsys.readouterr().err.startswith("warning: no packet reached the measured link")
