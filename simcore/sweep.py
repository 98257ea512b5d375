"""One sweep runner for every kind: scenario x axes x policies x seeds, on every core.

    from simcore.sweep import sweep, table
    runs = sweep(ENGINE, ENGINE.preset_scenario("ch3-5k"),
                 axes=[("energy.budget_gj", [10, 12, 14])], policies=["easy", "max-upe-ph"],
                 seeds=range(1, 9), jobs=2)
    rows = table(runs, ["pct_max_utility", "energy_gj"], baseline="easy")

Each (point, policy, seed) is one ``simulate`` call; every point and policy of a seed sees the
same random numbers (common random numbers), so differences between policies can be paired by
seed. Runs are started costliest first (the kind's ``cost`` estimate) so a parallel sweep does
not end on one straggler; results come back in (point, policy, seed) order whatever the order
they finished in.
"""

from __future__ import annotations

import copy
import importlib
import json
import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field

from .axes import axis_value, points  # noqa: F401  (part of the sweep API)
from .errors import PolicyViolation, ScenarioError
from .params import set_dotted, to_dict
from .registry import Engine, ScenarioSpec
from .stats import mean_ci


@dataclass(frozen=True)
class SweepRun:
    point: int
    setting: dict  # the point's dotted overrides
    policy: str
    seed: int
    summary: dict
    timing: dict = field(default_factory=dict)


def _run_one(job: tuple) -> tuple[int, dict | PolicyViolation, dict]:
    """One run's (index, summary, timing); a policy that broke an engine rule gives its
    PolicyViolation in place of the summary."""
    index, package, scenario, policy, seed = job
    engine: Engine = importlib.import_module(package).ENGINE
    try:
        result = engine.simulate(scenario, policy=policy, seed=seed)
    except PolicyViolation as exc:
        return index, exc, {}
    return index, result.summary, {k: v for k, v in result.timing.items() if k != "event_ms"}


def sweep(engine: Engine, scenario: ScenarioSpec, axes: Sequence[tuple[str, Sequence]] = (),
          policies: Sequence[str] = (), seeds: Iterable[int] = (0,), jobs: int = 1,
          on_run: Callable[[SweepRun], None] | None = None,
          seed_stride: int = 0, known: dict | None = None,
          on_fail: Callable[[SweepRun, PolicyViolation], None] | None = None,
          ) -> list[SweepRun]:
    """Run every (point, policy, seed); ``on_run`` sees each run as it finishes.

    A run whose policy breaks one of the engine's rules raises its PolicyViolation, unless
    ``on_fail`` is given: it then sees that run (an empty summary) and the error, the run is
    left out of the result and the others carry on.

    Point ``p`` runs seeds ``s + p * seed_stride`` (0: the same seeds at every point, so points
    differ only by their setting; a stride draws fresh instances per point). Every point is
    validated and every policy looked up before the first run starts. ``known`` maps
    :func:`run_key` to a finished run's (summary, timing): those are not run again (a run is a
    pure function of its scenario, policy and seed), and every new run is added to it.
    """
    base = to_dict(scenario.params)
    settings = points(axes)
    seeds = list(seeds)
    specs = []
    for setting in settings:
        data = {"kind": scenario.kind, "params": _with(base, setting)}
        specs.append(engine.scenario_from_dict(data))
    for policy in policies:
        engine.get_policy(scenario.kind, policy)
    work = []
    for p, (setting, spec) in enumerate(zip(settings, specs, strict=True)):
        for policy in policies:
            cost = engine.cost(spec, policy)
            for seed in seeds:
                work.append((cost, len(work), p, setting, policy, seed + p * seed_stride, spec))
    runs: list[SweepRun | None] = [None] * len(work)

    def keep(index: int, summary: dict | PolicyViolation, timing: dict) -> None:
        _, _, p, setting, policy, seed, spec = work[index]
        if isinstance(summary, PolicyViolation):
            if on_fail is None:
                raise summary
            on_fail(SweepRun(p, setting, policy, seed, {}), summary)
            return
        run = SweepRun(p, setting, policy, seed, summary, timing)
        runs[index] = run
        if known is not None:
            known[run_key(spec.to_dict(), policy, seed)] = (summary, timing)
        if on_run is not None:
            on_run(run)

    order = sorted(work, key=lambda w: (-w[0], w[1]))
    jobs_args = []
    for w in order:
        found = known.get(run_key(w[6].to_dict(), w[4], w[5])) if known is not None else None
        if found is not None:
            keep(w[1], *found)
        else:
            jobs_args.append((w[1], engine.package, w[6].to_dict(), w[4], w[5]))
    if jobs > 1 and len(jobs_args) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(_run_one, a) for a in jobs_args]
            for future in as_completed(futures):
                keep(*future.result())
    else:
        for a in jobs_args:
            keep(*_run_one(a))
    return [r for r in runs if r is not None]


def run_key(scenario: dict, policy: str, seed: int) -> str:
    """What decides one run's result: its scenario, policy and seed."""
    return json.dumps([scenario, policy, seed], sort_keys=True, default=str)


def _with(params: dict, setting: dict) -> dict:
    out = copy.deepcopy(params)
    for key, value in setting.items():
        set_dotted(out, key, value)
    return out


def paired(values: dict[int, float], baseline: dict[int, float], relative: bool) -> list[float]:
    """Per-seed differences to the baseline (``relative``: in % of the baseline, seeds where
    the baseline is 0 left out)."""
    out = []
    for seed in sorted(values):
        v, b = values[seed], baseline.get(seed)
        if v is None or b is None:
            continue
        if relative:
            if b != 0:
                out.append(100.0 * (v - b) / b)
        else:
            out.append(v - b)
    return out


def table(runs: Sequence[SweepRun], metrics: Sequence[str], baseline: str | None = None,
          relative: bool = False) -> list[dict]:
    """One row per (point, policy): mean and 95% CI of each metric over the seeds, and with a
    ``baseline`` policy the paired difference to it (``<metric>:diff``)."""
    by_key: dict[tuple[int, str], dict[int, dict]] = {}
    settings: dict[int, dict] = {}
    policies: list[str] = []
    for run in runs:
        by_key.setdefault((run.point, run.policy), {})[run.seed] = run.summary
        settings.setdefault(run.point, run.setting)
        if run.policy not in policies:
            policies.append(run.policy)
    rows = []
    for point in sorted(settings):
        for policy in policies:
            summaries = by_key.get((point, policy), {})
            row = {"point": point, "setting": settings[point], "policy": policy,
                   "n": len(summaries)}
            for metric in metrics:
                row[metric] = mean_ci([_number(s.get(metric)) for s in summaries.values()])
                if baseline is not None:
                    base = by_key.get((point, baseline), {})
                    row[f"{metric}:diff"] = mean_ci(paired(
                        {k: _number(s.get(metric)) for k, s in summaries.items()},
                        {k: _number(s.get(metric)) for k, s in base.items()}, relative))
            rows.append(row)
    return rows


def _number(value):
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


def parse_seeds(text: str) -> list[int]:
    """``"1-8"``, ``"1,4,9"`` or a mix (``"0-3,10"``)."""
    out: list[int] = []
    try:
        for part in text.split(","):
            lo, sep, hi = part.strip().partition("-")
            out.extend(range(int(lo), int(hi) + 1) if sep else [int(lo)])
    except ValueError:
        raise ScenarioError("--seeds", f"expected e.g. 1-8 or 1,4,9; got {text!r}") from None
    if not out or min(out) < 0:
        raise ScenarioError("--seeds", f"give at least one seed >= 0; got {text!r}")
    return out


def default_jobs() -> int:
    """The processes a machine offers (CPUs this process may run on)."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else os.cpu_count() or 1)
