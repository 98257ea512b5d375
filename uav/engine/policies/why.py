"""The numbers behind a UAV run's decisions (``--explain``; ``simcore.decisions``).

Only runs that explain themselves call these: a policy asks for its choice's score and the
runner-up's just before it starts a surveil, and the simulator asks, after each mapping event,
why every eligible target that got no surveil got none. Nothing here changes what a policy
does: the helpers read the score arrays and put back anything they touch.
"""

from __future__ import annotations

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
           "score": options.item(u, t, s)}
    n_sensors = options.shape[2]
    row, col = options[u].reshape(-1), options[:, t, :]
    kept = why["score"]
    options[u, t, s] = NEG
    i, j = int(row.argmax()), int(col.argmax())
    # (``item``: a Python float, where indexing makes a numpy scalar that compares slower)
    by_row, by_col = row.item(i), col.item(j)
    options[u, t, s] = kept
    if by_row >= by_col and by_row > NEG:
        t2, s2 = divmod(i, n_sensors)
        why["runner_up"], why["runner_up_score"] = option(u, t2, s2), by_row
    elif by_col > NEG:
        u2, s2 = divmod(j, n_sensors)
        why["runner_up"], why["runner_up_score"] = option(u2, t, s2), by_col
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
           "day_elapsed": view.day_elapsed.item(u), "energy_spent": view.energy_spent.item(u),
           # ``score`` is what all proposals were compared on (their value); ``mode_score``
           # is what the UAV's mode chose its proposal by
           "score_name": "V", "score": cand.item(u),
           "mode_score_name": "V" if value_mode else "VPE", "mode_score": float(mode_score)}
    v = second_best(cand, u)
    if v >= 0:
        t, s = divmod(int(best[v]), n_sensors)
        why["runner_up"] = option(v, t, s)
        why["runner_up_score"] = cand.item(v)
    return why


def with_filter(view, why: dict, u: int, t: int, s: int) -> dict:
    """Add the filter's numbers: the option's value per energy and its UAV's threshold."""
    why["vpe"] = view.VPE.item(u, t, s)
    why["filter_threshold"] = event_threshold(view).item(u)
    return why


def with_preemption(why: dict, choices, u: int, t: int, uav_side: float,
                    target_side: float, names: tuple[str, str]) -> dict:
    """What the new surveil must beat on each side it preempts (its UAV's running surveil, its
    target's), read before ``choices`` is updated, with the metric of each side (``names``:
    the UAV side's and the target side's; the Metaheuristic compares a UAV's surveils in its
    mode's metric and a target's in value); the simulator copies them onto the preempted
    surveils' decisions."""
    beat = {}
    if choices.running_uav_side[u] > NEG:
        beat["uav"] = (float(choices.running_uav_side[u]), float(uav_side), names[0])
    if choices.running_target_side[t] > NEG:
        beat["target"] = (float(choices.running_target_side[t]), float(target_side), names[1])
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


def byte_mask(mask: np.ndarray) -> int:
    """A 1-D bool mask as an int whose byte ``i`` is ``mask[i]`` (0 or 1): the array's own
    bytes, read at once. The causes are worked out on these: at each event a few targets
    against a few UAVs, where Python's int operations (``&``, ``bit_count``) cost a fraction
    of a numpy call on a small array, and reading the bytes a fraction of packing bits."""
    return int.from_bytes(mask.tobytes(), "little")


def column_masks(mask: np.ndarray) -> list[int]:
    """:func:`byte_mask` of each column of a 2-D bool mask (UAV x target), from one copy of
    its transpose."""
    raw, width = mask.T.tobytes(), mask.shape[0]
    return [int.from_bytes(raw[i:i + width], "little") for i in range(0, len(raw), width)]


# Scores of at most this many (UAV, target, sensor) entries are folded for every target at
# once: a fold's cost there is its dozen numpy calls (about 25 µs), not the data, and folding
# the waiting targets only would fold again as other targets start to wait (small-baseline:
# 39 folds a day where 22 versions of the scores need 22).
WHOLE_FOLD = 8192


class Folded:
    """What the waiting targets' causes read from one version of the scores, folded over the
    sensors for the targets asked about, as they are first asked about (:meth:`need`).

    Only a few targets wait at an event (about 6 of 156 on the large preset), and the scores
    change at most events there: folding every target's column at each change cost about
    200 µs, a quarter of the trace's cost on large (35 ms of about 140 ms a run)."""

    def __init__(self, version: int):
        self.version = version  # the scores' version (``Simulator.scores_version``)
        #: per target, :func:`byte_mask` of the UAVs for which some sensor makes it valid
        self.capable: dict[int, int] = {}
        #: per target, each UAV's best value per energy over its valid sensors (NEG: none);
        #: filled only for a policy that filters, the one reader
        self.best_vpe: dict[int, np.ndarray] = {}

    def need(self, view, targets: list[int], filtering: bool) -> None:
        """Fold the sensor axis for the ``targets`` not folded yet. One sensor slice at a
        time: numpy reduces a short last axis (a few sensors) about ten times slower than it
        combines whole slices."""
        missing = [t for t in targets if t not in self.capable]
        if not missing:
            return
        if view.valid.size <= WHOLE_FOLD:  # (nothing folded yet: the whole fold is done once)
            missing, valid, vpe = range(view.n_targets), view.valid, view.VPE
        else:  # (copies: UAV x missing target x sensor)
            valid, vpe = view.valid[:, missing, :], view.VPE[:, missing, :]
        any_valid = valid[..., 0].copy()
        for s in range(1, valid.shape[2]):
            any_valid |= valid[..., s]
        self.capable.update(zip(missing, column_masks(any_valid), strict=True))
        if filtering:
            masked = np.where(valid, vpe, NEG)
            best = masked[..., 0].copy()
            for s in range(1, valid.shape[2]):
                np.maximum(best, masked[..., s], out=best)
            self.best_vpe.update(zip(missing, best.T, strict=True))


def waiting_causes(view, waiting: list[int], filtering: bool, folded: Folded, ok: int,
                   idle: int) -> list[int]:
    """Why each target of ``waiting`` (eligible, without a surveil; slots in increasing order)
    got no surveil at this event: its index in :data:`CAUSES`, in the same order. ``ok`` and
    ``idle`` are :func:`byte_mask` of the UAVs with energy left and of the idle ones;
    ``folded`` holds this event's scores.

    No UAV with energy left can surveil it; or every UAV that could is busy; or (filtering) no
    idle one that could scores it above its own threshold; else the policy passed it over
    (the policies leave none so: they start something for every target an idle UAV can take).
    This runs at every mapping event that changed something.
    """
    folded.need(view, waiting, filtering)
    columns = folded.capable
    codes, free = [], []  # free: the targets with an idle UAV that could take them
    for t in waiting:
        can = columns[t] & ok
        if not can:
            codes.append(NO_UAV)
        elif not can & idle:
            codes.append(BUSY)
        else:
            free.append((len(codes), t, can & idle))
            codes.append(PASSED)
    if filtering and free:
        threshold = event_threshold(view)
        for i, t, idle_can in free:
            if not idle_can & byte_mask(folded.best_vpe[t] > threshold):
                codes[i] = FILTERED
    return codes


def cause(code: int, preemption: bool) -> tuple[str, str]:
    """The (action, reason) of a code of :func:`waiting_causes`."""
    return BUSY_PREEMPTING if code == BUSY and preemption else CAUSES[code]


def cause_numbers(view, t: int, code: int, folded: Folded, ok: int, idle: int) -> dict:
    """The numbers behind target ``t``'s cause (a code of :func:`waiting_causes`, whose
    arguments these are): how many UAVs could surveil it (and are idle); filtered: the idle one
    that scores it best, its value per energy and its threshold. Worked out only for a target
    whose cause changed."""
    can = folded.capable[t] & ok
    free = can & idle
    out = {"capable": can.bit_count(), "idle_capable": free.bit_count()}
    if code == FILTERED:
        best_vpe = folded.best_vpe[t]
        free_uavs = np.frombuffer(free.to_bytes(view.n_uavs, "little"), dtype=bool)
        best = int(np.where(free_uavs, best_vpe, NEG).argmax())
        out.update(uav=best + 1, vpe=best_vpe.item(best),
                   filter_threshold=event_threshold(view).item(best))
    return out
