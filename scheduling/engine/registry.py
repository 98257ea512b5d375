"""Environments, policies and presets of an engine, registered by name in one place.

An *environment* is a scenario kind: a config dataclass (see ``params``) plus a ``run`` function
``run(config, policy: PolicyInfo, seed: int, progress) -> Result``. *Policies* belong to one
kind and are listed with a one-line description and the spec section they implement, so the
form, the API, the CLI and the docs all read the same list. *Presets* are named scenarios.

Both engines (``scheduling.engine`` and ``uav.engine``) own one :class:`Engine` each and expose
the same module-level functions built from it.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import params as P
from .errors import RunCancelled, ScenarioError
from .result import SCHEMA_VERSION, Result, code_version

Progress = Callable[[float], None]


@dataclass(frozen=True)
class Environment:
    kind: str
    title: str
    description: str
    config_cls: type
    run: Callable[..., Result]
    spec: str = ""


@dataclass(frozen=True)
class PolicyInfo:
    name: str
    kind: str
    label: str
    description: str
    spec: str
    factory: Callable[..., Any]
    family: str = ""
    options: dict = field(default_factory=dict)

    def public(self) -> dict:
        return {"name": self.name, "kind": self.kind, "label": self.label,
                "description": self.description, "spec": self.spec, "family": self.family}


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


@dataclass(frozen=True)
class Scenario:
    """A validated scenario: its kind and the kind's config dataclass instance."""

    kind: str
    params: Any

    def to_dict(self) -> dict:
        return {"kind": self.kind, "params": P.to_dict(self.params)}


class Engine:
    def __init__(self, name: str, builtin_modules: list[str]):
        self.name = name
        self._builtin = builtin_modules
        self._loaded = False
        self._loading = False
        self._lock = threading.RLock()
        self.environments: dict[str, Environment] = {}
        self.policies: dict[tuple[str, str], PolicyInfo] = {}
        self.presets: dict[str, Preset] = {}
        # CLI extensions: extra subcommands and ``run`` flags that rename the policy.
        self.commands: dict[str, tuple] = {}
        self.policy_flags: dict[str, tuple] = {}

    # -- registration (used by the environment modules at import time) --------------------------
    def environment(self, kind, *, title, description, config_cls, spec=""):
        def decorate(run):
            self.environments[kind] = Environment(kind, title, description, config_cls, run, spec)
            return run
        return decorate

    def policy(self, kind, name, *, label, description, spec, family="", **options):
        def decorate(factory):
            key = (kind, name)
            if key in self.policies:
                raise RuntimeError(f"policy {name!r} registered twice for {kind!r}")
            self.policies[key] = PolicyInfo(name, kind, label, description, spec, factory, family,
                                            options)
            return factory
        return decorate

    def preset(self, name, kind, *, description, params, source=""):
        if name in self.presets:
            raise RuntimeError(f"preset {name!r} registered twice")
        self.presets[name] = Preset(name, kind, description, params, source)

    def command(self, name, *, help, add_arguments, run):
        """An extra CLI subcommand: ``add_arguments(parser)``, ``run(args) -> exit code``."""
        self.commands[name] = (help, add_arguments, run)

    def policy_flag(self, flag, *, help, transform):
        """A ``run`` flag such as ``--preemption`` that maps the policy name to a variant."""
        self.policy_flags[flag] = (help, transform)

    def _load(self):
        """Import the environment modules once; other threads wait until they are in."""
        if self._loaded:
            return
        with self._lock:
            if self._loaded or self._loading:  # _loading: a module queried us while importing
                return
            self._loading = True
            try:
                for module in self._builtin:
                    if importlib.util.find_spec(module) is not None:
                        importlib.import_module(module)
            finally:
                self._loading = False
            self._loaded = True

    # -- queries ---------------------------------------------------------------------------------
    def list_environments(self) -> list[Environment]:
        self._load()
        return list(self.environments.values())

    def get_environment(self, kind: str) -> Environment:
        self._load()
        if kind not in self.environments:
            raise ScenarioError("kind", f"unknown scenario kind {kind!r}; known: "
                                        f"{', '.join(sorted(self.environments))}")
        return self.environments[kind]

    def list_policies(self, kind: str | None = None) -> list[PolicyInfo]:
        self._load()
        return [p for p in self.policies.values() if kind is None or p.kind == kind]

    def get_policy(self, kind: str, name: str) -> PolicyInfo:
        self._load()
        info = self.policies.get((kind, name))
        if info is None:
            known = ", ".join(p.name for p in self.list_policies(kind))
            raise ScenarioError("policy", f"unknown policy {name!r} for {kind!r}; known: {known}")
        return info

    def list_presets(self, kind: str | None = None) -> list[Preset]:
        self._load()
        return [p for p in self.presets.values() if kind is None or p.kind == kind]

    def get_preset(self, name: str) -> Preset:
        self._load()
        if name not in self.presets:
            raise ScenarioError("preset", f"unknown preset {name!r}; known: "
                                          f"{', '.join(sorted(self.presets))}")
        return self.presets[name]

    # -- scenarios -------------------------------------------------------------------------------
    def scenario(self, kind: str, params: dict | None = None) -> Scenario:
        env = self.get_environment(kind)
        return Scenario(kind, P.from_dict(env.config_cls, params or {}, prefix=""))

    def scenario_from_dict(self, data: dict) -> Scenario:
        if not isinstance(data, dict) or "kind" not in data:
            raise ScenarioError("kind", "is required")
        unknown = sorted(set(data) - {"kind", "params"})
        if unknown:
            raise ScenarioError(unknown[0], "is not a scenario field (expected kind, params)")
        return self.scenario(data["kind"], data.get("params") or {})

    def preset_scenario(self, name: str, overrides: dict[str, Any] | None = None) -> Scenario:
        """A preset with dotted ``overrides`` (``{"energy.budget_gj": 10}``) applied."""
        preset = self.get_preset(name)
        env = self.get_environment(preset.kind)
        data = P.to_dict(P.from_dict(env.config_cls, preset.params))
        for key, value in (overrides or {}).items():
            P.set_dotted(data, key, value)
        return self.scenario(preset.kind, data)

    # -- running ---------------------------------------------------------------------------------
    def simulate(self, scenario: Scenario | dict, policy: str, seed: int = 0,
                 progress: Progress | None = None) -> Result:
        """Run one (scenario, policy, seed); deterministic apart from ``result.timing``."""
        if isinstance(scenario, dict):
            scenario = self.scenario_from_dict(scenario)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not (
                0 <= int(seed) < 2**63):
            raise ScenarioError("seed", f"must be an integer >= 0 and < 2^63; got {seed!r}")
        env = self.get_environment(scenario.kind)
        info = self.get_policy(scenario.kind, policy)
        report = progress or (lambda frac: None)
        started = time.perf_counter()
        result = env.run(scenario.params, info, int(seed), report)
        wall = time.perf_counter() - started
        report(1.0)
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
        return result


def rng(seed: int, stream: str) -> np.random.Generator:
    """An independent random stream per purpose.

    Workload generation and policy decisions draw from different streams, so every policy sees
    the same workload for the same seed (common random numbers) and a policy's own draws never
    shift the workload.
    """
    digest = int.from_bytes(hashlib.sha256(stream.encode()).digest()[:8], "little")
    return np.random.default_rng(np.random.SeedSequence([int(seed), digest]))


class ProgressThrottle:
    """Calls ``progress`` at most every ``step`` of progress; a callback may raise RunCancelled."""

    def __init__(self, progress: Progress, step: float = 0.01):
        self._progress = progress
        self._step = step
        self._last = -1.0

    def __call__(self, frac: float) -> None:
        if frac - self._last >= self._step:
            self._last = frac
            self._progress(min(max(frac, 0.0), 1.0))


__all__ = ["Engine", "Environment", "PolicyInfo", "Preset", "Scenario", "ScenarioError",
           "RunCancelled", "Result", "rng", "ProgressThrottle"]
