"""Helpers shared by the policies: tie-aware argmax, filtering thresholds (ch. 5 spec §4.7) and
the preemption rule (ch. 5 spec §4.6)."""

from __future__ import annotations

import numpy as np

NEG = -np.inf


def flat_argmax(arr: np.ndarray, view) -> int:
    """Index of the maximum of ``arr.ravel()``; ties as the scenario says
    (first, or uniform at random; ties in argmax (ch. 5 spec A20))."""
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
    """Per-UAV VPE threshold T = tau x F with F = epsilon / delta (filtering (ch. 5 spec §4.7); tau
    as the scenario's filter_base says, filtering threshold and cold start (ch. 5 spec A17)).

    No started surveils (tau undefined) or delta = 0 gives T = 0, which keeps every option since
    every VPE is positive.
    """
    delta = view.day_elapsed
    F = np.divide(view.energy_spent, delta, out=np.zeros_like(delta), where=delta > 0)
    if view.filter_base == "mean-vpe":
        n = view.n_started
        tau = np.divide(view.vpe_sum, n, out=np.zeros_like(view.vpe_sum), where=n > 0)
    else:
        used = view.energy_used
        tau = np.divide(view.value_earned, used, out=np.zeros_like(used), where=used > 0)
    return tau * np.maximum(F, 0.0)


def event_threshold(view) -> np.ndarray:
    """:func:`filter_threshold` at this event, worked out once: the mask and, when the run
    explains itself, the decisions' numbers read it (energy spent changes only between
    events)."""
    found = getattr(view, "_filter_threshold", None)
    if found is None:
        found = view._filter_threshold = filter_threshold(view)
    return found


def base_mask(view, filtering: bool, preemption: bool) -> np.ndarray:
    """Valid (u, s, t) combinations the policy may consider at this event, before locking."""
    ok_u = view.uav_ok
    ok_t = view.target_ok
    if not preemption:
        ok_u = ok_u & (view.running_target < 0)
        ok_t = ok_t & (view.running_uav < 0)
    mask = view.valid & ok_u[:, None, None] & ok_t[None, :, None]
    if filtering:
        threshold = event_threshold(view)
        vpe = view.VPE
        mask &= vpe > threshold[:, None, None]
    return mask


def running_scores(view, uav_side: np.ndarray, target_side: np.ndarray,
                   u_is_value: np.ndarray | bool, t_is_value: bool):
    """Scores of the running surveils, to beat for preemption (ch. 5 spec §4.6; the comparison
    basis, preemption comparison basis (ch. 5 spec A18)): per UAV and per target, the score of the
    surveil it runs (-inf when idle).

    ``uav_side``/``target_side`` are the UAV-side and target-side score matrices; with the
    ``remaining`` basis, value-type scores are scaled by the running surveil's unfinished
    fraction.
    """
    per_uav = np.full(view.n_uavs, NEG)
    per_target = np.full(view.n_targets, NEG)
    busy = np.flatnonzero(view.running_target >= 0)
    if busy.size:
        t, s = view.running_target[busy], view.running_sensor[busy]
        su = uav_side[busy, t, s]
        st = target_side[busy, t, s]
        if view.preemption_basis == "remaining":
            left = view.running_remaining[busy]
            uv = u_is_value[busy] if isinstance(u_is_value, np.ndarray) else u_is_value
            su = np.where(uv, su * left, su)
            if t_is_value:
                st = st * left
        per_uav[busy] = su
        per_target[t] = st
    return per_uav, per_target


class PreemptionChoices:
    """Scores of the combinations allowed under preemption (ch. 5 spec §4.6), kept current per
    assignment.

    A combination may replace running surveils only if it beats them: on the UAV side by
    ``uav_side`` against the UAV's running surveil, on the target side by ``target_side``
    against the target's (skipped when the target is the UAV's own). UAVs and targets assigned
    in this event are locked (no re-preemption within one mapping event, re-preemption in one event
    (ch. 5 spec A19)). One assignment changes one row (the UAV it freed) and one column (the target
    it freed), so only those are recomputed. ``scores`` holds ``rank`` where allowed, -inf
    elsewhere.
    """

    def __init__(self, view, base, rank, uav_side, target_side, u_is_value, t_is_value):
        self.base, self.rank = base, rank
        self.uav_side, self.target_side = uav_side, target_side
        self.running_uav_side, self.running_target_side = running_scores(
            view, uav_side, target_side, u_is_value, t_is_value)
        self.locked_u = np.zeros(view.n_uavs, bool)
        self.locked_t = np.zeros(view.n_targets, bool)
        allowed = base & (uav_side > self.running_uav_side[:, None, None])
        own = view.running_uav[None, :] == np.arange(view.n_uavs)[:, None]  # t is u's own target
        allowed &= (target_side > self.running_target_side[None, :, None]) | own[:, :, None]
        self.scores = np.where(allowed, rank, NEG)

    def assigned(self, u: int, t: int, freed: tuple[int, int]) -> None:
        sc = self.scores
        to_beat_u, to_beat_t = self.running_uav_side, self.running_target_side
        self.locked_u[u] = True
        self.locked_t[t] = True
        sc[u] = NEG
        sc[:, t] = NEG
        fu, ft = freed
        if fu >= 0:
            to_beat_u[fu] = NEG
        if ft >= 0:
            to_beat_t[ft] = NEG
        if fu >= 0 and not self.locked_u[fu]:  # an idle UAV now: only target sides bind
            row = self.base[fu] & (self.target_side[fu] > to_beat_t[:, None])
            row &= ~self.locked_t[:, None]
            sc[fu] = np.where(row, self.rank[fu], NEG)
        if ft >= 0 and not self.locked_t[ft]:  # a free target now: only UAV sides bind
            col = self.base[:, ft] & (self.uav_side[:, ft] > to_beat_u[:, None])
            col &= ~self.locked_u[:, None]
            sc[:, ft] = np.where(col, self.rank[:, ft], NEG)
