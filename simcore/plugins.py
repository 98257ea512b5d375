"""Policies from packages of their own ("plugins"), found by entry point (docs/plugins.md).

A package declares, in the entry-point group ``hetsite.policies``, one entry point per kind it
adds policies to, named after the kind and naming a function that registers them::

    [project.entry-points."hetsite.policies"]
    swf-replay = "replay_sjf:register"        # def register(policies): policies.policy(...)

An engine loads a kind's plugins right after the kind itself (``Engine.load``), so the command
line, sweeps, the API and the lab all read one list. A plugin that fails to import, or whose
policy breaks its kind's protocol, adds nothing: it becomes a :class:`Failure` (its name,
entry point and error), logged here and reported by the command line and the site, and the
kind and every other policy keep working. ``HETSITE_PLUGINS`` (comma-separated distribution
names) restricts which installed plugins load; unset, every installed one does.

Plugins are code installed on the server by whoever runs it; nothing here accepts code from
anywhere else.
"""

from __future__ import annotations

import importlib.metadata
import logging
import os
import re
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .registry import Engine

GROUP = "hetsite.policies"
ENV = "HETSITE_PLUGINS"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Plugin:
    """The installed distribution a policy comes from; every result of the policy records it."""

    name: str
    version: str

    def public(self) -> dict:
        return {"name": self.name, "version": self.version}

    def __str__(self) -> str:
        return f"{self.name} {self.version}"


@dataclass(frozen=True)
class Failure:
    """A plugin that added nothing, and why."""

    plugin: str
    entry_point: str  # "kind = module:function"; "" for a name HETSITE_PLUGINS lists in vain
    error: str

    def public(self) -> dict:
        return {"plugin": self.plugin, "entry_point": self.entry_point, "error": self.error}

    def __str__(self) -> str:
        where = f" (entry point {self.entry_point})" if self.entry_point else ""
        return f"plugin {self.plugin}{where}: {self.error}"


class Policies:
    """What a plugin's ``register`` function gets, for the kind its entry point is named after.

    ``policy(name, label=..., description=..., spec=..., family=...)`` is a decorator, like the
    engine's own: the factory is checked against the kind's protocol at once (``policy_type``,
    the base class its policies subclass, where the kind declares one), and the plugin's
    policies are added together once ``register`` returns, or none of them.
    """

    def __init__(self, engine: Engine, kind: str, plugin: Plugin):
        self.kind = kind
        self.plugin = plugin
        self.policy_type = engine.kinds[kind].policy_type
        self._engine = engine
        self.added: list[tuple[dict, Callable[..., Any]]] = []

    def policy(self, name: str, *, label: str, description: str, spec: str = "",
               family: str = "", **options):
        def decorate(factory):
            if any(meta["name"] == name for meta, _ in self.added):
                raise RuntimeError(f"policy {name!r} registered twice by {self.plugin.name}")
            self._engine.check_policy(self.kind, name, factory)
            self.added.append((dict(name=name, label=label, description=description,
                                    spec=spec or f"plugin {self.plugin}", family=family,
                                    options=options), factory))
            return factory
        return decorate


def _normal(name: str) -> str:
    """A distribution name as pip compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


_allowed: tuple[set[str] | None] | None = None  # set by the host application, else the env


def allow(names: Iterable[str] | None) -> None:
    """Which plugins load (distribution names; None: every installed one). A site calls it
    at start-up with its setting; without a call, ``HETSITE_PLUGINS`` decides."""
    global _allowed
    _allowed = (None if names is None else {_normal(n) for n in names if n.strip()},)


def parse(value: str | None) -> list[str] | None:
    """``HETSITE_PLUGINS``'s value as a list of names; None when unset."""
    return None if value is None else [n.strip() for n in value.split(",") if n.strip()]


def allowed() -> set[str] | None:
    if _allowed is not None:
        return _allowed[0]
    # ENV spelled out: the deploy-files test reads which variables the code reads by their names
    names = parse(os.environ.get("HETSITE_PLUGINS"))
    return None if names is None else {_normal(n) for n in names}


def _installed() -> list[importlib.metadata.EntryPoint]:
    return list(importlib.metadata.entry_points(group=GROUP))


def _plugin(ep: importlib.metadata.EntryPoint) -> Plugin:
    dist = ep.dist
    if dist is None:  # pragma: no cover - entry points read from metadata always have one
        return Plugin(ep.module, "unknown")
    return Plugin(dist.name, dist.version)


def _one_line(err: BaseException) -> str:
    return traceback.format_exception_only(type(err), err)[-1].strip()


def load(engine: Engine, kind: str) -> list[Failure]:
    """Register the policies every allowed plugin adds to ``kind`` (already registered on
    ``engine``); the failures, each logged."""
    wanted = allowed()
    failures = []
    for ep in _installed():
        if ep.name != kind:
            continue
        plugin = _plugin(ep)
        if wanted is not None and _normal(plugin.name) not in wanted:
            continue
        before = set(engine.policies)
        try:
            policies = Policies(engine, kind, plugin)
            ep.load()(policies)
            # A policy put on the engine directly would run without its plugin recorded. (Only
            # this kind's: importing the plugin may load another kind, with its own policies.)
            direct = sorted(name for k, name in set(engine.policies) - before if k == kind)
            if direct:
                raise RuntimeError(f"it registered {', '.join(direct)} on the engine itself; "
                                   "a plugin registers through register(policies)")
            if not policies.added:
                raise RuntimeError(f"its register function added no policy to {kind!r}")
            engine.add_plugin_policies(kind, plugin, policies.added)
        except Exception as err:  # whatever a plugin does wrong, the site keeps running
            for key in set(engine.policies) - before:
                if key[0] == kind:
                    del engine.policies[key]
            failure = Failure(plugin.name, f"{ep.name} = {ep.value}", _one_line(err))
            log.error("policy %s", failure)
            failures.append(failure)
    return failures


def problems(engines: Iterable[Engine], kinds: Iterable[str] | None = None) -> list[Failure]:
    """Every plugin failure the ``engines`` recorded (for the kinds they loaded so far), a
    ``HETSITE_PLUGINS`` name that is not installed or adds no policy, and, given the names of
    every known kind, an entry point named after none of them."""
    out = [f for engine in engines for f in engine.plugin_failures]
    installed = _installed()
    for name in sorted(allowed() or ()):
        try:
            importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            out.append(Failure(name, "", f"{ENV} names it, but it is not installed"))
            continue
        if not any(_normal(_plugin(ep).name) == name for ep in installed):
            out.append(Failure(name, "", f"{ENV} names it, but it declares no entry point in "
                                         f"the group {GROUP}"))
    if kinds is not None:
        kinds, wanted = set(kinds), allowed()
        for ep in installed:
            plugin = _plugin(ep)
            if ep.name not in kinds and (wanted is None or _normal(plugin.name) in wanted):
                out.append(Failure(plugin.name, f"{ep.name} = {ep.value}",
                                   f"no scenario kind is called {ep.name!r} (the entry point "
                                   f"is named after the kind; known: {', '.join(sorted(kinds))})"))
    return out


def installed(engines: Iterable[Engine]) -> list[tuple[Plugin, list[str]]]:
    """The plugins the ``engines`` loaded, each with the "kind/policy" names it added."""
    out: dict[Plugin, list[str]] = {}
    for engine in engines:
        for info in engine.policies.values():
            if info.plugin is not None:
                out.setdefault(info.plugin, []).append(f"{info.kind}/{info.name}")
    return sorted(out.items(), key=lambda item: item[0].name)
