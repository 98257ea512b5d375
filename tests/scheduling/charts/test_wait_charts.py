"""The wait ECDFs of the kinds with arrival and start times (ch. 2, 3 and 4) against the runs'
own results: the axis says minutes and the curve's maximum is the longest wait in minutes, in
whatever unit the engine keeps its clock; the legend's shares are the summary's counts.

The expected values come from each result's task table and summary, not from the lab's
compact data: the unit of a table is read off its magnitude against the scenario's length."""

import re

import numpy as np
import pytest

from scheduling.engine import preset_scenario, simulate
from scheduling.parallel_energy.lab import LAB as PARALLEL
from scheduling.serial_preemption.lab import LAB as SERIAL
from scheduling.value_of_service.charts import vm_timeline
from scheduling.value_of_service.lab import LAB as VOS
from simcore.lab import RunData
from simcore.result import Result

SEEDS = (1000, 1001)
DRAWN = 1e-4  # charts draw 5 significant digits
LEGEND = re.compile(r" · (\d+)% never started(?:, (\d+)% dropped)?$")


def _column(tasks, name):
    return np.asarray([np.nan if v is None else v for v in tasks[name]], dtype=float)


def _runs(lab, preset, policy, overrides=None):
    """(full result dict, the RunData the lab's compact makes of it) per seed."""
    out = []
    for seed in SEEDS:
        data = simulate(preset_scenario(preset, overrides or {}), policy=policy,
                        seed=seed).to_dict()
        compact = lab.compact(Result.from_dict(data))
        out.append((data, RunData(policy, 0, seed, data["summary"], compact["series"],
                                  compact["dist"], policy)))
    return out


def _wait_chart(lab, groups):
    spec = next(c for c in lab.experiment_charts if c.id == "wait-time")
    return spec.build(groups)


def _legend_shares(name):
    m = LEGEND.search(name)
    assert m, name
    return int(m.group(1)), int(m.group(2) or 0)


def _close_percent(shown, expected):
    """A legend's whole percent is the expected share rounded."""
    assert abs(shown - 100.0 * expected) <= 0.5 + 1e-9, (shown, 100.0 * expected)


def _minutes_per_unit(data):
    """The task table's unit, from its magnitude: the last arrival falls in the run, whose
    length in minutes is its per-minute series' last sample."""
    horizon_min = max(data["series"]["t_min"])
    last = max(data["tasks"]["arrival"])
    for per in (1.0, 1 / 60.0):  # minutes, seconds
        if 0.5 * horizon_min <= last * per <= horizon_min:
            return per
    raise AssertionError(f"arrivals up to {last} in a run of {horizon_min} min")


@pytest.mark.parametrize("policy", ["simple", "simple-dp", "max-vptr"])
def test_vos_wait_ecdf_is_minutes_over_the_tasks_the_summary_counts(policy):
    runs = _runs(VOS, "vos-small", policy)
    fig = _wait_chart(VOS, {policy: [r for _, r in runs]})
    assert fig["layout"]["xaxis"]["title"]["text"] == "wait (min)"
    (trace,) = fig["data"]
    longest, never, dropped, total = [], [], [], []
    for data, _ in runs:
        assert _minutes_per_unit(data) == 1.0
        tasks, (w0, w1) = data["tasks"], data["extra"]["window_min"]
        arrival, start = _column(tasks, "arrival"), _column(tasks, "start")
        status = np.asarray(tasks["status"])
        counted = (arrival >= w0) & (arrival < w1)
        # Started: committed ("started or reserved") before the run's end.
        started = counted & (status == 1) & (start < w1)
        longest.append(float(np.max(start[started] - arrival[started])))
        s = data["summary"]
        never.append(s["tasks_never_started"])
        dropped.append(s["tasks_dropped"])
        total.append(s["tasks_total"])
        assert int(counted.sum()) == s["tasks_total"]
        assert int(started.sum()) + s["tasks_never_started"] + s["tasks_dropped"] == s[
            "tasks_total"]
    assert max(trace["x"]) == pytest.approx(np.mean(longest), rel=DRAWN)
    shown_never, shown_dropped = _legend_shares(trace["name"])
    _close_percent(shown_never, np.mean(never) / np.mean(total))
    _close_percent(shown_dropped, np.mean(dropped) / np.mean(total))
    # The curve ends at the share that started.
    assert trace["y"][-1] == pytest.approx(
        1 - (np.mean(never) + np.mean(dropped)) / np.mean(total), abs=1e-4)
    assert "min:" in trace["hovertemplate"]


def test_simple_books_past_the_end_and_those_tasks_are_not_waits():
    """What the audit saw: Simple's reservations past the end plotted as waits of days."""
    runs = _runs(VOS, "vos-small", "simple")
    for data, run in runs:
        w1 = data["extra"]["window_min"][1]
        start = _column(data["tasks"], "start")
        assert np.sum(start >= w1) > 0 and data["summary"]["tasks_never_started"] > 0
        assert run.dist["wait_min"]["q"][-1] < w1


@pytest.mark.parametrize("lab,preset,policy", [
    (SERIAL, "ch4-small", "fcfs"), (SERIAL, "ch4-small", "max-util"),
    (PARALLEL, "small", "easy"), (PARALLEL, "small", "max-upe-ph")])
def test_wait_ecdf_maximum_is_the_longest_wait_in_minutes(lab, preset, policy):
    runs = _runs(lab, preset, policy)
    fig = _wait_chart(lab, {policy: [r for _, r in runs]})
    assert fig["layout"]["xaxis"]["title"]["text"] == "wait (min)"
    (trace,) = fig["data"]
    longest, waiting, dropped, total = [], [], [], []
    for data, _ in runs:
        per = _minutes_per_unit(data)
        tasks = data["tasks"]
        arrival, start = _column(tasks, "arrival"), _column(tasks, "start")
        ran = np.isfinite(start)
        longest.append(float(np.max(start[ran] - arrival[ran])) * per)
        words = data["extra"].get("status_codes") or {}
        gone = np.asarray([words.get(str(s), s) == "dropped" for s in tasks["status"]])
        dropped.append(int(np.sum(gone & ~ran)))
        waiting.append(int(np.sum(~gone & ~ran)))
        total.append(len(arrival))
    assert max(trace["x"]) == pytest.approx(np.mean(longest), rel=DRAWN)
    shown_never, shown_dropped = _legend_shares(trace["name"])
    _close_percent(shown_never, np.mean(waiting) / np.mean(total))
    _close_percent(shown_dropped, np.mean(dropped) / np.mean(total))


def test_ch3_never_started_is_its_summary_s_unscheduled_tasks():
    runs = _runs(PARALLEL, "small", "max-upe-ph")
    (trace,) = _wait_chart(PARALLEL, {"max-upe-ph": [r for _, r in runs]})["data"]
    shown_never, shown_dropped = _legend_shares(trace["name"])
    summaries = [data["summary"] for data, _ in runs]
    total = np.mean([s["tasks_total"] for s in summaries])
    _close_percent(shown_never, np.mean([s["tasks_unscheduled"] for s in summaries]) / total)
    _close_percent(shown_dropped, np.mean([s["tasks_dropped"] for s in summaries]) / total)


def test_vm_timeline_draws_only_the_tasks_that_started_in_the_run():
    data, _ = _runs(VOS, "vos-small", "simple")[0]
    fig = vm_timeline(data)
    tasks, (_, w1) = data["tasks"], data["extra"]["window_min"]
    start, end = _column(tasks, "start"), _column(tasks, "end")
    started = (np.asarray(tasks["status"]) == 1) & (start < w1)
    (bars,) = fig["data"]
    assert {i for (i,) in bars["customdata"]} == set(np.flatnonzero(started).tolist())
    last_end_h = float(np.max(end[started])) / 60.0
    drawn_end = max(b + x for b, x in zip(bars["base"], bars["x"], strict=True))
    assert drawn_end == pytest.approx(last_end_h, rel=DRAWN)
    booked = int(np.sum((np.asarray(tasks["status"]) == 1) & (start >= w1)))
    assert booked > 0
    assert f"{booked:,} reservations booked past the run's end not drawn" in (
        fig["layout"]["title"]["subtitle"]["text"])
