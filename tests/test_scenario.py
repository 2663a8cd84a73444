"""Scenario loading and --set overrides (pure Python: no simulation)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from aqmlab import ScenarioError
from aqmlab import scenario as sc
from aqmlab.scenario import tomllib


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("64", 64),
        ("0.05", 0.05),
        ("-3", -3),
        ("true", True),
        ('"5ms"', "5ms"),
        ("5ms", "5ms"),  # not a TOML literal: taken as a string
        ("red", "red"),
        ("[1, 2]", [1, 2]),
        ('{ kind = "red", max_p = 0.1 }', {"kind": "red", "max_p": 0.1}),
        ("1e3", 1000.0),
    ],
)
def test_parse_value_reads_toml_literals_else_strings(text, expected):
    got = sc.parse_value(text)
    assert got == expected
    assert type(got) is type(expected)


def test_parse_value_nan_and_inf():
    assert math.isnan(sc.parse_value("nan"))
    assert sc.parse_value("-inf") == -math.inf


def test_set_path_descends_tables_and_list_indices():
    doc = {"flows": [{"count": 1}, {"count": 2}], "bottleneck": {"qdisc": {"kind": "red"}}}
    sc.apply_overrides(doc, ["flows.1.count=64", "bottleneck.qdisc.max_p=0.05", "sink.rate=1Gbps"])
    assert doc["flows"] == [{"count": 1}, {"count": 64}]
    assert doc["bottleneck"]["qdisc"] == {"kind": "red", "max_p": 0.05}
    assert doc["sink"] == {"rate": "1Gbps"}  # missing tables are created


def test_later_overrides_win_and_mappings_are_taken_verbatim():
    doc: dict = {}
    sc.apply_overrides(doc, ["seed=1", "seed=2"])
    assert doc["seed"] == 2
    sc.apply_overrides(doc, {"name": "123"})  # a mapping's values are not re-parsed
    assert doc["name"] == "123"


@pytest.mark.parametrize(
    ("override", "path"),
    [
        ("flows.2.count=1", "flows.2"),  # index out of range
        ("flows.x.count=1", "flows.x"),  # not an index
        ("seed.deeper=1", "seed"),  # descending into a number
        ("no-equals-sign", "no-equals-sign"),
    ],
)
def test_bad_override_paths_raise_scenario_error(override, path):
    doc = {"seed": 1, "flows": [{}, {}]}
    with pytest.raises(ScenarioError) as e:
        sc.apply_overrides(doc, [override])
    assert e.value.path == path
    assert str(e.value).startswith(f"{path}: ")


def test_nan_survives_the_round_trip():
    doc = {"bottleneck": {"loss": math.nan}}
    back = tomllib.loads(sc.dumps(doc))
    assert math.isnan(back["bottleneck"]["loss"])


def test_resolve_accepts_path_text_and_dict(tmp_path: Path):
    text = 'name = "n"\nseed = 4\n'
    p = tmp_path / "my-scenario.toml"
    p.write_text(text)
    from_path, name = sc.resolve(p, seed=9)
    assert from_path == {"name": "n", "seed": 9}
    assert name == "my-scenario"
    assert sc.resolve(str(p))[0] == {"name": "n", "seed": 4}
    assert sc.resolve(text) == ({"name": "n", "seed": 4}, "n")
    original = {"seed": 1, "flows": [{"count": 1}]}
    doc, name = sc.resolve(original, overrides=["flows.0.count=5"])
    assert doc["flows"][0]["count"] == 5
    assert original["flows"][0]["count"] == 1  # the caller's dict is not edited
    assert name == "scenario"


def test_missing_file_and_bad_toml(tmp_path: Path):
    with pytest.raises(ScenarioError) as e:
        sc.load(tmp_path / "nope.toml")
    assert e.value.path.endswith("nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("duration = \n")
    with pytest.raises(ScenarioError) as e:
        sc.load(bad)
    assert e.value.path.endswith("bad.toml")
    assert "TOML syntax error" in e.value.value
