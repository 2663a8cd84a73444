"""Compiled page templates (aqmlab.template_cache): the same pages as compiled from source, and
a compiled file is used only for the source and settings it was compiled from."""

from __future__ import annotations

import sys
from pathlib import Path

import jinja2
import pytest

import aqmlab
from aqmlab import pages
from aqmlab.template_cache import CompiledTemplates, compile_all, settings_key
from conftest import TINY


def _env(templates: dict[str, str], cache_dir: Path, **options: bool) -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.DictLoader(templates), **options)
    env.bytecode_cache = CompiledTemplates(cache_dir, settings_key(env), write=True)
    return env


def _compiles(env: jinja2.Environment, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names ``env`` compiles from source from now on."""
    seen: list[str] = []
    original = env.compile

    def counting(source: str, name: str | None = None, *a: object, **k: object) -> object:
        seen.append(str(name))
        return original(source, name, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(env, "compile", counting)
    return seen


@pytest.fixture
def fresh_pages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """aqmlab.pages with its compiled templates in tmp_path, and a new environment."""
    monkeypatch.setattr(pages, "TEMPLATES", tmp_path)
    pages._env.cache_clear()
    yield tmp_path / "__pycache__"
    pages._env.cache_clear()


def test_a_run_page_from_compiled_templates_is_the_page_compiled_from_source(
    fresh_pages: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    res = aqmlab.run(TINY, set={"duration": "2s", "warmup": "0.5s"})
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    from_source = pages.run_page(res.summary, res.scenario_toml, tmp_path)
    assert not fresh_pages.exists()  # PYTHONDONTWRITEBYTECODE: nothing written on the way

    names = pages.compile_templates()  # what `make setup` does
    assert "run.html.j2" in names and all(n.endswith(".j2") for n in names)
    assert sorted(p.name for p in fresh_pages.iterdir()) == sorted(f"{n}.cache" for n in names)

    pages._env.cache_clear()
    compiled = _compiles(pages._env(), monkeypatch)
    assert pages.run_page(res.summary, res.scenario_toml, tmp_path) == from_source
    assert compiled == []  # run.html.j2 and what it includes all came from the files


def test_a_changed_source_or_setting_compiles_again(tmp_path: Path, monkeypatch):
    cache = tmp_path / "c"
    text = "{% if x %}\n  yes{{ x }}\n{% endif %}\n"
    before = _env({"t.j2": text}, cache).get_template("t.j2").render(x=1)
    assert (cache / "t.j2.cache").is_file()

    edited = _env({"t.j2": text.replace("yes", "no")}, cache)
    assert edited.get_template("t.j2").render(x=1) == before.replace("yes", "no")

    trimmed = _env({"t.j2": text}, cache, trim_blocks=True, lstrip_blocks=True)
    compiled = _compiles(trimmed, monkeypatch)
    assert trimmed.get_template("t.j2").render(x=1) == "  yes1\n" != before
    assert compiled == ["t.j2"]


@pytest.mark.parametrize("damage", [b"", b"garbage", b"j2\x80\x02K\x05"])
def test_a_damaged_compiled_file_is_compiled_again(tmp_path: Path, damage: bytes):
    cache = tmp_path / "c"
    _env({"t.j2": "a{{ x }}"}, cache).get_template("t.j2")
    (cache / "t.j2.cache").write_bytes(damage)
    assert _env({"t.j2": "a{{ x }}"}, cache).get_template("t.j2").render(x=2) == "a2"


def test_writing_follows_dont_write_bytecode_and_survives_a_read_only_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    def env(cache: Path) -> jinja2.Environment:
        e = jinja2.Environment(loader=jinja2.DictLoader({"t.j2": "b{{ x }}"}))
        e.bytecode_cache = CompiledTemplates(cache, settings_key(e))
        return e

    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    env(tmp_path / "off").get_template("t.j2")
    assert not (tmp_path / "off").exists()
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    env(tmp_path / "on").get_template("t.j2")
    assert [p.name for p in (tmp_path / "on").iterdir()] == ["t.j2.cache"]  # no temporary left
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    assert env(blocked / "sub").get_template("t.j2").render(x=3) == "b3"


def test_compile_all_needs_the_cache():
    with pytest.raises(TypeError):
        compile_all(jinja2.Environment(loader=jinja2.DictLoader({})))


def test_table_cells_are_formatted_and_escaped_as_the_template_did():
    """The table macro's rows are built in Python (pages._rows_html); the bytes are those of the
    template loop they replaced: numbers to 4 significant digits, nothing for None and NaN,
    every other value's text escaped (a Markup value too: cells are text)."""
    import numpy as np
    from markupsafe import Markup

    row = ["x&\"y'", 1.234567, None, float("nan"), True, -3, np.float64(2.5), Markup("<i>")]
    assert pages.rows_table(["a<", "b"], [row, [2**70]], "cap") == (
        '<p><em>cap</em></p><div class="scroll"><table class="dataframe"><thead><tr>'
        "<th>a&lt;</th><th>b</th></tr></thead>\n<tbody>\n"
        "<tr><td>x&amp;&#34;y&#39;</td><td>1.235</td><td></td><td></td><td>True</td><td>-3</td>"
        "<td>2.5</td><td>&lt;i&gt;</td></tr>\n<tr><td>1180591620717411303424</td></tr>\n"
        "</tbody></table></div>"
    )
