"""The Value of Service model (value model (ch. 2 spec §3)): task value, Table 3 weights, usage
periods and the per-resource metrics the Max VPTR family ranks by (ch. 2 spec §7.1).
"""

from __future__ import annotations

import numpy as np

from simcore.value import soft_hard

from .config import PERIODS, ValueParams


def weight_table(v: ValueParams) -> np.ndarray:
    """Table 3 as an array ``[category, period, (w_p, w_e)]``."""
    rows = [(v.regular_wp, v.regular_we), (v.performance_wp, v.performance_we),
            (v.energy_wp, v.energy_we)]
    return np.array([[[wp[p], we[p]] for p in range(len(PERIODS))] for wp, we in rows],
                    dtype=float)


def period_of_hour(hour, v: ValueParams) -> np.ndarray:
    """Table 3 usage period (0 low, 1 medium, 2 high) of a time of day in hours."""
    h = np.mod(np.asarray(hour, dtype=float), 24.0)
    return np.where(h < v.low_end_h, 0,
                    np.where((h >= v.high_start_h) & (h < v.high_end_h), 2, 1)).astype(np.int64)


def task_value(resp, energy, p_soft, p_hard, vp_min, e_soft, e_hard, ve_min, gamma, w_p, w_e):
    """Eq. 2 with Eq. 1 components: ``(V, v_p, v_e)``, V = 0 when either component is 0.

    ``resp`` is the response time (completion - arrival, value function (ch. 2 spec §3.1) [DEFAULT])
    and ``energy`` the task's energy; v_max is 1 for both functions (stated workload facts
    (ch. 2 spec §5.1)). Everything broadcasts.
    """
    v_p = soft_hard(resp, p_soft, p_hard, vp_min, 1.0)
    v_e = soft_hard(energy, e_soft, e_hard, ve_min, 1.0)
    value = np.where((v_p > 0.0) & (v_e > 0.0), gamma * (w_p * v_p + w_e * v_e), 0.0)
    return value, v_p, v_e


# The Max VPTR family (ch. 2 spec §7.1) ranks by value / cost, each heuristic with its own cost of
# an assignment: ``cost(etc, cores, memory, tr)`` with ``tr`` Eq. 4's total resources.
METRICS = {
    "vptr": ("value per total resource", lambda etc, c, m, tr: tr),
    "value": ("value", lambda etc, c, m, tr: np.ones_like(etc)),
    "vpt": ("value per unit of execution time", lambda etc, c, m, tr: etc),
    "vpcr": ("value per core-minute", lambda etc, c, m, tr: etc * c),
    "vpmr": ("value per GB-minute of memory", lambda etc, c, m, tr: etc * m),
}
