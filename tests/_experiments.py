"""Helpers the lab's chart and export tests share (loaded with ``runpy.run_path``): an experiment
run to the end in this process, a run's stored result, a task column as floats, and what a
value-of-service wait chart must show by its runs' own results."""

from __future__ import annotations

import json

import numpy as np

from hetsite import selectors
from hetsite.models import Status
from hetsite.services import submission


def make(kind, preset, policies, trials=2, params=None):
    sub = submission.validate_submission(kind=kind, preset=preset, policies=list(policies),
                                         trials=trials, params=params or {})
    experiment = submission.create_experiment(sub)
    experiment.refresh_from_db()
    assert experiment.status == Status.DONE
    return experiment


def result_of(run) -> dict:
    return json.loads(selectors.result_json(
        selectors.run_by_public_id(run.public_id, with_result=True)))


def column(tasks, name):
    return np.asarray([np.nan if v is None else v for v in tasks[name]], dtype=float)


def vos_expected(runs):
    """Per run of a VoS policy: the longest wait (min) of the tasks the summary counts that
    started in the run, and its never-started, dropped and total counts."""
    longest, never, dropped, total = [], [], [], []
    for run in runs:
        result = result_of(run)
        tasks, (w0, w1) = result["tasks"], result["extra"]["window_min"]
        arrival, start = column(tasks, "arrival"), column(tasks, "start")
        counted = (arrival >= w0) & (arrival < w1)
        started = counted & (np.asarray(tasks["status"]) == 1) & (start < w1)
        longest.append(float(np.max(start[started] - arrival[started])))
        never.append(run.summary["tasks_never_started"])
        dropped.append(run.summary["tasks_dropped"])
        total.append(run.summary["tasks_total"])
    return np.mean(longest), np.mean(never) / np.mean(total), np.mean(dropped) / np.mean(total)
