"""The scenario kinds the web lab offers, as they declare themselves (``simcore.lab``).

A kind's lab face (``<kind>/lab.py``) is plain declarations on the core; this module finds the
kinds (``hetsite.inputs`` renders their file inputs). Nothing here or in ``frontend/`` is
specific to one kind.
"""

from __future__ import annotations

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
    MetricBars,
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
    in) and check their limits against this site's overrides: a missing or broken kind, or an
    override of no limit, fails loudly at the first request."""
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


def limit_cap(limit: Limit) -> int:
    """This site's value of a declared limit: its override (``HETSITE_LIMIT_<NAME>``), else
    the kind's default."""
    return settings.HETSITE_LIMITS.get(limit.name, limit.default)


def limit_problems(kind_labs: list[LabKind], overrides: dict | None = None) -> list[str]:
    """Kinds that share a limit's name declare one default for it (it is one limit), and every
    override (``HETSITE_LIMITS``, read from ``HETSITE_LIMIT_<NAME>``) names a declared limit:
    a misspelt override would otherwise leave the limit at its default unnoticed."""
    overrides = settings.HETSITE_LIMITS if overrides is None else overrides
    defaults: dict[str, dict[int, str]] = {}
    for kind_lab in kind_labs:
        for limit in kind_lab.limits:
            defaults.setdefault(limit.name, {}).setdefault(limit.default, kind_lab.kind)
    out = [f"limit {name!r} has different defaults: "
           + ", ".join(f"{default:,} (kind {kind!r})" for default, kind in by.items())
           for name, by in defaults.items() if len(by) > 1]
    out += [f"{LIMIT_ENV}{name.upper()} overrides no limit (the limits: "
            f"{', '.join(sorted(defaults))})" for name in overrides if name not in defaults]
    return out


def all_kinds() -> list[LabKind]:
    _load()
    return registered()


def get_kind(kind: str) -> LabKind | None:
    _load()
    return next((kind_lab for kind_lab in registered() if kind_lab.kind == kind), None)


def all_figures() -> list:
    """Every figure preset of every kind the lab offers, kind by kind."""
    return [f for kind_lab in all_kinds()
            for f in kind_lab.engine.ENGINE.list_figures(kind_lab.kind)]


def get_figure(name: str):
    """The figure preset called ``name``, or None."""
    return next((f for f in all_figures() if f.name == name), None)


def plugin_report() -> tuple[list[tuple[plugins.Plugin, list[str]]], list[plugins.Failure]]:
    """The policy plugins loaded, each with its "kind/policy" names, and every plugin that
    failed (simcore.plugins), with every kind loaded so that none is left unsaid."""
    engines = list({id(kind_lab.engine.ENGINE): kind_lab.engine.ENGINE
                    for kind_lab in all_kinds()}.values())
    for engine in engines:
        engine.load()
    return (plugins.installed(engines),
            plugins.problems(engines, [kind_lab.kind for kind_lab in registered()]))


def check_kinds(app_configs=None, **kwargs) -> list:
    """Django system check (``manage.py check``, ``runserver``, ``migrate``): the kinds load and
    this site's limit overrides name their limits; a policy plugin that failed is a warning
    (the site runs without it)."""
    from django.core import checks

    try:
        problems = limit_problems(discover())
    except Exception as err:  # a kind that does not load is the first thing to say
        return [checks.Error(f"a scenario kind failed to load: {err}", id="hetsite.E001")]
    if problems:
        return [checks.Error(p, id="hetsite.E002") for p in problems]
    return [checks.Warning(str(f), hint="see /admin/plugins/ and docs/plugins.md",
                           id="hetsite.W003") for f in plugin_report()[1]]
