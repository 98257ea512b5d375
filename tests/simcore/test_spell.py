"""simcore.references.spell: the bare spec codes people read are shown with their title and
document, resolved by the kind they belong to; the code itself always stays visible, and a code
the map does not know is shown as it is (never dropped, never guessed)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling.engine import ENGINE
from simcore.cli import main
from simcore.references import ITEM, spell, speller
from uav.engine import ENGINE as UAV


def test_a_bare_section_means_the_spec_of_its_kind():
    assert spell("§7.2", "value-of-service") == "Simple and its variants (ch. 2 spec §7.2)"
    assert spell("§6.4", "grid") == "Queue balancing (grid spec §6.4)"
    assert spell("§4.4, §4.6", "uav") == ("Value-based greedy heuristics (ch. 5 spec §4.4), "
                                         "preemption (ch. 5 spec §4.6)")


def test_codes_inside_a_help_text_are_spelled_in_place():
    assert spell("relative amplitude of the sinusoidal rate (spec ch3 A9)", "parallel-energy") \
        == "relative amplitude of the sinusoidal rate (arrival sinusoid (ch. 3 spec A9))"
    # a chapter named in the text wins over the kind's own spec
    assert spell("as in spec ch4 §9.4", "uav") == "as in Preempt Greedy (ch. 4 spec §9.4)"


def test_unknown_codes_and_kinds_without_a_spec_stay_as_they_are():
    assert spell("Armstrong et al., MTAGS 2010 §X (Fig. 8)", "many-task") == \
        "Armstrong et al., MTAGS 2010 §X (Fig. 8)"
    assert spell("§99.1 and §7.2", "value-of-service") == "§99.1 and §7.2"  # a group is whole
    assert spell("§7.2", "swf-replay") == "§7.2"
    assert spell("§7.2", "no-such-kind") == "§7.2"
    assert spell("", "grid") == ""
    # a section of another file named right before it is that file's, not the spec's
    assert spell("set like docs/calibration.md §1", "parallel-energy") == \
        "set like docs/calibration.md §1"
    assert spell("ch3-parallel-utility-energy.md §10.4", "parallel-energy") == \
        "ch3-parallel-utility-energy.md calibration and sanity checks (ch. 3 spec §10.4)"


CODES = ["§7.2", "§6.4", "§5.1", "§99.9", "§X", "§4.4-4.7", "§6.1-§6.3", "spec §9", "A9",
         "spec ch3 A17", "spec ch4 §9.4", "spec ch3 A999", "dissertation §3.5.6", "§3.5.6"]
WORDS = st.sampled_from(["the", "rate", "of", "a", "(", ")", ",", ";", "Fig. 8", *CODES])
KINDS = st.sampled_from(["value-of-service", "parallel-energy", "serial-preemption", "uav",
                         "grid", "many-task", "swf-replay", "swf-preemptive"])


@settings(max_examples=200, deadline=None)
@given(words=st.lists(WORDS, min_size=1, max_size=12), kind=KINDS)
def test_every_code_stays_visible_and_spelling_twice_changes_nothing(words, kind):
    text = " ".join(words)
    shown = spell(text, kind)
    sp = speller()
    for m in ITEM.finditer(text):
        assert m.group() in shown or sp.canonical(m.group()) in shown, (text, shown)
    assert spell(shown, kind) == shown
    assert len(shown) >= len(text)


def test_the_cli_policy_table_shows_the_spec_spelled_out(capsys):
    assert main(ENGINE, ["policies", "--kind", "value-of-service"], prog="x") == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert "value-of-service   Simple and its variants (ch. 2 spec §7.2) · Random task order" \
        in rows["simple"]
    assert "Max VPTR (ch. 2 spec §7.1) · " in rows["max-vptr"]
    # a policy whose spec is no code (an SWF replay's) is shown as it is
    assert main(ENGINE, ["policies", "--kind", "swf-replay"], prog="x") == 0
    assert "SWF replay: FCFS · First come" in capsys.readouterr().out


def test_the_uav_cli_spells_out_descriptions_and_its_sweep_help(capsys):
    assert main(UAV, ["policies"], prog="uav") == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    # "preemption" already stands in the sentence, so only the document is added
    assert rows["max-value+p"].endswith("with preemption of running surveils by better ones "
                                        "(ch. 5 spec §4.6)")
    with pytest.raises(SystemExit):
        main(UAV, ["sweep", "--help"], prog="uav")
    assert "UAV scenario sets (small scenario sets to experiments and metrics (ch. 5 spec " \
           "§6.6-7))" in capsys.readouterr().out
