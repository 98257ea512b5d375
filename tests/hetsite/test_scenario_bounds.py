"""A bound the scenario sets (the energy a run's budget allows) keeps every interval of the
energy used, as simcore.bounds keeps a declared one: the summary table and its CSV and LaTeX,
the paired and sweep charts, points.csv and the compare-experiments page clip there and say so.
"""

import csv
import io
import re

import pytest
from django.test import Client

from hetsite import figures, kinds, presenters
from hetsite.services import execution, submission
from simcore.bounds import Bounds, PerPoint
from simcore.lab import UNITLESS, Metric, RunData
from simcore.stats import mean_ci

pytestmark = pytest.mark.django_db

POLICIES = ["easy", "max-upe-ph", "meta-event"]


def finished(trials=3, **fields):
    sub = submission.validate_submission(kind="parallel-energy", preset="small",
                                         policies=fields.pop("policies", POLICIES),
                                         trials=trials, **fields)
    experiment = submission.create_experiment(sub, dispatch=False)
    for pk in experiment.runs.values_list("pk", flat=True):
        execution.execute_run(pk)
    experiment.refresh_from_db()
    return experiment


def read_csv(response) -> list[dict]:
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return list(csv.DictReader(io.StringIO(body.decode())))


def test_energy_intervals_stop_at_the_budget_and_say_so_on_every_page_and_export():
    experiment = finished()
    client = Client()
    eid = experiment.public_id
    runs = read_csv(client.get(f"/e/{eid}/runs.csv"))
    # The premise, from the runs themselves: every run had a 0.9 GJ budget and kept it.
    assert {float(r["energy_budget_gj (GJ)"]) for r in runs} == {0.9}
    energy = {p: [float(r["energy_gj (GJ)"]) for r in runs if r["policy"] == p]
              for p in POLICIES}
    assert all(e <= 0.9 * (1 + 1e-9) for v in energy.values() for e in v)
    raw = {p: mean_ci(v) for p, v in energy.items()}
    past = [p for p in POLICIES if raw[p]["high"] > 0.9]
    assert past  # some policy's t interval reaches past the budget: what is checked below

    rows = {r["policy"]: r for r in read_csv(client.get(f"/e/{eid}/summary.csv"))}
    for p in POLICIES:
        row = rows[p]
        assert float(row["energy used CI high (GJ)"]) <= 0.9 + 1e-12
        assert float(row["energy used CI half-width (GJ)"]) == pytest.approx(
            raw[p]["half_width"])  # the cell keeps the t interval's own half-width
        assert row["energy used CI clipped"] == ("yes" if p in past else "no")
        if p in past:
            assert float(row["energy used CI high (GJ)"]) == pytest.approx(0.9)

    page = client.get(f"/e/{eid}/").content.decode()
    table = presenters.summary_table(kinds.get_kind("parallel-energy"), experiment)
    k = [c.metric.key for c in table.columns].index("energy_gj")
    for p in POLICIES:
        tr = re.search(rf'<tr data-policy="{re.escape(p)}">(.*?)</tr>', page, re.S).group(1)
        td = re.findall(r"<td[^>]*>.*?</td>", tr, re.S)[k + 1]  # after the runs column
        assert ("<sup>*</sup>" in td) == (p in past), td
        if p in past:
            assert 'clipped' in td.split(">")[0] and "0.90" in td and "– 0.90" in td
    assert 'id="clip-note"' in page

    tex = client.get(f"/e/{eid}/summary.tex").content.decode()
    for p in POLICIES:
        line = next(x for x in tex.splitlines() if x.startswith(p + " &"))
        cell = line.split(" & ")[2 + k]
        assert ("*" in cell) == (p in past), line

    # Compared with an experiment under half the budget: each side's cells, their intervals
    # in words and their bars stop at that side's own budget.
    other = finished(trials=2, params={"energy": {"budget_gj": 0.45}})
    budgets = (0.9, 0.45)
    compare = client.get(f"/compare/experiments/?e={eid}&e={other.public_id}")
    assert compare.status_code == 200
    metric_table = next(t for t in compare.context["tables"]
                        if t.column.metric.key == "energy_gj")
    for row in metric_table.rows:
        for cell, budget in zip(row.cells, budgets, strict=True):
            assert cell.high <= budget + 1e-12, (row.policy, budget, cell)
        assert row.cells[0].clipped == (row.policy in past)
        for (cell, words), budget in zip(row.shown, budgets, strict=True):
            if cell.clipped:
                assert words.endswith(f"{budget:.2f}]") and "– " + f"{budget:.2f}" in cell.note
    bars = next(f["figure"] for f in compare.context["figures"] if f["id"] == "compare-energy_gj")
    for trace in bars["data"]:
        for y, up, budget in zip(trace["y"], trace["error_y"]["array"], budgets, strict=True):
            assert y + up <= budget + 1e-3, (trace["name"], budget, y + up)
    assert "cut" in bars["layout"]["title"]["subtitle"]["text"]  # says it was cut
    text = compare.content.decode()
    assert "0.90]" in text
    # Paired differences of two runs each under 0.9 GJ lie within ± 0.9.
    paired = next(f["figure"] for f in figures.paired_figures(experiment, "easy")
                  if f["id"] == "paired-energy_gj")
    bar = paired["data"][0]
    for y, up, down in zip(bar["y"], bar["error_y"]["array"], bar["error_y"]["arrayminus"],
                           strict=True):
        assert y - down >= -0.9 - 1e-3 and y + up <= 0.9 + 1e-3


def test_a_swept_budget_bounds_each_point_by_its_own():
    experiment = finished(trials=2, policies=["easy", "max-upe-ph"],
                          axes=[{"param": "energy.budget_gj", "values": [0.5, 0.9]}])
    lab = kinds.get_kind("parallel-energy")
    budget = {row["point"]: row["setting"]["energy.budget_gj"] for row in experiment.summary}
    assert sorted(budget.values()) == [0.5, 0.9]
    for point, value in budget.items():
        table = presenters.summary_table(lab, experiment, point)
        column = next(c for c in table.columns if c.metric.key == "energy_gj")
        assert column.bounds == Bounds(0.0, pytest.approx(value))
        for row in table.rows:
            cell = row.cells[table.columns.index(column)]
            assert cell.high is None or cell.high <= value + 1e-12
    points = read_csv(Client().get(f"/e/{experiment.public_id}/points.csv"))
    for row in points:
        assert float(row["energy_gj ci_high (GJ)"]) <= budget[int(row["point"])] + 1e-12
    sweep = next(f["figure"] for f in figures.sweep_figures(experiment)
                 if f["id"] == "sweep-energy_gj")
    for trace in sweep["data"]:
        if trace.get("fill") == "toself":  # the band: its points at x = the budget
            assert all(y <= x + 1e-3 for x, y in zip(trace["x"], trace["y"], strict=True))
        elif "customdata" in trace:  # the hover's clipped interval ends
            for x, (point, _low, high, _n) in zip(trace["x"], trace["customdata"],
                                                  strict=True):
                assert x == budget[point] and (high is None or high <= x + 1e-12)


ENERGY = Metric("e", "energy", "GJ", higher_is_better=False, lower=0,
                upper_of=lambda params, summary: params["cap"] if params else None)


def run(value, cap):
    return ({"cap": cap} if cap is not None else None), {"e": value}


def test_a_range_the_scenario_sets_is_the_largest_of_the_runs_and_only_when_all_kept_it():
    assert ENERGY.bounds_for([run(0.4, 0.5), run(0.8, 0.9)]) == Bounds(0, 0.9)
    # A run past its own bound, or without one, leaves the declared range: nothing is cut.
    assert ENERGY.bounds_for([run(0.4, 0.5), run(0.95, 0.9)]) == Bounds(0, None)
    assert ENERGY.bounds_for([run(0.4, 0.5), run(0.4, None)]) == Bounds(0, None)
    assert ENERGY.bounds_for([]) == Bounds(0, None)
    # A run without a value (it failed) neither sets nor lifts it.
    assert ENERGY.bounds_for([run(0.4, 0.5), ({"cap": 0.1}, {})]) == Bounds(0, 0.5)
    # The declared upper end stays when it is the lower.
    declared = Metric("s", "share", UNITLESS, higher_is_better=True, lower=0, upper=1,
                      upper_of=lambda params, summary: 5.0)
    assert declared.bounds_for([({}, {"s": 0.5})]) == Bounds(0, 1)
    per = PerPoint(Bounds(0, None), {1: Bounds(0, 0.5)})
    assert per.at(1) == Bounds(0, 0.5) and per.at(0) == Bounds(0, None)
    assert per.difference().at(1) == Bounds(-0.5, 0.5)


def test_bars_of_runs_under_a_budget_keep_their_error_bars_under_it():
    from simcore.lab import metric_bars

    def data(policy, seed, value):
        return RunData(policy, seed, seed, {"e": value}, {}, {}, params={"cap": 1.0})

    groups = {"a": [data("a", s, v) for s, v in enumerate((0.99, 0.5, 0.98))]}
    figure = metric_bars(groups, ENERGY, "energy")
    trace = figure["data"][0]
    assert trace["y"][0] + trace["error_y"]["array"][0] == pytest.approx(1.0, abs=1e-3)
    assert "clipped" in figure["layout"]["title"]["subtitle"]["text"]  # says it was cut
    unknown = {"a": [RunData("a", s, s, {"e": v}, {}, {}) for s, v in
                     enumerate((0.99, 0.5, 0.98))]}  # no parameters: no bound read
    trace = metric_bars(unknown, ENERGY, "energy")["data"][0]
    assert trace["y"][0] + trace["error_y"]["array"][0] > 1.0


def test_a_figure_preset_s_files_keep_each_budget_point_under_its_budget():
    """ch3-fig29 sweeps the daily budget: its points CSV and charts (``manage.py reproduce``)
    keep each point's energy interval under that point's budget, as the lab's pages do."""
    from hetsite import reproduce
    from simcore.sweep import SweepRun

    figure = kinds.get_figure("ch3-fig29")
    param, values = figure.axes[0]
    runs = []
    for point, budget in enumerate(values):
        for policy in figure.policies:
            for seed, share in ((1000, 0.5), (1001, 1.0)):  # far apart: a wide t interval
                runs.append(SweepRun(point, {param: budget}, policy, seed,
                                     {"energy_gj": budget * share, "energy_budget_gj": budget,
                                      "pct_max_utility": 50.0}))
    rows = reproduce.rows_of(figure, runs)
    assert any(r["energy_gj"]["high"] > values[r["point"]] for r in rows)  # raw: past it
    bounds = reproduce.bounds_of(figure, runs)
    table = list(csv.DictReader(io.StringIO(reproduce.points_csv(figure, rows, bounds))))
    for row in table:
        assert float(row["energy_gj_high"]) <= values[int(row["point"])] + 1e-9
    chart = next(c["figure"] for c in reproduce.figures_of(figure, rows, bounds)
                 if c["id"] == "energy_gj")
    for trace in chart["data"]:
        if trace.get("fill") == "toself":
            assert all(y <= x + 1e-3 for x, y in zip(trace["x"], trace["y"], strict=True))
    assert "clipped" in chart["layout"]["title"]["subtitle"]["text"]
