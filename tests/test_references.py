"""tools/spell_refs.py: bare spec codes in comments and docstrings are spelled out, and stay so.

The rewrite may touch comments and docstrings only, must be idempotent and must keep lines
within the project's limit; the tree check fails on any bare reference, naming file:line.
"""

import importlib.util
import io
import sys
import tokenize
from pathlib import Path

from hypothesis import assume, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("spell_refs", ROOT / "tools" / "spell_refs.py")
spell_refs = sys.modules.setdefault("spell_refs", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(spell_refs)


def speller():
    return spell_refs.Speller(spell_refs.load_map())


def code_tokens(source: str) -> list[tuple[int, str]]:
    """Everything but comments, docstrings and line breaks: what Python runs."""
    docs = {tok.start for what, tok in spell_refs.pieces(source) if what == "docstring"}
    return [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(source).readline)
            if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE)
            and t.start not in docs]


def test_a_comment_code_gets_its_title_and_document():
    src = "x = 1\n# reserved slots start late (spec ch3 A17)\n"
    out = spell_refs.rewrite_source(speller(), "scheduling/parallel_energy/sim.py", src)
    assert out == ("x = 1\n# reserved slots start late (place-holders that start before the "
                   "next event (ch. 3 spec A17))\n")


def test_a_bare_section_means_the_spec_of_the_files_kind():
    src = '"""Erased every event (§6.4)."""\n'
    vos = spell_refs.rewrite_source(speller(), "scheduling/value_of_service/sim.py", src)
    grid = spell_refs.rewrite_source(speller(), "tests/scheduling/grid/test_x.py", src)
    assert "(permanent reservations vs. place-holders (ch. 2 spec §6.4))" in vos
    assert "(queue balancing (grid spec §6.4))" in grid


def test_three_level_sections_are_the_dissertations():
    src = "# Random reserves (§3.3.4.2)\n"
    out = spell_refs.rewrite_source(speller(), "tests/scheduling/parallel_energy/test_r.py", src)
    assert out == "# Random reserves (dissertation §3.3.4.2)\n"  # "Random" already stands there


def test_data_strings_and_code_are_left_alone():
    src = ('P = dict(spec="§7.2", help="a knob (spec ch3 A3)")\n'
           'def f():\n    return "§6.4"  # (spec §6.4)\n')
    out = spell_refs.rewrite_source(speller(), "scheduling/value_of_service/x.py", src)
    assert out.splitlines()[0] == src.splitlines()[0]
    assert 'return "§6.4"  # (permanent reservations vs. place-holders (ch. 2 spec §6.4))' in out


def test_an_unknown_code_is_reported_not_guessed():
    sp = speller()
    src = "# see spec ch3 A999\n"
    assert spell_refs.rewrite_source(sp, "scheduling/parallel_energy/x.py", src) == src
    assert sp.unresolved == [("scheduling/parallel_energy/x.py", 1, "spec ch3 A999")]


def test_a_long_trailing_comment_moves_above_its_line():
    src = "    value = compute(a, b, c)  # the reading of the chapter here (spec ch3 A18)\n"
    out = spell_refs.rewrite_source(speller(), "scheduling/parallel_energy/x.py", "if 1:\n" + src)
    assert all(len(line) <= spell_refs.LIMIT for line in out.splitlines())
    assert out.splitlines()[1].startswith("    # the reading of the chapter here")
    assert out.splitlines()[-1] == "    value = compute(a, b, c)"


WORDS = st.sampled_from(["the", "queue", "energy", "of", "a", "task", "(", ")", ",", "spec",
                         "§6.4", "§2.1", "§7.1-7.2", "spec §8.2", "spec ch3 A17", "spec ch4 A18",
                         "(spec ch5 A22)", "(§5.1)", "dissertation §3.5.6", "§6.1, §8.1",
                         "spec ch3 §5.3", "x" * 30])
TEXT = st.lists(WORDS, min_size=1, max_size=14).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(comment=TEXT, doc=TEXT, indent=st.sampled_from(["", "    ", "        "]))
def test_rewriting_is_idempotent_keeps_code_and_line_limit(comment, doc, indent):
    src = (f"def f():\n{indent or '    '}\"\"\"{doc}\"\"\"\n"
           f"{indent or '    '}y = 1  # {comment}\n"
           f"{indent or '    '}# {comment}\n"
           f"{indent or '    '}return y\n")
    assume(all(len(line) <= spell_refs.LIMIT for line in src.splitlines()))
    path = "scheduling/value_of_service/mod.py"
    once = spell_refs.rewrite_source(speller(), path, src)
    assert spell_refs.rewrite_source(speller(), path, once) == once
    assert code_tokens(once) == code_tokens(src)
    compile(once, path, "exec")
    assert all(len(line) <= spell_refs.LIMIT for line in once.splitlines()), once
    sp = speller()
    left = [m.group() for what, tok in spell_refs.pieces(once) if what != "data"
            for m, _ in sp.groups(tok.string, sp.home_of_path(path))]
    assert left == []


def test_the_check_names_file_and_line(tmp_path, capsys):
    kind = tmp_path / "scheduling" / "grid"
    kind.mkdir(parents=True)
    (kind / "x.py").write_text('"""Fine."""\n\nX = "§6.4"  # data is not a comment\n# see §6.4\n')
    assert spell_refs.main(["--check", "--root", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "scheduling/grid/x.py:4: bare reference '§6.4' in a comment" in out
    assert spell_refs.main(["--write", "--root", str(tmp_path)]) == 0
    assert spell_refs.main(["--check", "--root", str(tmp_path)]) == 0
    assert (kind / "x.py").read_text().endswith('X = "§6.4"  # data is not a comment\n'
                                                "# see queue balancing (grid spec §6.4)\n")


def test_the_tree_has_no_bare_references():
    refs = spell_refs.scan(speller(), ROOT)
    assert not refs, "bare spec references; run tools/spell_refs.py --write:\n" + "\n".join(
        f"{r.path}:{r.line}: {r.text!r} in a {r.where}" for r in refs)
