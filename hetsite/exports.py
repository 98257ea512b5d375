"""CSV, LaTeX and JSON exports shared by the pages and the admin.

Column headers carry their unit ("wait_mean (s)"), status codes are written as words, and
columns come in natural order (priority_1, priority_2, ..., priority_10).
"""

from __future__ import annotations

import csv
import re

from django.http import HttpResponse, StreamingHttpResponse
from django.utils.cache import patch_vary_headers

from simcore.bounds import interval
from simcore.sweep import axis_value

from . import kinds, presenters, result_parts

# Units read off the name's suffix or prefix when the kind declares none for a column.
SUFFIX_UNITS = [("_pct", "%"), ("_s", "s"), ("_min", "min"), ("_h", "h"), ("_gj", "GJ"),
                ("_j", "J"), ("_w", "W"), ("_km", "km")]
PREFIX_UNITS = [("pct_", "%")]


def natural_key(name: str):
    """Sort key that puts priority_2 before priority_10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def unit_of(name: str, declared: dict[str, str] | None = None) -> str:
    if declared and name in declared:
        return declared[name]
    for prefix, unit in PREFIX_UNITS:
        if name.startswith(prefix):
            return unit
    for suffix, unit in SUFFIX_UNITS:
        if name.endswith(suffix):
            return unit
    return ""


def header(name: str, declared: dict[str, str] | None = None, shown: str | None = None) -> str:
    """A column's export header: its name (or ``shown``, the name it is exported under) with
    the unit of ``name`` (declared, or read from its suffix)."""
    unit = unit_of(name, declared)
    shown = shown or name
    return f"{shown} ({unit})" if unit else shown


def _csv_response(filename: str):
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response, csv.writer(response)


def swept(axes) -> list[str]:
    """The dotted parameters a sweep sets (each part of a linked ``a+b`` axis)."""
    return [name for axis in axes or [] for name in axis["param"].split("+")]


def _setting_cells(setting: dict, params: list[str]) -> list:
    return ["" if setting.get(p) is None else setting.get(p) for p in params]


def _point_setting(experiment, point: int) -> dict:
    return next((row["setting"] for row in experiment.summary if row.get("point") == point), {})


def _summary_name(experiment, point: int, ext: str) -> str:
    at = f"-point{point + 1}" if experiment.axes else ""
    return f"summary-{experiment.public_id}{at}.{ext}"


def summary_csv(experiment, table, point: int = 0) -> HttpResponse:
    """The summary table (presenters.summary_table) of one point as numbers in the shown
    units: per metric the mean, the 95% CI half-width, the interval's ends (clipped to the
    metric's range, as the scenario sets it), whether they were clipped and the cell's rank;
    a sweep's rows carry the point and the swept parameters' values."""
    response, writer = _csv_response(_summary_name(experiment, point, "csv"))
    params = swept(experiment.axes)
    setting = _point_setting(experiment, point)
    head = ["point", *params] if experiment.axes else []
    head += ["policy", "policy label", "runs"]
    for c in table.columns:
        unit = f" ({c.unit})" if c.unit else ""
        head += [f"{c.metric.label} mean{unit}", f"{c.metric.label} CI half-width{unit}",
                 f"{c.metric.label} CI low{unit}", f"{c.metric.label} CI high{unit}",
                 f"{c.metric.label} CI clipped", f"{c.metric.label} rank"]
    writer.writerow(head)
    for row in table.rows:
        out = [point, *_setting_cells(setting, params)] if experiment.axes else []
        out += [row.policy, row.label, row.runs]
        for cell in row.cells:
            out += [_num(cell.mean), _num(cell.half_width), _num(cell.low), _num(cell.high),
                    "" if cell.low is None else "yes" if cell.clipped else "no", cell.rank]
        writer.writerow(out)
    return response


def _num(v) -> str:
    return "" if v is None else f"{v:.10g}"


LATEX_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
                 "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                 "\\": r"\textbackslash{}", "±": r"$\pm$", "–": "--", "…": r"\dots{}"}


def latex_escape(text: str) -> str:
    return "".join(LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def summary_latex(experiment, table, point: int = 0) -> HttpResponse:
    """The summary table of one point as a LaTeX ``tabular`` (booktabs), best values in bold,
    values the trials cannot tell from the best marked; a sweep's point named in a comment."""
    cols = "l" + "r" * (1 + len(table.columns))
    lines = [f"% {latex_escape(experiment.name)}: mean $\\pm$ 95% CI half-width over trials",
             *([f"% point {point} (from 0): " + ", ".join(
                 f"{latex_escape(k)} = {latex_escape(v)}"
                 for k, v in _point_setting(experiment, point).items())]
               if experiment.axes else []),
             f"\\begin{{tabular}}{{{cols}}}", r"\toprule",
             " & ".join(["policy", "runs", *[latex_escape(c.header) for c in table.columns]])
             + r" \\", r"\midrule"]
    for row in table.rows:
        cells = []
        for cell in row.cells:
            text = latex_escape(cell.text) + ("*" if cell.clipped else "")
            if cell.rank == "indistinguishable":
                text += r"$^{\approx}$"
            cells.append(f"\\textbf{{{text}}}" if cell.best else text)
        lines.append(" & ".join([latex_escape(row.policy), str(row.runs), *cells]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if table.clipped:
        lines.append("% * the t interval reaches past the metric's range at this trial count")
    if table.indistinguishable:
        lines.append("% approx: the paired 95% interval to the best includes 0 (no best)")
    response = HttpResponse("\n".join(lines) + "\n", content_type="text/x-tex; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="{_summary_name(experiment, point, "tex")}"')
    return response


def result_json(run, attachment: bool, request=None) -> StreamingHttpResponse:
    """The full stored result of a finished run as a JSON download or inline document,
    streamed as it is decompressed (``result_parts.chunks``: never the whole JSON in memory);
    to a client that takes gzip (``request``'s Accept-Encoding), the stored gzip itself."""
    if request is not None and run.result_gz and accepts_gzip(request):
        response = StreamingHttpResponse(result_parts.stored_chunks(run.result_gz),
                                         content_type="application/json")
        response["Content-Encoding"] = "gzip"
    else:
        response = StreamingHttpResponse(result_parts.chunks(run.result_gz),
                                         content_type="application/json")
    patch_vary_headers(response, ["Accept-Encoding"])
    kind = "attachment" if attachment else "inline"
    response["Content-Disposition"] = f'{kind}; filename="run-{run.public_id}.json"'
    return response


def accepts_gzip(request) -> bool:
    """Whether the request's Accept-Encoding takes gzip: named (or ``*`` with gzip not
    refused) with a quality above 0 (RFC 9110 section 12.5.3)."""
    qualities = {}
    for item in request.headers.get("Accept-Encoding", "").split(","):
        coding, *params = (part.strip() for part in item.split(";"))
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if coding:
            qualities[coding.lower()] = quality
    return qualities.get("gzip", qualities.get("x-gzip", qualities.get("*", 0.0))) > 0


def points_csv(experiment, point: int | None = None) -> HttpResponse:
    """One row per (sweep point, policy), of every point or of ``point`` only: the point and
    the swept parameters' values, finished runs, and the mean and 95% CI ends of every headline
    metric (clipped to its range, units in the header)."""
    kind_lab = kinds.get_kind(experiment.kind)
    metrics = kind_lab.metrics if kind_lab else []
    params = [a["param"] for a in experiment.axes]
    response, writer = _csv_response(f"points-{experiment.public_id}.csv")
    unit = {m.key: f" ({m.unit})" if m.unit else "" for m in metrics}
    writer.writerow(["point", *params, "policy", "runs",
                     *[f"{m.key} {part}{unit[m.key]}" for m in metrics
                       for part in ("mean", "ci_low", "ci_high")]])
    bounds = presenters.experiment_bounds(kind_lab, experiment)
    for row in experiment.summary:
        if point is not None and row["point"] != point:
            continue
        cells = []
        for m in metrics:
            ci = interval(row.get(m.key), bounds[m.key].at(row["point"]))
            cells += ["" if v is None else v for v in (ci.mean, ci.low, ci.high)]
        setting = [axis_value(row["setting"], p) for p in params]
        writer.writerow([row["point"], *["" if v is None else v for v in setting],
                         row["policy"], row["runs"], *cells])
    return response
