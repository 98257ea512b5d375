"""Scenario kinds, policies and presets of an engine, registered by name in one place.

A *kind* is a scenario type: a config dataclass (see ``params``) plus a ``run`` function
``run(config, policy: PolicyInfo, seed: int, ctx: RunContext) -> Result``. *Policies* belong to
one kind and are listed with a one-line description and the spec section they implement, so the
form, the API, the CLI and the docs all read the same list. *Presets* are named scenarios.

An :class:`Engine` is built with the module of each of its kinds and imports a kind's module
only when that kind (or everything) is asked for, so a command that runs one kind loads only
that kind. Loading fails loudly: a module that cannot be imported raises, and a module that
does not register the kind it was declared for raises too. Once a kind is in, the policies that
installed plugins add to it are registered (``simcore.plugins``); a plugin that fails is
recorded in ``Engine.plugin_failures`` instead, and the kind loads without it.
"""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import claims as C
from . import params as P
from . import plugins, references
from .axes import points
from .claims import Claim, Provenance
from .clock import Progress, RunClock
from .decisions import DecisionLog
from .errors import PolicyViolation, ScenarioError
from .inputs import UploadStore
from .result import SCHEMA_VERSION, Result, code_version


@dataclass(frozen=True)
class Kind:
    name: str
    title: str
    description: str
    config_cls: type
    run: Callable[..., Result]
    spec: str = ""
    # Summary keys a sweep table shows by default (the lab describes them with labels/units).
    headline: tuple[str, ...] = ()
    # Optional relative cost of one run, ``cost(config, policy_name) -> float``; sweeps start
    # the costliest runs first so they do not end on one straggler.
    cost: Callable[[Any, str], float] | None = None
    # The kind's policy type: every policy registered for it must be a subclass (checked at
    # registration, naming the policy), so a policy's one method is known before it runs.
    policy_type: type | None = None


@dataclass(frozen=True)
class PolicyInfo:
    name: str
    kind: str
    label: str
    description: str
    spec: str
    # The policy's class, a subclass of its kind's ``policy_type``; its kind builds it per run.
    factory: type
    family: str = ""
    # The keywords the policy was registered with (kinds that build policies with
    # :meth:`build` pass them to the constructor).
    options: dict = field(default_factory=dict)
    # The installed package a plugin's policy comes from; None for the project's own.
    plugin: plugins.Plugin | None = None

    def build(self, *args):
        """An instance for one run: ``factory(*args, **options)`` (the kind says what ``args``
        are, e.g. the scenario and the policy's random stream)."""
        return self.factory(*args, **self.options)

    def public(self) -> dict:
        return {"name": self.name, "kind": self.kind, "label": self.label,
                "description": self.description, "spec": self.spec, "family": self.family,
                "spec_text": references.spell(self.spec, self.kind),
                "plugin": self.plugin.public() if self.plugin else None}


@dataclass(frozen=True)
class Preset:
    name: str
    kind: str
    description: str
    params: dict
    source: str = ""

    def public(self) -> dict:
        return {"name": self.name, "kind": self.kind, "description": self.description,
                "source": self.source, "params": self.params}


#: Figure presets run on seeds from here up: above every seed a calibration used
#: (docs/calibration.md), so every verdict they give is out of sample.
FIGURE_FIRST_SEED = 1000


@dataclass(frozen=True)
class Figure:
    """A published comparison made runnable: a preset swept over ``axes`` (empty: one point)
    with ``policies`` x ``trials`` seeds from ``first_seed``.

    ``claim`` is the published finding in words with its figure/table reference; ``claims``
    are its checkable parts (:class:`simcore.claims.Claim`: a pair of policies on a named
    metric, at a point, at every point or pooled), each judged on the paired interval of its
    per-seed differences; ``provenance`` applies to every claim (a scaled system, a substitute
    input); ``scale`` says how this run differs from the paper's; ``trials`` is the paper's
    count when the figure affords it (``paper_trials``), the largest count that does if not.
    """

    name: str
    kind: str
    title: str
    preset: str
    policies: tuple[str, ...]
    metrics: tuple[str, ...]
    claim: str
    source: str
    overrides: dict = field(default_factory=dict)  # dotted overrides on the preset
    axes: tuple[tuple[str, tuple], ...] = ()
    trials: int = 3
    baseline: str | None = None
    claims: tuple[Claim, ...] = ()
    provenance: tuple[Provenance, ...] = ()
    scale: str = ""
    # Cheap and stable enough to check in the test suite (``reproduce --quick``).
    quick: bool = False
    # The publication's trial count, when it states one: a run may ask for up to this many.
    paper_trials: int | None = None
    first_seed: int = FIGURE_FIRST_SEED

    @property
    def ranking(self) -> tuple[tuple[str, str], ...]:
        """The (better, worse) pairs of the claims, each once."""
        return tuple(dict.fromkeys((c.better, c.worse) for c in self.claims))

    def public(self) -> dict:
        return {"name": self.name, "kind": self.kind, "title": self.title,
                "preset": self.preset, "overrides": self.overrides,
                "axes": [{"param": p, "values": list(v)} for p, v in self.axes],
                "policies": list(self.policies), "trials": self.trials,
                "metrics": list(self.metrics), "baseline": self.baseline,
                "claim": self.claim, "source": self.source,
                "ranking": [list(pair) for pair in self.ranking],
                "claims": [c.public() for c in self.claims],
                "provenance": [p.public() for p in self.provenance],
                "scale": self.scale, "quick": self.quick, "paper_trials": self.paper_trials,
                "first_seed": self.first_seed}


@dataclass(frozen=True)
class ScenarioSpec:
    """A validated scenario: its kind and an instance of the kind's config dataclass."""

    kind: str
    params: Any

    def to_dict(self) -> dict:
        return {"kind": self.kind, "params": P.to_dict(self.params)}


@dataclass(frozen=True)
class RunContext:
    """What a kind's run function gets besides its config, policy and seed: the clock it
    reports progress on, where the uploads its scenario may name are found (None: no uploads
    here; a kind that reads files resolves them itself, see ``simcore.inputs``), and the log of
    its decisions when the run explains itself."""

    clock: RunClock
    inputs: UploadStore | None = None
    # Where the kind records its decisions and their reasons (``simcore.decisions``); None
    # when the run was not asked to explain itself, and then the kind records nothing.
    decisions: DecisionLog | None = None


@dataclass(frozen=True)
class Command:
    """An extra CLI subcommand of one kind: ``add_arguments(parser)``, ``run(args) -> code``."""

    name: str
    kind: str
    help: str
    add_arguments: Callable
    run: Callable


class Engine:
    """The kinds of one engine package, each loaded from its module on first use.

    ``kinds`` maps a kind name to the module that registers it; ``commands`` maps an extra CLI
    subcommand to the kind that provides it, so the CLI can load just that kind. ``name`` is
    recorded in every result's ``meta.engine``; ``package`` is the module holding the engine
    (worker processes of a sweep import it).
    """

    def __init__(self, name: str, package: str, kinds: dict[str, str],
                 commands: dict[str, str] | None = None,
                 sweep_aliases: dict[str, dict] | None = None):
        self.name = name
        self.package = package  # the module whose ``ENGINE`` this is (for worker processes)
        self.modules = dict(kinds)
        self.command_kinds = dict(commands or {})
        self._lock = threading.RLock()
        self._loaded: set[str] = set()
        self._plugging: set[str] = set()  # kinds whose plugins are being registered
        self.plugin_failures: list[plugins.Failure] = []
        self.kinds: dict[str, Kind] = {}
        self.policies: dict[tuple[str, str], PolicyInfo] = {}
        self.presets: dict[str, Preset] = {}
        self.figures: dict[str, Figure] = {}
        self.commands: dict[str, Command] = {}
        # ``run`` flags such as ``--preemption`` that map the policy name to a variant.
        self.policy_flags: dict[str, tuple] = {}
        # Older names of the ``sweep`` command, each with its argument defaults.
        self.sweep_aliases = dict(sweep_aliases or {})
        # (add_arguments, translate): a kind's shorthand options for ``sweep``.
        self.sweep_shorthand: tuple | None = None

    # -- registration (called by the kind modules at import time) ---------------------------------
    def kind(self, name, *, title, description, config_cls, policy_type, spec="", headline=(),
             cost=None):
        if not isinstance(policy_type, type):
            raise TypeError(f"kind {name!r}: policy_type must be the base class its policies "
                            f"subclass, got {policy_type!r}")

        def decorate(run):
            self._check_owner(name)
            if name in self.kinds:
                raise RuntimeError(f"kind {name!r} registered twice")
            self.kinds[name] = Kind(name, title, description, config_cls, run, spec,
                                    tuple(headline), cost, policy_type)
            for (kind, _), info in self.policies.items():
                if kind == name:
                    self._check_policy_type(info.name, kind, info.factory)
            return run
        return decorate

    def _check_policy_type(self, name: str, kind: str, factory) -> None:
        spec = self.kinds.get(kind)
        wanted = spec.policy_type if spec else None
        if wanted is None:
            return
        if not (isinstance(factory, type) and issubclass(factory, wanted)):
            raise TypeError(f"policy {name!r} of kind {kind!r} must be a subclass of "
                            f"{wanted.__module__}.{wanted.__qualname__}, got {factory!r}")
        missing = sorted(getattr(factory, "__abstractmethods__", ()))
        if missing:
            raise TypeError(f"policy {name!r} of kind {kind!r} ({factory.__qualname__}) does "
                            f"not define {', '.join(missing)}")

    def policy(self, kind, name, *, label, description, spec, family="", **options):
        def decorate(factory):
            self.check_policy(kind, name, factory)
            self.policies[(kind, name)] = PolicyInfo(name, kind, label, description, spec,
                                                     factory, family, options)
            return factory
        return decorate

    def check_policy(self, kind: str, name: str, factory) -> None:
        """Whether ``factory`` may register as policy ``name`` of ``kind``: the kind is this
        engine's, the name is free and the factory is of the kind's policy type."""
        self._check_owner(kind)
        if (kind, name) in self.policies:
            raise RuntimeError(f"policy {name!r} registered twice for {kind!r}")
        self._check_policy_type(name, kind, factory)

    def add_plugin_policies(self, kind: str, plugin: plugins.Plugin,
                            added: list[tuple[dict, Callable[..., Any]]]) -> None:
        """The one way in for a plugin's policies (``simcore.plugins``): all checked like the
        project's own, then all registered with the plugin recorded, or none."""
        for meta, factory in added:
            self.check_policy(kind, meta["name"], factory)
        for meta, factory in added:
            self.policies[(kind, meta["name"])] = PolicyInfo(kind=kind, factory=factory,
                                                             plugin=plugin, **meta)

    def preset(self, name, kind, *, description, params, source=""):
        self._check_owner(kind)
        if name in self.presets:
            raise RuntimeError(f"preset {name!r} registered twice")
        self.presets[name] = Preset(name, kind, description, params, source)

    def figure(self, name, kind, **fields) -> Figure:
        """Register a figure preset (see :class:`Figure`); its preset must be the kind's, and
        every claim must name its policies, a metric of the figure and points it sweeps."""
        self._check_owner(kind)
        if name in self.figures:
            raise RuntimeError(f"figure {name!r} registered twice")
        fields["axes"] = tuple((p, tuple(v)) for p, v in fields.get("axes", ()))
        for key in ("policies", "metrics"):
            if key in fields:
                fields[key] = tuple(fields[key])
        fields["provenance"] = tuple(fields.get("provenance", ()))
        fields["claims"] = tuple(C.with_provenance(c, fields["provenance"])
                                 for c in fields.get("claims", ()))
        figure = Figure(name=name, kind=kind, **fields)
        preset = self.presets.get(figure.preset)
        if preset is None or preset.kind != kind:
            raise RuntimeError(f"figure {name!r}: {figure.preset!r} is not a preset of {kind!r} "
                               "(register presets first)")
        self._check_claims(figure)
        self.figures[name] = figure
        return figure

    @staticmethod
    def _check_claims(figure: Figure) -> None:
        settings = points(figure.axes)
        seen: set[str] = set()
        for c in figure.claims:
            unknown = {c.better, c.worse} - set(figure.policies)
            if unknown or c.metric not in figure.metrics:
                raise RuntimeError(f"figure {figure.name!r}: claim {c.better} {c.sign} "
                                   f"{c.worse} on {c.metric} names "
                                   f"{', '.join(sorted(unknown)) or c.metric}, which the "
                                   "figure does not run or chart")
            try:
                keys = {C.key(c, p, wp) for p, wp in C.targets(c, settings)}
            except ValueError as err:
                raise RuntimeError(f"figure {figure.name!r}: claim {c.better} {c.sign} "
                                   f"{c.worse}: {err}") from None
            if keys & seen:  # a record's checks are found by key
                raise RuntimeError(f"figure {figure.name!r}: {', '.join(sorted(keys & seen))} "
                                   "claimed twice")
            seen |= keys

    def command(self, name, kind, *, help, add_arguments, run):
        self._check_owner(kind)
        if self.command_kinds.get(name) != kind:
            raise RuntimeError(f"command {name!r} is not declared for kind {kind!r} in the "
                               f"{self.name} engine's commands")
        self.commands[name] = Command(name, kind, help, add_arguments, run)

    def policy_flag(self, flag, *, help, transform):
        self.policy_flags[flag] = (help, transform)

    def sweep_options(self, *, add_arguments, translate):
        """Shorthand options for the ``sweep`` command: ``translate(args)`` turns them into the
        generic ones (``preset``, ``vary``, ``seeds``, ``baseline``, ...) in place."""
        self.sweep_shorthand = (add_arguments, translate)

    def _check_owner(self, kind: str) -> None:
        if kind not in self.modules:
            raise RuntimeError(f"kind {kind!r} is not declared in the {self.name} engine "
                               f"(declared: {', '.join(self.modules)})")

    # -- loading -----------------------------------------------------------------------------------
    def load(self, kind: str | None = None) -> None:
        """Import the module of ``kind`` (or of every kind) once; errors propagate."""
        names = list(self.modules) if kind is None else [kind]
        for name in names:
            if name in self._loaded:
                continue
            with self._lock:  # concurrent first requests wait until the kind is in
                if name in self._loaded or name in self._plugging:
                    continue
                if name not in self.kinds:  # not yet registered by its module's import
                    importlib.import_module(self.modules[name])
                if name not in self.kinds:
                    raise RuntimeError(f"module {self.modules[name]!r} did not register kind "
                                       f"{name!r}")
                self._plugging.add(name)  # a plugin asking for its kind finds it loading
                try:
                    self.plugin_failures += plugins.load(self, name)
                finally:
                    self._plugging.discard(name)
                self._loaded.add(name)

    def _known(self, kind: str) -> None:
        if kind not in self.modules:
            raise ScenarioError("kind", f"unknown scenario kind {kind!r}; known: "
                                        f"{', '.join(sorted(self.modules))}")
        self.load(kind)

    # -- queries -----------------------------------------------------------------------------------
    def list_kinds(self) -> list[Kind]:
        self.load()
        return [self.kinds[k] for k in self.modules]

    def get_kind(self, kind: str) -> Kind:
        self._known(kind)
        return self.kinds[kind]

    def list_policies(self, kind: str | None = None) -> list[PolicyInfo]:
        self.load(kind) if kind in self.modules else self.load()
        return [p for p in self.policies.values() if kind is None or p.kind == kind]

    def get_policy(self, kind: str, name: str) -> PolicyInfo:
        self._known(kind)
        info = self.policies.get((kind, name))
        if info is None:
            known = ", ".join(p.name for p in self.list_policies(kind))
            raise ScenarioError("policy", f"unknown policy {name!r} for {kind!r}; known: {known}")
        return info

    def list_presets(self, kind: str | None = None) -> list[Preset]:
        self.load(kind) if kind in self.modules else self.load()
        return [p for p in self.presets.values() if kind is None or p.kind == kind]

    def list_figures(self, kind: str | None = None) -> list[Figure]:
        self.load(kind) if kind in self.modules else self.load()
        return [f for f in self.figures.values() if kind is None or f.kind == kind]

    def get_figure(self, name: str) -> Figure:
        self.load()
        if name not in self.figures:
            raise ScenarioError("figure", f"unknown figure {name!r}; known: "
                                          f"{', '.join(sorted(self.figures))}")
        return self.figures[name]

    def get_preset(self, name: str) -> Preset:
        for kind in self.modules:  # load kinds one by one until one has it
            if name in self.presets:
                break
            self.load(kind)
        if name not in self.presets:
            raise ScenarioError("preset", f"unknown preset {name!r}; known: "
                                          f"{', '.join(sorted(self.presets))}")
        return self.presets[name]

    # -- scenarios ---------------------------------------------------------------------------------
    def scenario(self, kind: str, params: dict | None = None) -> ScenarioSpec:
        spec = self.get_kind(kind)
        return ScenarioSpec(kind, P.from_dict(spec.config_cls, params or {}, prefix=""))

    def scenario_from_dict(self, data: dict) -> ScenarioSpec:
        if not isinstance(data, dict) or "kind" not in data:
            raise ScenarioError("kind", "is required")
        unknown = sorted(set(data) - {"kind", "params"})
        if unknown:
            raise ScenarioError(unknown[0], "is not a scenario field (expected kind, params)")
        return self.scenario(data["kind"], data.get("params") or {})

    def preset_scenario(self, name: str, overrides: dict[str, Any] | None = None) -> ScenarioSpec:
        """A preset with dotted ``overrides`` (``{"energy.budget_gj": 10}``) applied."""
        preset = self.get_preset(name)
        spec = self.get_kind(preset.kind)
        data = P.to_dict(P.from_dict(spec.config_cls, preset.params))
        for key, value in (overrides or {}).items():
            P.set_dotted(data, key, value)
        return self.scenario(preset.kind, data)

    # -- running -----------------------------------------------------------------------------------
    def simulate(self, scenario: ScenarioSpec | dict, policy: str, seed: int = 0,
                 progress: Progress | None = None, inputs: UploadStore | None = None, *,
                 traces: UploadStore | None = None,
                 explain: bool | DecisionLog = False) -> Result:
        """Run one (scenario, policy, seed); deterministic apart from ``result.timing``.

        ``inputs`` says where the uploads a scenario names (``upload:<sha256>``) are found
        (default: none, only what the kinds ship). ``traces`` is its older name, kept for
        scripts that pass a trace library there. ``explain`` (True, or a
        :class:`~simcore.decisions.DecisionLog` with bounds of its own) records the run's
        decisions with their reasons in ``result.decisions`` and what bounded them in
        ``meta.decisions``; off, the result is what it always was.
        """
        if isinstance(scenario, dict):
            scenario = self.scenario_from_dict(scenario)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not (
                0 <= int(seed) < 2**63):
            raise ScenarioError("seed", f"must be an integer >= 0 and < 2^63; got {seed!r}")
        spec = self.get_kind(scenario.kind)
        info = self.get_policy(scenario.kind, policy)
        clock = RunClock(progress)
        log = explain if isinstance(explain, DecisionLog) else DecisionLog() if explain else None
        ctx = RunContext(clock, inputs if inputs is not None else traces, log)
        started, cpu = time.perf_counter(), time.process_time()
        try:
            result = spec.run(scenario.params, info, int(seed), ctx)
        except PolicyViolation as exc:
            if exc.policy is None:
                exc.policy = policy
            raise
        wall = time.perf_counter() - started
        cpu = time.process_time() - cpu
        clock.finish()
        if info.plugin is not None:  # provenance: which package's code made the decisions
            result.meta.setdefault("plugin", info.plugin.public())
        if log is not None:
            result.decisions, result.meta["decisions"] = log.export()
        result.meta = {
            "engine": self.name,
            "kind": scenario.kind,
            "policy": policy,
            "seed": int(seed),
            "scenario": scenario.to_dict(),
            "code_version": code_version(),
            "schema": SCHEMA_VERSION,
            **result.meta,
        }
        result.timing.setdefault("wall_s", wall)
        result.timing["cpu_s"] = cpu  # what recording a figure costs, whatever the load
        return result

    def cost(self, scenario: ScenarioSpec, policy: str) -> float:
        """The kind's relative cost estimate of one run (1.0 when the kind gives none)."""
        spec = self.get_kind(scenario.kind)
        return float(spec.cost(scenario.params, policy)) if spec.cost else 1.0
