"""Fast evaluation of a :class:`~..value.UtilityTable` when rows vary along one axis only.

``UtilityTable.value`` broadcasts the row index to the full output shape and gathers the
interval parameters per element. The ch4 hot paths evaluate (tasks x clusters) and
(tasks x partners) grids where the utility function depends on one axis only, so here the
parameters are gathered on the short axis and the interval is selected with a few arithmetic
passes (no fancy indexing on the grid). Results equal ``UtilityTable.value`` with urgency 1
(tested).
"""

from __future__ import annotations

import numpy as np

from simcore.value import UtilityTable


class FastUtility:
    def __init__(self, table: UtilityTable):
        n = table.n_intervals
        self.J = int(n.max()) if n.size else 1
        J = self.J
        # Interval starts; missing intervals start "never" (a finite sentinel keeps the
        # arithmetic free of inf - inf).
        self.start = np.minimum(table.bounds[:, :J], 1e300)
        # log U at an interval's start (per unit scale) and its decay rate.
        self.log0 = np.where(np.arange(J) < n[:, None],
                             table.cum_logjump[:, :J] - table.cum_decay[:, :J], 0.0)
        self.rate = table.rates[:, :J].copy()
        self.end = table.end.copy()
        self.closed = table.closed.copy()

    def value(self, rows, scale, x) -> np.ndarray:
        """U(x) for ``rows``/``scale`` broadcastable against ``x`` (urgency 1)."""
        rows = np.asarray(rows, dtype=np.int64)
        x = np.maximum(np.asarray(x, dtype=float), 0.0)
        start = self.start[rows]
        log0 = self.log0[rows]
        rate = self.rate[rows]
        arg = log0[..., 0] - rate[..., 0] * x
        for k in range(1, self.J):
            s_k = start[..., k]
            arg = np.where(x >= s_k, log0[..., k] - rate[..., k] * (x - s_k), arg)
        end = self.end[rows]
        alive = np.where(self.closed[rows], x <= end, x < end)
        return np.where(alive, np.asarray(scale, dtype=float) * np.exp(arg), 0.0)
