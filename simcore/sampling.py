"""Random streams and samplers shared by the workload generators (pure numpy).

* :func:`rng`: the named, independent random stream of a seed (common random numbers).

* :func:`gamma_mean_cov`: Gamma draws parameterised by mean and coefficient of variation, as in
  the COV method of Ali et al. for ETC matrices.
* :func:`normal_mean_cov`: Gaussian draws by mean and COV, redrawn until they fall inside bounds
  (the seeds' "resample if below the maximum").
* :func:`sinusoidal_nhpp`: event times of many independent non-homogeneous Poisson processes
  with rates ``mean * (1 + amplitude * sin(2 pi cycles t / period - phase))``, by thinning.
* :func:`sinusoidal_times`: a fixed number of arrival times whose density follows the sinusoidal
  rate (an NHPP conditioned on its number of events).
* :func:`uniform_int_around`: integers uniform on ``[ceil(m - s m), floor(m + s m)]``.
* :func:`integer_split`: integer sizes with a fixed total (largest-remainder rounding).
"""

from __future__ import annotations

import hashlib
import math

import numpy as np


def rng(seed: int, stream: str) -> np.random.Generator:
    """An independent random stream per purpose.

    Workload generation and policy decisions draw from different streams, so every policy sees
    the same workload for the same seed (common random numbers) and a policy's own draws never
    shift the workload.
    """
    digest = int.from_bytes(hashlib.sha256(stream.encode()).digest()[:8], "little")
    return np.random.default_rng(np.random.SeedSequence([int(seed), digest]))


def gamma_mean_cov(rng: np.random.Generator, mean, cov: float, size=None) -> np.ndarray:
    """Gamma with the given mean and COV: shape ``1/cov^2``, scale ``mean * cov^2``.

    ``cov = 0`` returns ``mean`` itself (a degenerate distribution), which keeps callers free of
    special cases when heterogeneity is switched off.
    """
    mean = np.asarray(mean, dtype=float)
    if size is None:
        size = mean.shape
    if cov <= 0:
        return np.broadcast_to(mean, size).astype(float)
    shape = 1.0 / (cov * cov)
    return rng.gamma(shape, mean * cov * cov, size=size)


def normal_mean_cov(rng: np.random.Generator, mean, cov: float, lo=None, hi=None,
                    lo_open: bool = False, max_rounds: int = 1000) -> np.ndarray:
    """Gaussian draws with the given mean and COV (sd = cov x mean), one per entry of ``mean``,
    each redrawn until it lies in ``[lo, hi]`` (``(lo, hi]`` with ``lo_open``).

    ``lo``/``hi`` broadcast against ``mean`` (None: unbounded). Redrawing keeps the shape of the
    distribution inside the bounds (a truncated Gaussian); after ``max_rounds`` rounds the few
    draws still outside (bounds far in a tail) are clipped into them, so the call always ends.
    """
    mean = np.atleast_1d(np.asarray(mean, dtype=float))
    sd = np.abs(mean) * float(cov)
    lo_arr = np.broadcast_to(-np.inf if lo is None else np.asarray(lo, dtype=float), mean.shape)
    hi_arr = np.broadcast_to(np.inf if hi is None else np.asarray(hi, dtype=float), mean.shape)

    def outside(x, idx):
        below = x <= lo_arr[idx] if lo_open else x < lo_arr[idx]
        return below | (x > hi_arr[idx])

    out = rng.normal(mean, sd)
    bad = np.flatnonzero(outside(out, np.arange(mean.size)))
    for _ in range(max_rounds):
        if bad.size == 0:
            return out
        out[bad] = rng.normal(mean[bad], sd[bad])
        bad = bad[outside(out[bad], bad)]
    if bad.size:
        floor = np.where(np.isfinite(lo_arr[bad]), lo_arr[bad], out[bad])
        if lo_open:
            floor = np.nextafter(floor, np.inf)
        out[bad] = np.minimum(np.maximum(out[bad], floor), hi_arr[bad])
    return out


def sinusoidal_rate(t, mean, amplitude, cycles, phase, period: float = 1440.0) -> np.ndarray:
    """``mean * (1 + amplitude * sin(2 pi cycles t / period - phase))`` (vectorized)."""
    t = np.asarray(t, dtype=float)
    return mean * (1.0 + amplitude * np.sin(2.0 * math.pi * cycles * t / period - phase))


def sinusoidal_nhpp(rng: np.random.Generator, mean, amplitude, cycles, phase, t0: float,
                    t1: float, period: float = 1440.0) -> tuple[np.ndarray, np.ndarray]:
    """Event times of one NHPP per entry of the (equal-length) parameter arrays, by thinning.

    Lewis-Shedler thinning with ``rate_max = mean * (1 + amplitude)``: draw a homogeneous
    process at ``rate_max`` on ``[t0, t1)``, keep each point with probability
    ``rate(t) / rate_max``. Returns ``(times, process index)`` sorted by time, then index, so
    the output is deterministic for a given generator state.
    """
    mean = np.atleast_1d(np.asarray(mean, dtype=float))
    amplitude = np.broadcast_to(np.asarray(amplitude, dtype=float), mean.shape)
    cycles = np.broadcast_to(np.asarray(cycles, dtype=float), mean.shape)
    phase = np.broadcast_to(np.asarray(phase, dtype=float), mean.shape)
    if np.any(amplitude < 0) or np.any(amplitude > 1):
        raise ValueError("amplitude must lie in [0, 1] so the rate stays non-negative")
    rate_max = mean * (1.0 + amplitude)
    counts = rng.poisson(rate_max * (t1 - t0))
    owner = np.repeat(np.arange(mean.size), counts)
    times = rng.uniform(t0, t1, size=owner.size)
    rate = sinusoidal_rate(times, mean[owner], amplitude[owner], cycles[owner], phase[owner],
                           period)
    with np.errstate(invalid="ignore", divide="ignore"):
        keep = rng.random(owner.size) * rate_max[owner] < rate
    times, owner = times[keep], owner[keep]
    order = np.lexsort((owner, times))
    return times[order], owner[order]


def sinusoidal_times(rng: np.random.Generator, n: int, amplitude: float, cycles: float,
                     phase: float, t0: float, t1: float, period: float = 1440.0) -> np.ndarray:
    """``n`` sorted arrival times on ``[t0, t1)`` whose density is proportional to
    :func:`sinusoidal_rate` (mean 1): the event times of that NHPP given that it has ``n``
    events, drawn by rejection in batches."""
    if not 0 <= amplitude <= 1:
        raise ValueError("amplitude must lie in [0, 1] so the rate stays non-negative")
    out = np.empty(0)
    while out.size < n:
        want = n - out.size
        batch = max(16, int(want * (1.0 + amplitude) * 1.2))
        times = rng.uniform(t0, t1, size=batch)
        rate = sinusoidal_rate(times, 1.0, amplitude, cycles, phase, period)
        keep = rng.random(batch) * (1.0 + amplitude) < rate
        out = np.concatenate((out, times[keep][:want]))
    return np.sort(out)


def uniform_int_bounds(mean: float, spread: float = 0.5) -> tuple[int, int]:
    """``(ceil(mean - spread*mean), floor(mean + spread*mean))``, at least 1 and lo <= hi."""
    lo = max(1, math.ceil(mean - spread * mean - 1e-9))
    hi = max(lo, math.floor(mean + spread * mean + 1e-9))
    return lo, hi


def uniform_int_around(rng: np.random.Generator, mean: float, spread: float = 0.5,
                       size=None) -> np.ndarray:
    """Integers uniform on :func:`uniform_int_bounds` (inclusive); B=64 gives 32..96."""
    lo, hi = uniform_int_bounds(mean, spread)
    return rng.integers(lo, hi + 1, size=size)


def integer_split(weights, total: int, minimum: int = 0) -> np.ndarray:
    """Integers proportional to ``weights``, each >= ``minimum``, summing exactly to ``total``.

    Largest-remainder rounding of the share above the minimum; ties go to the lower index.
    """
    w = np.asarray(weights, dtype=float)
    n = w.size
    spare = total - minimum * n
    if spare < 0:
        raise ValueError("total is smaller than n * minimum")
    if w.sum() <= 0:
        w = np.ones(n)
    share = spare * w / w.sum()
    base = np.floor(share).astype(np.int64)
    left = int(spare - base.sum())
    order = np.lexsort((np.arange(n), -(share - base)))
    base[order[:left]] += 1
    return base + minimum
