"""CSV exports shared by the pages and the admin."""

from __future__ import annotations

import csv
import json

from django.http import HttpResponse

from . import selectors


def _csv_response(filename: str):
    response = HttpResponse(content_type="text/csv")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response, csv.writer(response)


def runs_csv(runs, filename: str) -> HttpResponse:
    """One row per run: ids, policy, trial, seed, status, error and every scalar metric."""
    runs = list(runs)
    keys = sorted({k for r in runs for k, v in r.summary.items()
                   if isinstance(v, (int, float, str)) or v is None})
    response, writer = _csv_response(filename)
    writer.writerow(["experiment", "run", "policy", "trial", "seed", "status", "error", *keys])
    for r in runs:
        writer.writerow([r.experiment.public_id, r.public_id, r.policy, r.trial, r.seed,
                         r.status, r.error, *[r.summary.get(k, "") for k in keys]])
    return response


def tasks_csv(run) -> HttpResponse:
    """The per-task (or per-surveil) records of a finished run; lists joined by spaces."""
    tasks = json.loads(selectors.result_json(run)).get("tasks", {})
    columns = list(tasks)
    response, writer = _csv_response(f"tasks-{run.public_id}.csv")
    writer.writerow(columns)
    for row in zip(*(tasks[c] for c in columns), strict=False):
        writer.writerow([" ".join(map(str, v)) if isinstance(v, list) else
                         ("" if v is None else v) for v in row])
    return response


def result_json(run, attachment: bool) -> HttpResponse:
    """The full stored result of a finished run as a JSON download or inline document."""
    response = HttpResponse(selectors.result_json(run), content_type="application/json")
    kind = "attachment" if attachment else "inline"
    response["Content-Disposition"] = f'{kind}; filename="run-{run.public_id}.json"'
    return response


def points_csv(experiment) -> HttpResponse:
    """One row per (sweep point, policy): the point's setting, finished runs, and the mean and
    95% CI bounds of every headline metric (units in the header)."""
    from . import kinds

    lab = kinds.get_kind(experiment.kind)
    metrics = lab.metrics if lab else []
    params = [a["param"] for a in experiment.axes]
    response, writer = _csv_response(f"points-{experiment.public_id}.csv")
    unit = {m.key: f" ({m.unit})" if m.unit else "" for m in metrics}
    writer.writerow(["point", *params, "policy", "runs",
                     *[f"{m.key} {part}{unit[m.key]}" for m in metrics
                       for part in ("mean", "ci_low", "ci_high")]])
    for row in experiment.summary:
        cells = []
        for m in metrics:
            ci = row.get(m.key) or {}
            cells += ["" if ci.get(k) is None else ci[k] for k in ("mean", "low", "high")]
        writer.writerow([row["point"], *[row["setting"].get(p, "") for p in params],
                         row["policy"], row["runs"], *cells])
    return response
