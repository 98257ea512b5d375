"""ETC (estimated time to compute) matrices by the COV method (ETC generation (ch. 4 spec §3.2))."""

from __future__ import annotations

import numpy as np

from simcore.sampling import gamma_mean_cov


def generate_etc(rng: np.random.Generator, nominal: np.ndarray, n_clusters: int,
                 task_cov: float, cluster_cov: float, mode: str = "text"
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``(etc, q)``: one row per task type with nominal mean ``nominal[k]``.

    ``q_k ~ Gamma(nominal_k, task_cov)`` is the type's reference time; cluster times are
    ``Gamma(q_k, cluster_cov)``. In ``text`` mode cluster 0 keeps ``q_k`` itself (ETC generation
    (ch. 4 spec §3.2) step 4); in ``classic`` mode every cluster is drawn.
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
