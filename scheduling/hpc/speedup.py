"""Speedup models of parallel jobs shared by the kinds.

Downey's model (A. B. Downey, "A model for speedup of parallel programs", 1997) describes a job
by its average parallelism ``A`` and the variance of its parallelism ``sigma``. The high-variance
form (``sigma >= 1``) is what the dissertation uses for ETC in chapter 3 (Downey parallel speedup
(ch. 3 spec §2.9)).
"""

from __future__ import annotations

import numpy as np


def downey_time(n, a, sigma) -> np.ndarray:
    """Relative time T(n) of Downey's high-variance model; T(1) = A(1 + sigma)."""
    n = np.asarray(n, dtype=float)
    a = np.asarray(a, dtype=float)
    sigma = np.asarray(sigma, dtype=float)
    limit = a + a * sigma - sigma  # maximum parallelism
    return np.where(n <= limit, sigma + limit / n, sigma + 1.0)


def downey_speedup(n, a, sigma) -> np.ndarray:
    """Downey's closed form S(n) = nA(σ+1) / (σ(n+A-1) + A), capped at A."""
    n = np.asarray(n, dtype=float)
    limit = a + a * sigma - sigma
    s = n * a * (sigma + 1.0) / (sigma * (n + a - 1.0) + a)
    return np.where(n <= limit, s, a)
