"""The numbers behind a UAV run's decisions (``--explain``; ``simcore.decisions``).

Only runs that explain themselves call these: a policy asks for its choice's score and the
runner-up's just before it starts a surveil, and the simulator asks, after each mapping event,
why every eligible target that got no surveil got none. Nothing here changes what a policy
does: the helpers read the score arrays and put back anything they touch.
"""

from __future__ import annotations

import numpy as np

from ..model import SENSORS
from .common import NEG, filter_threshold


def option(u: int, t: int, s: int) -> str:
    """A (UAV, target, sensor) combination as the stories print it (1-based ids, as the
    result's tables)."""
    return f"UAV {u + 1} on target {t + 1} ({SENSORS[s]})"


def second_best(flat: np.ndarray, i: int) -> int:
    """Index of the best entry of the 1-D ``flat`` other than ``i``, or -1 if none is left
    (every other is -inf)."""
    kept = flat[i]
    flat[i] = NEG
    j = int(flat.argmax())
    flat[i] = kept
    return j if j != i and flat[j] > NEG else -1


def greedy_choice(view, options: np.ndarray, i: int, score: str) -> dict:
    """Why a greedy policy picked flat option ``i`` of ``options`` (UAV x target x sensor):
    its score and the runner-up's (the best option it passed over at that moment)."""
    n_targets, n_sensors = options.shape[1], options.shape[2]
    flat = options.reshape(-1)
    why = {"reason": f"the highest {score} of the options left", "score_name": score,
           "score": float(flat[i])}
    j = second_best(flat, i)
    if j >= 0:
        u, rest = divmod(j, n_targets * n_sensors)
        t, s = divmod(rest, n_sensors)
        why["runner_up"] = option(u, t, s)
        why["runner_up_score"] = float(flat[j])
    return why


def meta_choice(view, cand: np.ndarray, best: np.ndarray, u: int, value_mode: bool,
                mode_score: float) -> dict:
    """Why the Metaheuristic started UAV ``u``'s proposal: the UAV's pace (the fraction of its
    day elapsed against the fraction of its energy spent) chose the metric of its proposal, and
    of all UAVs' proposals it had the highest value; the runner-up is the next UAV's."""
    n_sensors = view.V.shape[2]
    why = {"reason": ("behind its energy pace, its UAV proposed its highest-value option; the "
                      "highest value of all proposals") if value_mode else
                     ("on or ahead of its energy pace, its UAV proposed its highest "
                      "value-per-energy option; the highest value of all proposals"),
           "day_elapsed": float(view.day_elapsed[u]), "energy_spent": float(view.energy_spent[u]),
           "score_name": "V" if value_mode else "VPE", "mode_score": float(mode_score),
           "score": float(cand[u])}
    v = second_best(cand, u)
    if v >= 0:
        t, s = divmod(int(best[v]), n_sensors)
        why["runner_up"] = option(v, t, s)
        why["runner_up_score"] = float(cand[v])
    return why


def with_filter(view, why: dict, u: int, t: int, s: int) -> dict:
    """Add the filter's numbers: the option's value per energy and its UAV's threshold."""
    threshold = getattr(view, "_filter_threshold", None)
    if threshold is None:  # the same for the whole event: energy spent changes between events
        threshold = view._filter_threshold = filter_threshold(view)
    why["vpe"] = float(view.VPE[u, t, s])
    why["filter_threshold"] = float(threshold[u])
    return why


def with_preemption(why: dict, choices, u: int, t: int, uav_side: float,
                    target_side: float) -> dict:
    """What the new surveil must beat on each side it preempts (its UAV's running surveil, its
    target's), read before ``choices`` is updated; the simulator copies them onto the
    preempted surveils' decisions."""
    beat = {}
    if choices.running_uav_side[u] > NEG:
        beat["uav"] = (float(choices.running_uav_side[u]), float(uav_side))
    if choices.running_target_side[t] > NEG:
        beat["target"] = (float(choices.running_target_side[t]), float(target_side))
    if beat:
        why["beats"] = beat
    return why


def waiting_targets(view, filtering: bool, preemption: bool):
    """After a mapping event, why each eligible target without a surveil has none: yields
    ``(target, action, reason, numbers)``.

    In order: no UAV with energy left carries a sensor the target allows; (filtering) every
    idle UAV that could surveil it scores it at or below its own filter threshold; every UAV
    that could surveil it is busy (with preemption: with a surveil the target's options did not
    outscore); otherwise the policy passed it over.
    """
    waiting = np.flatnonzero(view.target_ok & (view.running_uav < 0))
    if not waiting.size:
        return
    valid = view.valid[:, waiting, :]
    capable = valid.any(axis=2) & view.uav_ok[:, None]  # UAV x waiting target
    idle = view.running_target < 0
    if filtering:
        threshold = filter_threshold(view)
        vpe = np.where(valid, view.VPE[:, waiting, :], NEG).max(axis=2)
    busy_reason = ("every UAV that could surveil it is busy with a surveil it did not outscore"
                   if preemption else "every UAV that could surveil it is busy")
    for c, t in enumerate(waiting.tolist()):
        can = capable[:, c]
        n_can = int(can.sum())
        if n_can == 0:
            yield t, "held", "no UAV with energy left carries a sensor it allows", {}
            continue
        free = can & idle
        if filtering and free.any():
            passing = free & (vpe[:, c] > threshold)
            if not passing.any():
                u = int(np.where(free, vpe[:, c], NEG).argmax())
                yield t, "filtered", ("every idle UAV that could surveil it scores it at or "
                                      "below its own filter threshold"), {
                    "uav": u + 1, "vpe": float(vpe[u, c]), "filter_threshold": float(threshold[u]),
                    "idle_capable": int(free.sum())}
                continue
        if not free.any():
            yield t, "held", busy_reason, {"capable": n_can}
            continue
        yield t, "held", "passed over at this mapping event", {"idle_capable": int(free.sum())}
