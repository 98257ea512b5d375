"""The scenario kinds the web lab offers, as they declare themselves (``simcore.lab``).

A kind's lab face (``<kind>/lab.py``) is plain declarations on the core; this module finds the
kinds (``hetsite.inputs`` renders their file inputs). Nothing here or in ``frontend/`` is
specific to one kind.
"""

from __future__ import annotations

import os
import threading

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from simcore import plugins
from simcore.lab import (  # noqa: F401  (the names the web side reads kinds by)
    RUN_OVERHEAD_S,
    UNITLESS,
    ChartSpec,
    Condition,
    FileInput,
    FormHook,
    LabKind,
    Limit,
    Metric,
    RunData,
    discover,
    register,
    registered,
)

# Scenario parameters appear in forms as fields named PARAM_PREFIX + dotted name.
PARAM_PREFIX = "p."

_loaded = False
_lock = threading.Lock()


def _load():
    """Discover the kinds once (simcore.lab.discover; concurrent requests wait until they are
    in) and check their limits against this site's settings: a missing or broken kind, or a
    limit without a setting, fails loudly at the first request."""
    global _loaded
    if _loaded:
        return
    with _lock:
        if not _loaded:
            problems = limit_problems(discover())
            if problems:
                raise ImproperlyConfigured("; ".join(problems))
            _loaded = True


LIMIT_ENV = "HETSITE_LIMIT_"


def limit_problems(labs: list[LabKind], configured: dict | None = None,
                   environ=None) -> list[str]:
    """Every declared limit needs its setting (``HETSITE_LIMITS``, else it would go
    unenforced), and every setting or ``HETSITE_LIMIT_<NAME>`` override a declared limit."""
    configured = settings.HETSITE_LIMITS if configured is None else configured
    environ = os.environ if environ is None else environ
    declared = {limit.name: lab.kind for lab in labs for limit in lab.limits}
    out = [f"kind {kind!r} declares limit {name!r}, which HETSITE_LIMITS does not set"
           for name, kind in declared.items() if name not in configured]
    out += [f"HETSITE_LIMITS sets {name!r}, a limit no kind declares"
            for name in configured if name not in declared]
    out += [f"{var} overrides no limit (the limits: {', '.join(sorted(declared))})"
            for var in environ if var.startswith(LIMIT_ENV)
            and var[len(LIMIT_ENV):].lower() not in declared]
    return out


def all_kinds() -> list[LabKind]:
    _load()
    return registered()


def get_kind(kind: str) -> LabKind | None:
    _load()
    return next((lab for lab in registered() if lab.kind == kind), None)


def all_figures() -> list:
    """Every figure preset of every kind the lab offers, kind by kind."""
    return [f for lab in all_kinds() for f in lab.engine.ENGINE.list_figures(lab.kind)]


def get_figure(name: str):
    """The figure preset called ``name``, or None."""
    return next((f for f in all_figures() if f.name == name), None)


def plugin_report() -> tuple[list[tuple[plugins.Plugin, list[str]]], list[plugins.Failure]]:
    """The policy plugins loaded, each with its "kind/policy" names, and every plugin that
    failed (simcore.plugins), with every kind loaded so that none is left unsaid."""
    engines = list({id(lab.engine.ENGINE): lab.engine.ENGINE for lab in all_kinds()}.values())
    for engine in engines:
        engine.load()
    return (plugins.installed(engines),
            plugins.problems(engines, [lab.kind for lab in registered()]))


def check_kinds(app_configs=None, **kwargs) -> list:
    """Django system check (``manage.py check``, ``runserver``, ``migrate``): the kinds load and
    their limits match this site's settings; a policy plugin that failed is a warning (the
    site runs without it)."""
    from django.core import checks

    try:
        problems = limit_problems(discover())
    except Exception as err:  # a kind that does not load is the first thing to say
        return [checks.Error(f"a scenario kind failed to load: {err}", id="hetsite.E001")]
    if problems:
        return [checks.Error(p, id="hetsite.E002") for p in problems]
    return [checks.Warning(str(f), hint="see /admin/plugins/ and docs/plugins.md",
                           id="hetsite.W003") for f in plugin_report()[1]]
