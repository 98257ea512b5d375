"""Times as the lab shows them, against the runs' stored results (an outside audit): the wait
ECDF of a stored experiment is in minutes and counts what the run's summary counts; the tasks
exports head every time column with the unit its values are in; runs stored before the fix
get their wait data rebuilt by migration 0012.

Expected values come from each run's stored full result (its task table, summary and series),
never from the lab's own chart data; the unit a column's values are in is read off their
magnitude against the run's length."""

import gzip
import io
import re
import runpy
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from django.core.management import call_command
from django.test import Client

from hetsite import figures, kinds
from hetsite.models import Run
from simcore.compact import quantiles
from simcore.result import Result

# (shared with the other chart and export tests)
_shared = runpy.run_path(str(Path(__file__).parents[1] / "_experiments.py"))
make, result_of, column = _shared["make"], _shared["result_of"], _shared["column"]
vos_expected = _shared["vos_expected"]

pytestmark = pytest.mark.django_db(transaction=True)

LEGEND = re.compile(r"^(?P<policy>[\w+-]+) · (\d+)% never started(?:, (\d+)% dropped)?$")
DRAWN = 1e-4  # charts draw 5 significant digits
MINUTES_PER = {"s": 1 / 60.0, "min": 1.0, "h": 60.0}
TIME_COLUMNS = ("arrival", "submit", "start", "end", "run", "reservation", "wait", "estimate")








def legend(trace):
    m = LEGEND.match(trace["name"])
    assert m, trace["name"]
    return int(m.group(2)), int(m.group(3) or 0)


def close_percent(shown, expected):
    assert abs(shown - 100.0 * expected) <= 0.5 + 1e-9, (shown, 100.0 * expected)


def test_the_vos_wait_chart_of_a_stored_experiment_agrees_with_its_summaries():
    experiment = make("value-of-service", "vos-small", ("simple", "max-vptr"))
    fig = figures.experiment_figure(experiment, "wait-time")
    assert fig["layout"]["xaxis"]["title"]["text"] == "wait (min)"
    traces = {t["legendgroup"]: t for t in fig["data"]}
    assert set(traces) == {"simple", "max-vptr"}
    for policy, trace in traces.items():
        runs = experiment.runs.filter(policy=policy)
        for run in runs:
            result = result_of(run)
            # The engine's clock is minutes: its arrivals fall inside the run's minutes.
            assert max(result["tasks"]["arrival"]) <= max(result["series"]["t_min"])
        longest, never, dropped = vos_expected(runs)
        assert max(trace["x"]) == pytest.approx(longest, rel=DRAWN), policy
        shown_never, shown_dropped = legend(trace)
        close_percent(shown_never, never)
        close_percent(shown_dropped, dropped)
    # The audit's case: Simple books most tasks past the end; they never started.
    simple = experiment.runs.filter(policy="simple")
    assert all(r.summary["tasks_never_started"] > r.summary["tasks_total"] / 4 for r in simple)


def frames(run):
    client = Client()
    out = []
    for fmt in ("csv", "parquet"):
        response = client.get(f"/r/{run.public_id}/tasks.{fmt}")
        assert response.status_code == 200
        data = io.BytesIO(response.getvalue())
        out.append(pd.read_csv(data) if fmt == "csv" else pd.read_parquet(data))
    return out


def headed(frame, name):
    """The header of a task column and the unit in it ("" when it has none); the task's
    records come after the run's id, policy, trial and seed."""
    records = list(frame.columns)[list(frame.columns).index("seed") + 1:]
    found = [c for c in records if c == name or c.startswith(f"{name} (")]
    assert len(found) == 1, (name, list(frame.columns))
    m = re.fullmatch(rf"{re.escape(name)} \((.+)\)", found[0])
    return found[0], m.group(1) if m else ""


KINDS = [("value-of-service", "vos-small", "simple", None),
         ("serial-preemption", "ch4-small", "fcfs", None),
         ("parallel-energy", "small", "easy", None),
         ("grid", "grid-small", "fcfs", None),
         ("swf-replay", "swf-small", "easy", None),
         ("swf-preemptive", "pbb-small", "duration-remaining", None),
         ("uav", "small-baseline", "random", {"horizon_h": 3.0})]


@pytest.mark.parametrize("kind,preset,policy,params", KINDS, ids=[k[0] for k in KINDS])
def test_the_tasks_exports_head_each_time_with_the_unit_of_its_values(kind, preset, policy,
                                                                      params):
    experiment = make(kind, preset, (policy,), trials=1, params=params)
    run = experiment.runs.get()
    result = result_of(run)
    tasks = result["tasks"]
    horizon_min = max(result["series"]["t_min"])
    for frame in frames(run):
        times = [c for c in TIME_COLUMNS if c in tasks]
        assert {"start", "end"} <= set(times)
        units = {}
        exported = kinds.get_kind(kind).task_names  # (swf-preemptive's run time: "runtime")
        for name in times:
            header, unit = headed(frame, exported.get(name, name))
            assert unit in MINUTES_PER, f"{kind}: {header} has no time unit"
            units[name] = unit
            stored = column(tasks, name)
            assert list(frame[header]) == pytest.approx(list(stored), nan_ok=True)
        assert len(set(units.values())) == 1, units  # one clock
        # The magnitude says which: the last arrival (or start) in minutes falls in the run,
        # which a unit off by 60 either way would put far outside it.
        first = next(c for c in ("arrival", "submit", "start") if c in tasks)
        last = np.nanmax(column(tasks, first)) * MINUTES_PER[units[first]]
        assert horizon_min / 20 <= last <= horizon_min * 1.0001, (kind, first, last,
                                                                    horizon_min)
        if kind == "swf-preemptive":  # the completing run's length, in the same seconds
            assert list(frame["runtime (s)"]) == pytest.approx(
                list(column(tasks, "end") - column(tasks, "start")))


def test_the_vos_tasks_export_counts_as_the_summary_does():
    experiment = make("value-of-service", "vos-small", ("simple", "max-vptr"), trials=1)
    for run in experiment.runs.all():
        result = result_of(run)
        w1 = result["extra"]["window_min"][1]
        s = run.summary
        for frame in frames(run):
            inside = frame[frame["arrived_in_window"].astype(bool)]
            assert len(inside) == s["tasks_total"]
            status = inside["status"]
            never = status.isin(["never started", "reserved past the end, never started"])
            assert int(never.sum()) == s["tasks_never_started"], run.policy
            assert int((status == "dropped").sum()) == s["tasks_dropped"]
            started = frame[frame["status"] == "started"]
            booked = frame[frame["status"] == "reserved past the end, never started"]
            assert (started["start (min)"] < w1).all()
            assert (booked["start (min)"] >= w1).all()
            if run.policy == "simple":
                assert len(booked) > 0
            assert list(frame.columns).index("arrived_in_window") == (
                list(frame.columns).index("arrival (min)") + 1)


def old_wait_quantiles(result: dict) -> dict:
    """What the lab stored before migration 0012: every start a wait, divided by 60."""
    tasks = result["tasks"]
    waits = quantiles([(s - a) / 60.0 for a, s in zip(tasks["arrival"], tasks["start"],
                                                       strict=True) if s is not None])
    waits["total"] = len(tasks["arrival"])
    return waits


def test_migration_0012_rebuilds_the_wait_data_of_stored_runs():
    vos = make("value-of-service", "vos-small", ("simple",), trials=1)
    ch4 = make("serial-preemption", "ch4-small", ("fcfs",), trials=1)
    runs = [vos.runs.get(), ch4.runs.get()]
    fresh = {}
    for run in runs:
        result = result_of(run)
        fresh[run.pk] = kinds.get_kind(run.experiment.kind).compact(
            Result.from_dict(result))["dist"]["wait_min"]
        Run.objects.filter(pk=run.pk).update(
            dist={**run.dist, "wait_min": old_wait_quantiles(result), "other": [1, 2]})
        longest = float(np.nanmax(column(result["tasks"], "start")
                                  - column(result["tasks"], "arrival")))
        # Stored the old way, the chart's maximum was the longest start in hours.
        assert Run.objects.get(pk=run.pk).dist["wait_min"]["q"][-1] == pytest.approx(
            longest / 60.0, rel=1e-5)
    call_command("migrate", "hetsite", "0011", verbosity=0)
    call_command("migrate", "hetsite", verbosity=0)
    for run in runs:
        dist = Run.objects.get(pk=run.pk).dist
        assert dist["wait_min"] == fresh[run.pk]
        assert dist["other"] == [1, 2]  # the rest of the chart data is left as it was
    ch4_dist = Run.objects.get(pk=runs[1].pk).dist["wait_min"]
    ch4_result = result_of(runs[1])
    waits = column(ch4_result["tasks"], "start") - column(ch4_result["tasks"], "arrival")
    assert ch4_dist["q"][-1] == pytest.approx(float(np.nanmax(waits)), rel=1e-5)
    assert gzip.decompress(bytes(Run.objects.get(pk=runs[0].pk).result_gz))  # untouched
