"""What a scenario kind declares about itself for the lab: its metrics, charts, limits, inputs and
form hooks (:class:`LabKind`), and the registry the lab reads them from.

Everything here is plain Python, so a kind's lab face (``<kind>/lab.py``) imports the core only,
never the web app: charts are pure functions from run data to Plotly figure dicts, limits are
functions of the scenario's parameters, file inputs say what they accept and the site decides
how to show, check and store them. The web app (``hetsite``) renders any kind from these
declarations and supplies what only a site has (its uploads) through :func:`use_uploads`.
"""

from __future__ import annotations

import importlib.metadata
import logging
import math
import threading
import tomllib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import IO, Any, Protocol

from .bounds import Bounds
from .errors import ScenarioError
from .inputs import UploadStore


class _Unitless(str):
    """The unit of a count or a ratio: it reads as "" but says it was declared, not forgotten."""


UNITLESS = _Unitless()


@dataclass(frozen=True)
class Metric:
    """A headline metric, declared once with everything every table, chart and export needs.

    ``unit`` is the unit of the stored value, ``UNITLESS`` for a count or a ratio (never left
    empty); ``scale`` turns it into the shown one (utilization 0-1 shown in %: ``scale=100,
    shown_unit="%"``); a unit of ``s`` is shown in minutes, hours or days as the values' size
    asks. ``higher_is_better`` is required: True or False where the kind's paper counts one side
    better, None for a quantity with no better side (the energy of the tasks that completed
    grows with the work done; a diagnostic count such as tasks dropped), never ranked.
    ``lower``/``upper`` bound the metric's range (stored units): every interval of it, in
    tables, bars, bands and hovers, is clipped there (simcore.bounds), and says so.
    ``upper_of(params, summary)``, where the scenario bounds the metric (the energy a run may
    use is what its budget allows), gives one run's own upper bound from its parameters and
    summary, or None where none applies: :meth:`bounds_for` brings the upper end down to it.
    ``missing`` says, where a run can have no value of the metric, when it has one: a page
    whose runs have none draws no chart of it and says why in these words."""

    key: str
    label: str
    unit: str
    _: KW_ONLY
    higher_is_better: bool | None
    digits: int = 2
    scale: float = 1.0
    shown_unit: str | None = None
    lower: float | None = None
    upper: float | None = None
    upper_of: Callable[[dict, dict], float | None] | None = field(default=None, compare=False)
    missing: str = ""

    def __post_init__(self):
        if not (self.higher_is_better is None or isinstance(self.higher_is_better, bool)):
            raise ValueError(f"metric {self.key!r}: higher_is_better must be True, False or "
                             f"None, got {self.higher_is_better!r}")
        if not self.unit and self.unit is not UNITLESS:
            raise ValueError(f"metric {self.key!r}: declare its unit, or UNITLESS for a count "
                             "or a ratio")

    @property
    def display_unit(self) -> str:
        return self.unit if self.shown_unit is None else self.shown_unit

    @property
    def bounds(self) -> Bounds:
        return Bounds(self.lower, self.upper)

    def bounds_for(self, runs) -> Bounds:
        """The metric's range over some runs, ``(params, summary)`` pairs of finished runs (the
        runs of one table, bar chart or sweep point): the declared range, its upper end brought
        down to the largest of the runs' own bounds (``upper_of``; a mean of runs under
        different budgets stays under the largest) when every run that has a value has one and
        kept it. A run without one, or past its own (which the engine's invariants forbid),
        leaves the declared range, so that nothing a run did is cut away."""
        declared = self.bounds
        if self.upper_of is None:
            return declared
        caps = []
        for params, summary in runs:
            value = (summary or {}).get(self.key)
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                continue
            cap = self.upper_of(params, summary) if params is not None else None
            if cap is None or not math.isfinite(cap) or value > cap + 1e-9 * max(1.0, abs(cap)):
                return declared
            caps.append(float(cap))
        if not caps:
            return declared
        upper = max(caps) if declared.upper is None else min(declared.upper, max(caps))
        return Bounds(declared.lower, upper)


# Durations are shown in the largest unit that keeps the column's values >= about 2.
DURATION_UNITS = [("days", 86400.0, 3 * 86400.0), ("h", 3600.0, 2 * 3600.0),
                  ("min", 60.0, 120.0), ("s", 1.0, 0.0)]
TO_SECONDS = {"s": 1.0, "min": 60.0, "h": 3600.0}


@dataclass
class Column:
    """A metric as a table column or a chart axis shows it: in which unit, at how many digits."""

    metric: Metric
    unit: str  # shown unit
    factor: float  # stored value x factor = shown value
    digits: int
    # The range of the runs shown (stored units; Metric.bounds_for), None: the declared one.
    range: Bounds | None = None

    @property
    def header(self) -> str:
        return f"{self.metric.label} ({self.unit})" if self.unit else self.metric.label

    @property
    def bounds(self) -> Bounds:
        """The metric's range in the shown unit."""
        return (self.metric.bounds if self.range is None else self.range).scaled(self.factor)


def column_for(metric: Metric, means: list[float], bounds: Bounds | None = None) -> Column:
    """How a column (or an axis) shows ``metric`` for values of about ``means``; ``bounds``:
    the range of the runs shown (Metric.bounds_for), when it is not the declared one."""
    seconds = TO_SECONDS.get(metric.unit)
    if seconds is not None and metric.shown_unit is None:
        biggest = max((abs(m) * seconds for m in means), default=0.0)
        for unit, size, threshold in DURATION_UNITS:
            if biggest >= threshold:
                return Column(metric, unit, seconds / size, 0 if unit == "s" else 1, bounds)
    return Column(metric, metric.display_unit, metric.scale, metric.digits, bounds)


@dataclass(frozen=True)
class RunData:
    """The compact, chart-sized data of one finished run."""

    policy: str
    trial: int
    seed: int
    summary: dict
    series: dict
    dist: dict
    label: str = ""
    color: str = ""  # the policy's colour (LabKind.policy_color), the same on every chart
    # The parameters the run ran with (a sweep point's over the scenario's), where known: what
    # a bound the scenario sets is read from (Metric.upper_of).
    params: dict | None = field(default=None, compare=False)


@dataclass(frozen=True)
class ChartSpec:
    """Experiment charts build from {policy label: [RunData, ...]} in display order; run charts
    from one full engine Result."""

    id: str
    title: str
    build: Callable[..., dict]
    # Split into one panel per policy in side-by-side views (bar charts already compare).
    facetable: bool = True
    # Shown only when this returns True for the experiment's groups (e.g. metaheuristic runs).
    applies: Callable[[dict[str, list[RunData]]], bool] | None = None
    # A run chart: the top-level parts of the Result it reads ("tasks", "events", ...); only
    # those are read from the stored result, the others left empty (None: all of it). Its
    # column-wise parts (tasks, events, series) then come with each column of numbers as a
    # numpy array (float, NaN for a missing value), the others as lists.
    reads: tuple[str, ...] | None = None

    def shows(self, groups: dict[str, list[RunData]]) -> bool:
        """Whether the chart is drawn for these groups: it applies, and a chart of one
        headline metric (MetricBars) has a run with a value of it (an empty chart is left out,
        and the page says why: hetsite.figures.not_drawn)."""
        if self.applies is not None and not self.applies(groups):
            return False
        has_values = getattr(self.build, "has_values", None)
        return has_values is None or has_values(groups)


def metric_bars(groups: dict, metric: Metric, title: str) -> dict:
    """Bars of a headline metric in the summary table's unit (hours or days rather than
    seconds), each CI kept inside the metric's range."""
    from . import charts
    from .stats import mean_ci

    means = [m for runs in groups.values() for m in
             [mean_ci([r.summary.get(metric.key) for r in runs
                       if isinstance(r.summary.get(metric.key), (int, float))])["mean"]]
             if m is not None]
    bounds = metric.bounds_for((r.params, r.summary) for runs in groups.values() for r in runs)
    column = column_for(metric, means, bounds)
    return charts.metric_bars(groups, metric.key, title, column.unit, bounds=bounds,
                              scale=column.factor)


@dataclass
class MetricBars:
    """A chart of one headline metric as bars (``metric_bars``). Registering the kind binds it
    to the kind's own declaration of ``key`` (unit, scale, the range its CI is kept in), never
    to another kind's metric of the same name."""

    key: str
    title: str
    metric: Metric | None = None

    def bind(self, lab: LabKind) -> None:
        self.metric = lab.metric(self.key)

    def has_values(self, groups: dict) -> bool:
        """Whether any run has a value of the metric (with none, no bar has a height)."""
        return any(isinstance(r.summary.get(self.key), (int, float))
                   and not isinstance(r.summary.get(self.key), bool)
                   for runs in groups.values() for r in runs)

    def __call__(self, groups: dict) -> dict:
        return metric_bars(groups, self.metric, self.title)


@dataclass(frozen=True)
class Limit:
    """A site limit on scenario size: ``measure(params)`` must not exceed the site's value for
    ``name``, which is ``default`` unless the site overrides it (a site sets its own value per
    name; kinds that share a name share the limit, so they declare one default). ``field`` is
    the parameter the error names. When the measure is that parameter alone times
    ``field_scale``, the form bounds the field by the limit too (cap / field_scale)."""

    name: str
    field: str
    measure: Callable[[dict], float]
    what: str
    field_scale: float | None = None
    _: KW_ONLY
    default: int

    def field_max(self, cap: float) -> float | None:
        return None if self.field_scale is None else cap / self.field_scale


@dataclass(frozen=True)
class Condition:
    """Parameters that apply only when another one has one of ``values`` (e.g. the trace
    fields only under ``workload.source = trace``): hidden in the form, folded on the result
    page. ``params`` are dotted names or group prefixes ending in a dot."""

    params: tuple[str, ...]
    control: str
    values: tuple

    def covers(self, name: str) -> bool:
        return name != self.control and any(
            name == p or (p.endswith(".") and name.startswith(p)) for p in self.params)


@dataclass(frozen=True)
class CheckedFile:
    """What a file input's check found in an upload: ``records``, what the kind's limits and
    prices count in it (a trace's jobs, a list's run times), and ``suffix``, the file type a
    store that keeps uploads as files names it with (".swf", ".txt")."""

    records: int
    suffix: str = ""


# ``open()`` gives the uploaded file as a binary stream, as uploaded (gzip included), each call
# from its start; reading stops with an exception of the site's once the site's CPU budget for
# one upload is spent.
Opener = Callable[[], AbstractContextManager[IO[bytes]]]


@dataclass(frozen=True)
class FileInput:
    """A parameter that names a file: an entry of a library the kind ships, or the user's own
    upload (referred to as ``upload:<sha256>``). The site shows the library as a choice beside
    an upload field, has ``check`` read an upload and stores it as an opaque blob tagged with
    ``accepts`` (a short name of the format: ``"swf"``, ``"runtimes"``).

    ``check(open, max_bytes=..., max_records=...)`` reads the file through ``open`` (at most
    ``max_bytes`` once decompressed, at most ``max_records`` records: the site's limits for
    one upload) and returns a :class:`CheckedFile`; a bad file raises ScenarioError whose field
    may end in ``:<line>`` or ``:<line>:<column>`` (the site shows that part beside the upload
    field), and data past ``max_bytes`` raises ``simcore.errors.DecodedTooLarge``. Without a
    choice, ``default`` is used, or the form says ``required``. An upload also sets the
    parameters in ``on_upload``."""

    param: str
    accepts: str
    library: Callable[[], list[tuple[str, str]]]  # [(value, label), ...]
    upload_field: str
    upload_label: str
    upload_help: str
    choice_help: str = "or upload your own file below"
    uploaded_label: str = "uploaded file"
    default: str | None = None
    required: str | None = None
    on_upload: tuple[tuple[str, Any], ...] = ()
    _: KW_ONLY
    check: Callable[..., CheckedFile]


class FormHook(Protocol):
    """A kind's own form behaviour: ``customize(form)`` adds or replaces fields,
    ``clean(form, data)`` turns them into scenario parameters."""

    def customize(self, form) -> None: ...

    def clean(self, form, data: dict) -> None: ...


# What a run costs a worker besides its simulation: claiming it, its messages, storing and
# compressing its result, the experiment's refresh (docs/reliability.md, "Pricing").
RUN_OVERHEAD_S = 0.05


@dataclass(frozen=True)
class LabKind:
    """One scenario kind as the lab shows it."""

    kind: str
    title: str
    engine: ModuleType  # the engine package (``scheduling.engine``, ``uav.engine``)
    metrics: list[Metric]
    primary_metric: str
    compact: Callable[[Any], dict]  # Result -> {"series": ..., "dist": ...}
    experiment_charts: list[ChartSpec] = field(default_factory=list)
    run_charts: list[ChartSpec] = field(default_factory=list)
    default_policies: list[str] = field(default_factory=list)
    default_preset: str = ""
    limits: list[Limit] = field(default_factory=list)
    # Parameters naming a file (a trace, a run-time list): the site renders and stores them.
    inputs: list[FileInput] = field(default_factory=list)
    form_hook: FormHook | None = None
    # Deterministic kinds (trace replay) gain nothing from more than one trial.
    deterministic: bool = False
    # Trials the new-experiment form suggests (the many-task kind: the paper's 100 shuffles).
    default_trials: int = 3
    # Parameters that apply only under a setting of another one (see Condition).
    conditions: list[Condition] = field(default_factory=list)
    # Facts about a scenario's inputs beyond its parameters, as (label, text) pairs, e.g. the
    # replayed trace's name and size; shown on the result page.
    describe_inputs: Callable[[dict], list[tuple[str, str]]] | None = None
    # Units of the per-task record columns, for export headers ({"arrival": "s", ...}): the
    # unit the engine keeps its clock in (ch. 2, 4 and 5 in minutes, the others in seconds).
    task_units: dict[str, str] = field(default_factory=dict)
    # The per-task records the exports write, from the ``tasks`` and ``extra`` parts of a run's
    # result as JSON data (``{"tasks": ..., "extra": ...}``: only those are read, so that a
    # download never holds a whole result); by default its ``tasks`` with status codes as the
    # result's words. A kind whose codes alone would say less than its summary counts (a
    # reservation past the end) says it here.
    task_records: Callable[[dict], dict] | None = None
    # Export names of per-task record columns whose own name would mislead a reader, keyed by
    # the record's name (kept in the result JSON and the API): swf-preemptive's job run time,
    # stored as ``run``, beside the ``run`` id column of tasks.csv ({"run": "runtime"}).
    task_names: dict[str, str] = field(default_factory=dict)
    # Worker-seconds per unit of the engine's cost estimate (``Kind.cost``), measured on one
    # stated run of the kind (benchmarks/cost_estimates.py): budgets are priced in seconds.
    seconds_per_cost: float = 1.0
    # A run's cost in those units when the engine has no estimate that sees the inputs (a
    # replay's job count needs the trace): ``work(params) -> float``.
    work: Callable[[dict], float] | None = None

    def __post_init__(self):
        keys = [m.key for m in self.metrics]
        doubled = sorted({k for k in keys if keys.count(k) > 1})
        if doubled:
            raise ValueError(f"kind {self.kind!r} declares metric {doubled[0]!r} twice")
        if self.primary_metric not in keys:
            raise ValueError(f"kind {self.kind!r}: primary metric {self.primary_metric!r} is "
                             "not among its metrics")

    def metric(self, key: str) -> Metric:
        """This kind's own declaration of metric ``key`` (KeyError naming it when undeclared)."""
        for m in self.metrics:
            if m.key == key:
                return m
        raise KeyError(f"kind {self.kind!r} declares no metric {key!r}")

    def policy_color(self, policy: str) -> str:
        """A policy's colour, keyed on its name (simcore.charts.policy_color)."""
        from .charts import policy_color

        # The kind's default policies claim their colours first (they are the most used).
        names = [p.name for p in self.engine.list_policies(self.kind)]
        peers = [p for p in self.default_policies if p in names]
        return policy_color(policy, peers + [p for p in names if p not in peers])

    def run_seconds(self, params: dict, policy: str, scenario=None) -> float:
        """Estimated worker-seconds of one run of ``policy`` on these (normalized) parameters;
        ``scenario``, the engine's scenario of them when the caller has it, saves building it
        again (a sweep prices every point for every policy)."""
        if self.work is not None:
            units = self.work(params)
        else:
            units = self.engine.ENGINE.cost(scenario or self.engine.scenario(self.kind, params),
                                            policy)
        return float(units) * self.seconds_per_cost + RUN_OVERHEAD_S

    def condition_for(self, name: str) -> Condition | None:
        return next((c for c in self.conditions if c.covers(name)), None)

    def applies(self, name: str, params: dict) -> bool:
        """Does parameter ``name`` take effect under these (nested) parameters?"""
        cond = self.condition_for(name)
        if cond is None:
            return True
        node = params
        for part in cond.control.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        return node in cond.values

    @property
    def engine_kind(self):
        """The engine's registration of this kind (config class, run function, ...)."""
        return self.engine.ENGINE.get_kind(self.kind)


# -- the registry ---------------------------------------------------------------------------------

_KINDS: dict[str, LabKind] = {}
_lock = threading.Lock()


def register(lab: LabKind) -> LabKind:
    """Add a kind's lab face; fails loudly on a second registration or an unknown kind."""
    with _lock:
        if lab.kind in _KINDS:
            raise RuntimeError(f"lab kind {lab.kind!r} registered twice")
        lab.engine_kind  # noqa: B018  (fails loudly when the engine does not know the kind)
        for chart in lab.experiment_charts:
            bind = getattr(chart.build, "bind", None)
            if bind is not None:
                bind(lab)  # a chart of one declared metric takes the kind's own declaration
        _KINDS[lab.kind] = lab
    return lab


def registered() -> list[LabKind]:
    """The kinds registered so far, in registration order."""
    return list(_KINDS.values())


# A kind is found by an entry point in this group naming its LabKind ("package.lab:LAB"): the
# project's own in its pyproject.toml, anyone's in their package's.
GROUP = "hetsite.kinds"
PROJECT = "hetsite"
PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
log = logging.getLogger(__name__)


def _declared(pyproject: Path = PYPROJECT) -> list[importlib.metadata.EntryPoint]:
    """The project's own kinds as its pyproject.toml lists them (none outside a checkout)."""
    if not pyproject.is_file():
        return []
    with open(pyproject, "rb") as fh:
        table = tomllib.load(fh).get("project", {}).get("entry-points", {}).get(GROUP, {})
    return [importlib.metadata.EntryPoint(name, value, GROUP) for name, value in table.items()]


def entry_points() -> list[importlib.metadata.EntryPoint]:
    """Every kind's entry point: the installed ones, the project's own first in the order its
    pyproject.toml lists them (the lab's order), then the others by name. A checkout that was
    not installed (``pip install -e .``) has no installed entry points of its own: they are
    read from its pyproject.toml instead, and a warning says so."""
    found = {ep.name: ep for ep in importlib.metadata.entry_points(group=GROUP)}
    declared = _declared()
    try:
        importlib.metadata.distribution(PROJECT)
    except importlib.metadata.PackageNotFoundError:
        if declared:
            log.warning("%s is not installed (pip install -e .): its own kinds are read from "
                        "%s", PROJECT, PYPROJECT)
        found = {ep.name: ep for ep in declared} | found
    order = {ep.name: i for i, ep in enumerate(declared)}
    return sorted(found.values(), key=lambda ep: (order.get(ep.name, len(order)), ep.name))


def discover() -> list[LabKind]:
    """Load and register every kind's entry point not registered yet; an entry point that does
    not name a LabKind, or names one of another kind, fails loudly."""
    for ep in entry_points():
        if ep.name in _KINDS:
            continue
        lab = ep.load()
        if not isinstance(lab, LabKind):
            raise TypeError(f"entry point {ep.name} = {ep.value!r} (group {GROUP}) must name a "
                            f"LabKind, not {type(lab).__name__}")
        if lab.kind != ep.name:
            raise ValueError(f"entry point {ep.name} = {ep.value!r} names kind {lab.kind!r}: "
                             "the entry point is named after its kind")
        register(lab)
    return registered()


# -- what only a site has: its users' uploads -----------------------------------------------------

class Uploads(Protocol):
    """A site's uploaded files as a kind's lab face reads them (to describe or price a
    scenario that names one)."""

    def store(self) -> UploadStore | None:
        """Where the engines find uploads, or None when there are none here."""

    def count(self, ref: str) -> int:
        """The records (jobs, run times: ``CheckedFile.records``) of the upload ``ref`` names,
        to price a scenario: when the site did not record them, the most an upload may hold
        there; ScenarioError when there is no such upload."""

    def recorded(self, ref: str) -> int | None:
        """The records of the upload ``ref`` names as the site counted them, None when it did
        not (to describe it); ScenarioError when there is no such upload."""


class _NoUploads:
    """A shell, a notebook, a benchmark: no uploads at all."""

    def store(self) -> UploadStore | None:
        return None

    def count(self, ref: str) -> int:
        raise ScenarioError("trace", f"{ref!r}: uploaded files are not available here")

    def recorded(self, ref: str) -> int | None:
        return self.count(ref)


_uploads: Uploads = _NoUploads()


def use_uploads(uploads: Uploads) -> None:
    """The site's uploads, set once by the host application at start-up."""
    global _uploads
    _uploads = uploads


def uploads() -> Uploads:
    return _uploads
