"""Helpers shared by the policies: tie-aware argmax, filtering thresholds (§4.7) and the
preemption rule (§4.6)."""

from __future__ import annotations

import numpy as np

NEG = -np.inf


def flat_argmax(arr: np.ndarray, view) -> int:
    """Index of the maximum of ``arr.ravel()``; ties per A20 (first, or uniform at random)."""
    i = int(arr.argmax())
    if view.tie_break == "random":
        flat = arr.ravel()
        ties = np.flatnonzero(flat == flat[i])
        if len(ties) > 1:
            i = int(ties[view.rng.integers(len(ties))])
    return i


def row_argmax(rows: np.ndarray, view) -> np.ndarray:
    """Per-row argmax of a 2-D array with the same tie rule."""
    best = rows.argmax(axis=1)
    if view.tie_break == "random":
        top = rows[np.arange(len(rows)), best]
        ties = rows == top[:, None]
        key = np.where(ties, view.rng.random(rows.shape), -1.0)
        best = key.argmax(axis=1)
    return best


def filter_threshold(view) -> np.ndarray:
    """Per-UAV VPE threshold T = tau x F with F = eps / delta (§4.7, A17).

    No started surveils (tau undefined) or delta = 0 gives T = 0, which keeps every option since
    every VPE is positive.
    """
    delta = view.delta
    F = np.divide(view.eps, delta, out=np.zeros_like(delta), where=delta > 0)
    if view.filter_base == "mean-vpe":
        n = view.n_started
        tau = np.divide(view.vpe_sum, n, out=np.zeros_like(view.vpe_sum), where=n > 0)
    else:
        used = view.energy_used
        tau = np.divide(view.value_earned, used, out=np.zeros_like(used), where=used > 0)
    return tau * np.maximum(F, 0.0)


def base_mask(view, filtering: bool, preemption: bool) -> np.ndarray:
    """Valid (u, s, t) combinations the policy may consider at this event, before locking."""
    ok_u = view.uav_ok
    ok_t = view.target_ok
    if not preemption:
        ok_u = ok_u & (view.run_t < 0)
        ok_t = ok_t & (view.run_u < 0)
    mask = view.valid & ok_u[:, None, None] & ok_t[None, :, None]
    if filtering:
        threshold = filter_threshold(view)
        vpe = view.VPE
        mask &= vpe > threshold[:, None, None]
    return mask


def running_scores(view, S_u: np.ndarray, S_t: np.ndarray, u_is_value: np.ndarray | bool,
                   t_is_value: bool):
    """Scores of the running surveils, to beat for preemption (§4.6, A18).

    ``S_u``/``S_t`` are the UAV-side and target-side score matrices; with the ``remaining``
    basis, value-type scores are scaled by the running surveil's unfinished fraction.
    """
    U = view.U
    cur_u = np.full(U, NEG)
    cur_t = np.full(view.T, NEG)
    busy = np.flatnonzero(view.run_t >= 0)
    if busy.size:
        t, s = view.run_t[busy], view.run_s[busy]
        su = S_u[busy, t, s]
        st = S_t[busy, t, s]
        if view.preemption_basis == "remaining":
            left = view.run_left[busy]
            uv = u_is_value[busy] if isinstance(u_is_value, np.ndarray) else u_is_value
            su = np.where(uv, su * left, su)
            if t_is_value:
                st = st * left
        cur_u[busy] = su
        cur_t[t] = st
    return cur_u, cur_t


class PreemptionChoices:
    """Scores of the combinations allowed under preemption (§4.6), kept current per assignment.

    A combination may replace running surveils only if it beats them: on the UAV side by
    ``S_u`` against the UAV's running surveil, on the target side by ``S_t`` against the
    target's (skipped when the target is the UAV's own). UAVs and targets assigned in this
    event are locked (A19). One assignment changes one row (the UAV it freed) and one column
    (the target it freed), so only those are recomputed.
    """

    def __init__(self, view, base, rank, S_u, S_t, u_is_value, t_is_value):
        self.base, self.rank, self.S_u, self.S_t = base, rank, S_u, S_t
        self.cur_u, self.cur_t = running_scores(view, S_u, S_t, u_is_value, t_is_value)
        self.locked_u = np.zeros(view.U, bool)
        self.locked_t = np.zeros(view.T, bool)
        allowed = base & (S_u > self.cur_u[:, None, None])
        own = view.run_u[None, :] == np.arange(view.U)[:, None]  # t is u's own target
        allowed &= (S_t > self.cur_t[None, :, None]) | own[:, :, None]
        self.scores = np.where(allowed, rank, NEG)

    def assigned(self, u: int, t: int, freed: tuple[int, int]) -> None:
        sc = self.scores
        self.locked_u[u] = True
        self.locked_t[t] = True
        sc[u] = NEG
        sc[:, t] = NEG
        fu, ft = freed
        if fu >= 0:
            self.cur_u[fu] = NEG
        if ft >= 0:
            self.cur_t[ft] = NEG
        if fu >= 0 and not self.locked_u[fu]:  # an idle UAV now: only target sides bind
            row = self.base[fu] & (self.S_t[fu] > self.cur_t[:, None])
            row &= ~self.locked_t[:, None]
            sc[fu] = np.where(row, self.rank[fu], NEG)
        if ft >= 0 and not self.locked_t[ft]:  # a free target now: only UAV sides bind
            col = self.base[:, ft] & (self.S_u[:, ft] > self.cur_u[:, None])
            col &= ~self.locked_u[:, None]
            sc[:, ft] = np.where(col, self.rank[:, ft], NEG)
