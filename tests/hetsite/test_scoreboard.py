"""The reproduction record: it covers every figure preset, every record is sound, the docs'
tables are generated from it (no drift), every contradicted claim has its written trace, and the
counts per chapter add up."""

import copy

import pytest

from hetsite import kinds, reproduce, scoreboard
from simcore.registry import FIGURE_FIRST_SEED
from simcore.sweep import SweepRun

STATUS = scoreboard.load()
FIGURES = kinds.all_figures()


def test_the_record_covers_every_figure_preset_on_fresh_seeds():
    assert len(FIGURES) >= 60
    assert sorted(STATUS["figures"]) == sorted(f.name for f in FIGURES)
    for figure in FIGURES:
        rec = STATUS["figures"][figure.name]
        assert rec["first_seed"] == FIGURE_FIRST_SEED == 1000
        assert rec["cpu_s"] > 0 and rec["runs"] > 0 and rec["commit"]


@pytest.mark.parametrize("figure", FIGURES, ids=lambda f: f.name)
def test_every_record_is_complete_and_its_verdicts_follow_its_intervals(figure):
    assert scoreboard.problems(figure, STATUS["figures"][figure.name]) == []


def test_each_figure_affords_the_papers_trials_or_says_why_not():
    """A preset runs the paper's trial count when that fits about 30 CPU-minutes (15 on two
    cores), else the largest count that does, and says so; the cost per trial is the record's
    (a short record's too: it measured the same runs, fewer of them)."""
    for figure in FIGURES:
        rec = STATUS["figures"][figure.name]
        per_trial = rec["cpu_s"] / rec["trials"]
        assert per_trial * figure.trials < 3600, (figure.name, per_trial)  # 2x for the machine
        if figure.paper_trials and figure.trials < figure.paper_trials:
            paper = figure.paper_trials
            assert f"({paper} published" in figure.scale or f"({paper:,} published" in \
                figure.scale, figure.name
            # "The largest count that fits", to within the record's own noise: a trial's cost
            # moves with the machine's load and with how many trials share the fixed costs
            # (ch. 5 Fig. 50: 3.2 CPU-s a trial over 30 trials, 2.7 over 480; Fig. 46: 0.42
            # over 270, 0.28 over 4,300), so a preset sized on a short record may use 60% of
            # the budget by its full record's measure.
            assert per_trial * (figure.trials + 1) > 0.6 * 1800, figure.name


def test_a_short_record_says_why_and_the_docs_name_it():
    """A figure recorded with fewer trials than its own count (``reproduce --record --trials N
    --short REASON``) keeps its reason, its seeds follow its trials, and the docs' table shows
    it as short; a record short of its count without a reason is a problem."""
    text = scoreboard.DOCS.read_text()
    for figure in FIGURES:
        rec = STATUS["figures"][figure.name]
        if rec["trials"] < figure.trials:
            assert rec["short"].strip(), figure.name
            assert f"**{rec['trials']} of {figure.trials}**" in text, figure.name
    figure = kinds.get_figure("ch3-quick")
    rec = copy.deepcopy(STATUS["figures"]["ch3-quick"])
    rec.update(trials=figure.trials - 1, last_seed=rec["last_seed"] - 1)
    for check in rec["checks"]:
        check["n"] = min(check["n"], rec["trials"])
    assert any("trials" in p for p in scoreboard.problems(figure, rec))
    rec["short"] = "session time"
    assert not any("trials" in p for p in scoreboard.problems(figure, rec))


def test_fig26_conservative_over_easy_is_recorded_contradicted():
    (check,) = [c for c in STATUS["figures"]["ch3-fig26"]["checks"]
                if (c["better"], c["worse"], c["metric"]) == ("conservative", "easy",
                                                             "pct_max_utility")]
    assert check["verdict"] == "contradicted" and check["diff_high"] < 0
    assert check["size"]["verdict"] == "differs"


def test_the_docs_tables_are_generated_from_the_record():
    """``python manage.py reproduce --write-docs`` regenerates them; run it after recording."""
    text = scoreboard.DOCS.read_text()
    assert scoreboard.generated_block(text) == scoreboard.markdown(STATUS, FIGURES)


def test_every_contradicted_claim_has_its_written_trace():
    text = scoreboard.DOCS.read_text()
    assert scoreboard.traces_missing(STATUS, text) == []
    assert 'id="trace-ch3-fig26-conservative-gt-easy-pct-max-utility"' in text


def test_a_missing_trace_is_found_outside_the_generated_block():
    text = scoreboard.DOCS.read_text()
    anchor = 'id="trace-ch3-fig26-conservative-gt-easy-pct-max-utility"'
    assert "trace-ch3-fig26-conservative-gt-easy-pct-max-utility" in scoreboard.traces_missing(
        STATUS, text.replace(anchor, 'id="gone"'))


def test_counts_per_chapter_add_up_and_count_a_missing_record_as_not_run():
    status = copy.deepcopy(STATUS)
    gone = status["figures"].pop("ch3-fig26")
    table = dict(scoreboard.counts(status, FIGURES))
    ch3 = table[scoreboard.chapter(kinds.get_figure("ch3-fig26"))]
    assert ch3["not run"] == len(gone["checks"])
    full = dict(scoreboard.counts(STATUS, FIGURES))
    assert sum(sum(t.values()) for t in full.values()) == sum(
        len(r["checks"]) for r in STATUS["figures"].values())
    verdicts = [c["verdict"] for c in gone["checks"]]
    for v in ("holds", "inconclusive", "contradicted"):
        assert full[scoreboard.chapter(kinds.get_figure("ch3-fig26"))][v] - ch3[v] == \
            verdicts.count(v)


def test_a_stale_record_is_found():
    figure = kinds.get_figure("ch3-quick")
    rec = copy.deepcopy(STATUS["figures"]["ch3-quick"])
    assert scoreboard.problems(figure, {**rec, "trials": rec["trials"] + 1})
    assert scoreboard.problems(figure, {**rec, "first_seed": 1, "last_seed": rec["trials"]})
    assert scoreboard.problems(figure, {**rec, "commit": "abc+dirty"})
    assert scoreboard.problems(figure, {**rec, "checks": rec["checks"][1:]}) or \
        len(rec["checks"]) == 1 and scoreboard.problems(figure, {**rec, "checks": []})
    del rec["cpu_s"]
    assert scoreboard.problems(figure, rec) == ["missing cpu_s"]


def test_live_verdicts_sit_beside_the_recorded_ones():
    figure = kinds.get_figure("ch3-quick")
    runs = [SweepRun(0, {}, p, s, {"pct_max_utility": v})
            for p, vs in (("max-upe-ph", [50.0, 60.0, 55.0]), ("easy", [20.0, 35.0, 30.0]))
            for s, v in enumerate(vs)]
    (row,) = scoreboard.live(figure, runs)
    assert row["verdict"] == "holds" and row["n"] == 3 and row["claim"] == "max-upe-ph > easy"
    assert row["recorded"] == STATUS["figures"]["ch3-quick"]["checks"][0]
    assert row["provenance"][0]["label"] == "scaled system"
    status = copy.deepcopy(STATUS)
    del status["figures"]["ch3-quick"]
    (unrun,) = scoreboard.page(status, [figure])["rows"]
    assert unrun["verdict"] == "not run" and unrun["claim"] == "max-upe-ph > easy"
    assert unrun["n"] == "" and unrun["key"] == "max-upe-ph>easy pct_max_utility @all"


def test_an_interval_past_its_range_is_cut_and_marked_and_a_single_point_says_so():
    # A difference of two percentages cannot pass -100: random against a heuristic that
    # completes every critical task reaches -101 by the t interval and is printed cut there.
    figure = kinds.get_figure("ch4-quick")
    runs = [SweepRun(0, {}, p, s, {"pct_critical_completed": v, "pct_max_utility": 50.0 + s})
            for p, vs in (("random", [0.0, 4.0, 0.5]), ("max-upt-diff", [100.0] * 3))
            for s, v in enumerate(vs)]
    standing = {r["metric"]: r for r in scoreboard.standing_of(figure, runs)
                if r["worse"] == "max-upt-diff"}
    cut = standing["pct_critical_completed"]
    assert cut["diff_low"] < -100  # the t interval's own end
    line = reproduce.standing_line(figure, cut)
    assert f"[-100*, {cut['diff_high']:.4g}]" in line and line.endswith(f"({scoreboard.CUT})")
    (row,) = [r for r in scoreboard.standing_rows(figure, runs)
              if r["published"] == "max-upt-diff" and r["metric"] == "pct_critical_completed"]
    assert row["interval"] == f"[-100*, {cut['diff_high']:.4g}]"
    # both arms 50 + seed: every paired difference 0, one point from three seeds
    same = standing["pct_max_utility"]
    assert same["diff_low"] == same["diff_high"] == 0 and same["n"] == 3
    assert "+0 (the same in every trial) (n=3) indistinguishable" in reproduce.standing_line(
        figure, same)


def test_the_deterministic_example_is_shown_as_one_exact_difference_not_an_interval():
    figure = kinds.get_figure("ch5-fig-43-45")
    (check,) = STATUS["figures"]["ch5-fig-43-45"]["checks"]
    assert check["diff_low"] == check["diff_high"] and check["n"] >= 2
    (row,) = [r for r in scoreboard.page(STATUS, [figure])["rows"]]
    assert row["interval"] == "(the same in every trial)"
    assert row["size"].endswith(f"ours {check['size']['low']:.4g} (the same in every trial)")
    line = reproduce.check_line(figure, check)
    assert f"{check['diff_mean']:+.4g} (the same in every trial) (n={check['n']}) holds" in line
