"""The numbers behind a UAV run's decisions (``--explain``; ``simcore.decisions``).

Only runs that explain themselves call these: a policy asks for its choice's score and the
runner-up's just before it starts a surveil, and the simulator asks, after each mapping event,
why every eligible target that got no surveil got none. Nothing here changes what a policy
does: the helpers read the score arrays and put back anything they touch.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..model import SENSORS
from .common import NEG, event_threshold


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
    found = flat[j] > NEG
    flat[i] = kept
    return j if found else -1


def greedy_choice(options: np.ndarray, u: int, t: int, s: int, score: str) -> dict:
    """Why a greedy policy picked option (u, t, s) of ``options`` (UAV x target x sensor, the
    scores it chose among): its score, and the runner-up's: the best option this choice ruled
    out (the same UAV elsewhere, or another UAV on the same target). Searching only those keeps
    the trace's cost per start to one row and one column of the scores."""
    why = {"reason": f"the highest {score} of the options left", "score_name": score,
           "score": float(options[u, t, s])}
    n_sensors = options.shape[2]
    row, col = options[u].reshape(-1), options[:, t, :]
    kept = options[u, t, s]
    options[u, t, s] = NEG
    i, j = int(row.argmax()), int(col.argmax())
    by_row, by_col = row[i], col.flat[j]
    options[u, t, s] = kept
    if by_row >= by_col and by_row > NEG:
        t2, s2 = divmod(i, n_sensors)
        why["runner_up"], why["runner_up_score"] = option(u, t2, s2), float(by_row)
    elif by_col > NEG:
        u2, s2 = divmod(j, n_sensors)
        why["runner_up"], why["runner_up_score"] = option(u2, t, s2), float(by_col)
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
    why["vpe"] = float(view.VPE[u, t, s])
    why["filter_threshold"] = float(event_threshold(view)[u])
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


# Why an eligible target got no surveil at a mapping event, in the order they are tested:
# (action, reason); the busy reason depends on whether the policy preempts (``cause``).
NO_UAV, BUSY, FILTERED, PASSED = range(4)
CAUSES = (
    ("held", "no UAV with energy left carries a sensor it allows"),
    ("held", "every UAV that could surveil it is busy"),
    ("filtered", "every idle UAV that could surveil it scores it at or below its own filter "
                 "threshold"),
    ("held", "passed over at this mapping event"),
)
BUSY_PREEMPTING = ("held", "every UAV that could surveil it is busy with a surveil it did not "
                           "outscore")


_POW2 = np.left_shift(np.uint64(1), np.arange(63, dtype=np.uint64))


class Folded(NamedTuple):
    """What the waiting targets' causes read from one version of the scores
    (:func:`sensors_folded`)."""

    valid_any: np.ndarray  # UAV x target: some sensor makes a valid combination
    best_vpe: np.ndarray  # UAV x target: the best value per energy over those (NEG: none)
    valid_cols: list[int]  # per target, :func:`bits` of its column of ``valid_any``


def bits(mask: np.ndarray) -> int:
    """A 1-D bool mask as an int whose bit ``i`` is ``mask[i]``. The causes are worked out on
    these: at each event a few targets against a few UAVs, where Python's int operations cost
    a fraction of a numpy call on a small array."""
    return int.from_bytes(np.packbits(mask, bitorder="little").tobytes(), "little")


def column_bits(mask: np.ndarray) -> list[int]:
    """:func:`bits` of every column of a 2-D bool mask (UAV x target), in one pass: a product
    with the powers of two up to 63 UAVs (1.5 µs on 8 x 13, where packing took 3.8 µs)."""
    if mask.shape[0] <= _POW2.size:
        return (_POW2[:mask.shape[0]] @ mask).tolist()
    packed = np.ascontiguousarray(np.packbits(mask, axis=0, bitorder="little").T)
    raw, width = packed.tobytes(), packed.shape[1]
    return [int.from_bytes(raw[i:i + width], "little") for i in range(0, len(raw), width)]


def waiting_causes(view, waiting: list[int], filtering: bool, folded: Folded) -> list[int]:
    """Why each target of ``waiting`` (eligible, without a surveil; slots in increasing order)
    got no surveil at this event: its index in :data:`CAUSES`, in the same order.

    No UAV with energy left can surveil it; or every UAV that could is busy; or (filtering) no
    idle one that could scores it above its own threshold; else the policy passed it over
    (the policies leave none so: they start something for every target an idle UAV can take).
    This runs at every mapping event that changed something; ``folded`` is
    :func:`sensors_folded` of this event's scores.
    """
    idle = bits(view.running_target < 0)
    # per waiting target, the UAVs with energy left that carry a sensor it allows (the
    # columns' bits come with the fold: one int operation a target here, where selecting the
    # columns and packing them cost about 7 µs an event)
    ok, columns = bits(view.uav_ok), folded.valid_cols
    capable = [columns[t] & ok for t in waiting]
    codes, free = [], []  # free: the positions with an idle UAV that could take the target
    for can in capable:
        if not can:
            codes.append(NO_UAV)
        elif not can & idle:
            codes.append(BUSY)
        else:
            free.append(len(codes))
            codes.append(PASSED)
    if filtering and free:
        # every target's column at once: selecting the free ones' first costs more than it saves
        above = column_bits(folded.best_vpe > event_threshold(view)[:, None])
        for i in free:
            if not capable[i] & idle & above[waiting[i]]:
                codes[i] = FILTERED
    return codes


def sensors_folded(view) -> Folded:
    """Per (UAV, target): whether some sensor makes a valid combination, and the best value
    per energy over those (NEG for none); they change only with the scores.

    Folded one sensor slice at a time: numpy reduces a short last axis (a few sensors) about
    ten times slower than it combines whole slices."""
    valid = view.valid
    masked = np.where(valid, view.VPE, NEG)
    any_valid, best = valid[..., 0].copy(), masked[..., 0].copy()
    for s in range(1, valid.shape[2]):
        any_valid |= valid[..., s]
        np.maximum(best, masked[..., s], out=best)
    return Folded(any_valid, best, column_bits(any_valid))


def cause(code: int, preemption: bool) -> tuple[str, str]:
    """The (action, reason) of a code of :func:`waiting_causes`."""
    return BUSY_PREEMPTING if code == BUSY and preemption else CAUSES[code]


def cause_numbers(view, t: int, code: int, folded: Folded) -> dict:
    """The numbers behind target ``t``'s cause (a code of :func:`waiting_causes`): how many
    UAVs could surveil it (and are idle); filtered: the idle one that scores it best, its value
    per energy and its threshold. Worked out only for a target whose cause changed."""
    can = view.uav_ok & folded.valid_any[:, t]
    free = can & (view.running_target < 0)
    out = {"capable": int(can.sum()), "idle_capable": int(free.sum())}
    if code == FILTERED:
        threshold = event_threshold(view)
        best = int(np.where(free, folded.best_vpe[:, t], NEG).argmax())
        out.update(uav=best + 1, vpe=float(folded.best_vpe[best, t]),
                   filter_threshold=float(threshold[best]))
    return out
