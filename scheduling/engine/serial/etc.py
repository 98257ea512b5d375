"""ETC (estimated time to compute) matrices: COV-method generation and heterogeneity checks."""

from __future__ import annotations

import numpy as np

from simcore.sampling import gamma_mean_cov

# Table 8 of the dissertation (Table I of the paper): minutes, task types 1-4 x clusters A-C.
TABLE8 = np.array([[50.0, 56.0, 37.0],
                   [43.0, 51.0, 85.0],
                   [12.0, 6.0, 23.0],
                   [51.0, 45.0, 96.0]])


def generate_etc(rng: np.random.Generator, nominal: np.ndarray, n_clusters: int,
                 task_cov: float, cluster_cov: float, mode: str = "text"
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``(etc, q)``: one row per task type with nominal mean ``nominal[k]``.

    ``q_k ~ Gamma(nominal_k, task_cov)`` is the type's reference time; cluster times are
    ``Gamma(q_k, cluster_cov)``. In ``text`` mode cluster 0 keeps ``q_k`` itself (spec §3.2
    step 4); in ``classic`` mode every cluster is drawn.
    """
    nominal = np.asarray(nominal, dtype=float)
    q = gamma_mean_cov(rng, nominal, task_cov)
    etc = gamma_mean_cov(rng, np.repeat(q[:, None], n_clusters, axis=1), cluster_cov)
    if mode == "text":
        etc[:, 0] = q
    elif mode != "classic":
        raise ValueError(f"unknown ETC mode {mode!r}")
    # A zero draw would make a task free; Gamma draws are > 0 but can underflow to 0.
    return np.maximum(etc, 1e-6), q


def fastest_cluster(etc) -> np.ndarray:
    """Index of the fastest cluster of every task type (lowest index on ties)."""
    return np.argmin(np.asarray(etc, dtype=float), axis=1)


def is_inconsistent(etc) -> bool:
    """True when no single cluster is fastest for every task type (inconsistent heterogeneity)."""
    return bool(np.unique(fastest_cluster(etc)).size > 1)


def is_consistent(etc) -> bool:
    """True when the clusters are totally ordered: one cluster order holds for every type."""
    etc = np.asarray(etc, dtype=float)
    order = np.argsort(etc[0], kind="stable")
    return bool(np.all(np.diff(etc[:, order], axis=1) >= 0))
