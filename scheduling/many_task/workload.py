"""The task run times of a scenario: calibrated surrogates of the paper's workloads, a
log-normal of your own, a file, or an inline list (trailing-tasks spec §4).

A workload is a bag of independent single-worker tasks; only the run times matter. Surrogate
instances are drawn from the stream ``rng(seed, "many-task/workload")`` where the seed is the
workload's ``instance_seed`` (one fixed instance for every trial, as the paper reshuffled one
trace) or, with ``redraw``, the trial's own seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simcore.errors import ScenarioError
from simcore.sampling import rng
from simcore.traces import TraceLibrary

from .config import WorkloadParams


@dataclass(frozen=True)
class Surrogate:
    tasks: int
    mean_s: float
    cov: float
    truncate_s: float | None
    note: str


#: Calibrated stand-ins for the paper's traces (workloads (trailing-tasks spec §4) [CALIBRATED]).
SURROGATES = {
    "real935k": Surrogate(934_710, 700.0, 0.5, 5030.0,
                          "DOCK5 on Intrepid: log-normal, mean 700 s, CoV 0.5, redrawn above "
                          "the longest recorded task (5,030 s)"),
    "real15k": Surrogate(15_000, 251.5, 0.25, None,
                         "DOCK6 on Intrepid: log-normal, mean 251.5 s (1,048 CPU-h / 15,000), "
                         "CoV 0.25"),
    "synth15k": Surrogate(15_000, 251.5, 1.0, None,
                          "synthetic: log-normal with real15k's mean and 4x its standard "
                          "deviation (CoV 1.0)"),
}

#: Truncation must keep at least this share of the draws (else redrawing would not end).
MIN_ACCEPTANCE = 1e-3


@dataclass(frozen=True)
class Workload:
    runtimes: np.ndarray  # s, in the instance's own order (draw, file or list order)
    label: str  # e.g. "real935k", "lublin_256 (run times)"
    description: str

    def __len__(self) -> int:
        return int(self.runtimes.size)


def _lognormal_sigma(mean: float, cov: float) -> tuple[float, float]:
    """(mu, sigma) of the normal whose exponential has this mean and CoV."""
    s2 = math.log1p(cov * cov)
    return math.log(mean) - s2 / 2.0, math.sqrt(s2)


def lognormal(gen: np.random.Generator, n: int, mean: float, cov: float,
              truncate: float | None = None) -> np.ndarray:
    """``n`` log-normal run times with this mean and CoV; draws above ``truncate`` are redrawn
    (so the mean ends slightly below ``mean``)."""
    if cov == 0:
        return np.full(n, float(mean))
    mu, sigma = _lognormal_sigma(mean, cov)
    if truncate is not None:
        z = (math.log(truncate) - mu) / sigma
        accept = 0.5 * math.erfc(-z / math.sqrt(2.0))
        if accept < MIN_ACCEPTANCE:
            raise ScenarioError("workload.truncate_s",
                                f"keeps only {accept:.2e} of the log-normal draws (mean "
                                f"{mean:g} s, CoV {cov:g}); raise it or clear it")
    x = gen.lognormal(mu, sigma, n)
    if truncate is not None:
        bad = np.flatnonzero(x > truncate)
        while bad.size:
            x[bad] = gen.lognormal(mu, sigma, bad.size)
            bad = bad[x[bad] > truncate]
    return x


def load(p: WorkloadParams, seed: int, traces: TraceLibrary | None = None) -> Workload:
    """The workload of one trial (``seed`` matters only with ``redraw``)."""
    gen = rng(seed if p.redraw else p.instance_seed, "many-task/workload")
    if p.source in SURROGATES:
        s = SURROGATES[p.source]
        runtimes = lognormal(gen, p.tasks or s.tasks, s.mean_s, s.cov, s.truncate_s)
        label, text = p.source, s.note
    elif p.source == "lognormal":
        if p.tasks is None:
            raise ScenarioError("workload.tasks", "give the number of tasks for the "
                                                  "lognormal source")
        runtimes = lognormal(gen, p.tasks, p.mean_s, p.cov, p.truncate_s)
        trunc = f", redrawn above {p.truncate_s:g} s" if p.truncate_s else ""
        label = f"lognormal({p.mean_s:g} s, CoV {p.cov:g})"
        text = f"log-normal, mean {p.mean_s:g} s, CoV {p.cov:g}{trunc}"
    elif p.source == "runtimes":
        try:
            values = (traces or TraceLibrary()).load_runtimes(p.runtimes)
        except ScenarioError as err:
            where = err.field.replace("runtimes", "", 1).replace("trace", "", 1)
            raise ScenarioError("workload.runtimes",
                                f"{where.lstrip(':')}: {err.message}" if where else err.message
                                ) from None
        runtimes = values[: p.tasks] if p.tasks else values
        name = "uploaded file" if p.runtimes.startswith("upload:") else p.runtimes
        label, text = f"{name} (run times)", f"run times of {name}, in file order"
    else:  # list
        runtimes = np.asarray(p.values, dtype=float)[: p.tasks or None]
        label, text = "list", "run times given in the scenario"
    runtimes = np.asarray(runtimes, dtype=float) * p.scale
    if runtimes.size == 0:
        raise ScenarioError("workload.tasks", "the workload has no task")
    return Workload(runtimes, label, text)


def histogram(runtimes: np.ndarray, bins: int) -> dict:
    """Counts of run times in ``bins`` equal bins from 0 to the longest task."""
    top = float(runtimes.max()) if runtimes.size else 1.0
    counts, edges = np.histogram(runtimes, bins=bins, range=(0.0, top if top > 0 else 1.0))
    return {"edges": edges, "counts": counts}


def stats(runtimes: np.ndarray) -> dict:
    mean = float(runtimes.mean())
    std = float(runtimes.std())
    return {"tasks": int(runtimes.size), "runtime_mean_s": mean, "runtime_std_s": std,
            "runtime_cov": std / mean if mean > 0 else 0.0,
            "runtime_max_s": float(runtimes.max()),
            "runtime_median_s": float(np.median(runtimes)),
            "useful_cpu_h": float(runtimes.sum()) / 3600.0}
