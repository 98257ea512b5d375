"""Execution time (ETC), power (APC) and energy of every (task, cluster, P-state) option.

ETC comes from Downey's high-variance speedup model (Downey parallel speedup (ch. 3 spec §2.9))
evaluated at the task's node count, or, in ``table`` mode, from the model sampled at powers of two
with linear interpolation between the listed node counts (ETC and APC data (ch. 3 spec §1.3)). APC
is per node, so a task's energy is ``ETC x APC x nodes`` (energy of a task (ch. 3 spec §1.4), APC is
per node (ch. 3 spec A2)).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from scheduling.hpc.speedup import downey_time
from simcore.value import UtilityTable

from .system import System
from .workload import HOUR, Tasks, TaskTypes


def interpolate_table(table: Mapping[int, float], n) -> np.ndarray:
    """Linear interpolation in an ETC table {node count: time} (ETC and APC data (ch. 3 spec §1.3),
    Table 2)."""
    counts = np.array(sorted(table), dtype=float)
    times = np.array([table[k] for k in sorted(table)], dtype=float)
    return np.interp(np.asarray(n, dtype=float), counts, times)


def _relative_time(nodes, a, sigma, mode: str) -> np.ndarray:
    """T(n)/T(1) per task-cluster entry; ``table`` mode samples at 1, 2, 4, ... and interpolates."""
    t1 = downey_time(1.0, a, sigma)
    if mode == "downey":
        return downey_time(nodes, a, sigma) / t1
    lo = np.floor(np.log2(np.maximum(nodes, 1))).astype(np.int64)
    n_lo = 2.0 ** lo
    n_hi = 2.0 * n_lo
    t_lo = downey_time(n_lo, a, sigma)
    t_hi = downey_time(n_hi, a, sigma)
    frac = (nodes - n_lo) / (n_hi - n_lo)
    return (t_lo + frac * (t_hi - t_lo)) / t1


@dataclass
class Options:
    """Static data of every (task, cluster, P-state) allocation option; inf where ineligible."""

    nodes: np.ndarray  # (T, C) int: nodes needed on each cluster
    eligible: np.ndarray  # (T, C) bool: type may run there and it fits
    duration: np.ndarray  # (T, C, P) seconds
    node_power: np.ndarray  # (T, C, P) APC in W per node
    power: np.ndarray  # (T, C, P) W for the whole allocation
    energy: np.ndarray  # (T, C, P) J
    resources: np.ndarray  # (T, C, P) core-seconds allocated (Eq. 1)
    t_min: np.ndarray  # (T,) fastest execution time over eligible options
    cores_per_node: np.ndarray  # (C,)

    @property
    def shape(self):
        return self.duration.shape

    @cached_property
    def eligible_clusters(self) -> list[list[int]]:
        """Per task, the indices of its eligible clusters (plain lists for scalar loops)."""
        cols = np.nonzero(self.eligible)[1].tolist()
        ends = np.cumsum(self.eligible.sum(axis=1)).tolist()
        return [cols[a:b] for a, b in zip([0] + ends[:-1], ends, strict=True)]


def build_options(types: TaskTypes, tasks: Tasks, system: System, etc_mode: str) -> Options:
    y = tasks.type
    cpn = system.cores_per_node
    nodes = np.ceil(tasks.cores[:, None] / cpn[None, :]).astype(np.int64)  # (T, C)
    eligible = types.eligible[y] & (nodes <= system.nodes[None, :])
    if tasks.fixed_time is not None:
        # Trace jobs: their own P-state-0 time per cluster; P-states scale it by tm_p / tm_0.
        tm = types.time_mult[y]
        base = np.where(np.isnan(tasks.fixed_time), np.inf, tasks.fixed_time)
        duration = base[:, :, None] * tm / tm[:, :, :1]
    else:
        rel = _relative_time(nodes.astype(float), types.downey_a[y], types.sigma[y][:, None],
                             etc_mode)
        duration = (types.t_single[y] * rel)[:, :, None] * types.time_mult[y]
    duration = np.where(eligible[:, :, None], duration, np.inf)
    node_power = types.base_power[y][:, :, None] * types.power_mult[y]
    node_power = np.where(eligible[:, :, None], node_power, np.inf)
    power = node_power * nodes[:, :, None]
    energy = np.where(eligible[:, :, None], duration * power, np.inf)
    resources = np.where(eligible[:, :, None],
                         duration * (nodes * cpn[None, :])[:, :, None], np.inf)
    t_min = duration.reshape(len(y), duration.shape[1] * duration.shape[2]).min(
        axis=1, initial=np.inf)
    return Options(nodes, eligible, duration, node_power, power, energy, resources, t_min,
                   cpn.copy())


class TaskUtility:
    """U(completion) per task: piecewise exponential in lateness beyond arrival + T_min (utility
    function (ch. 3 spec §2.3))."""

    def __init__(self, table: UtilityTable, tasks: Tasks, types: TaskTypes, t_min: np.ndarray,
                 time_unit_h: float, time_axis: str = "unit", time_unit_tmin: float = 1.0):
        self.table = table
        self.cls = tasks.utility_class
        self.scale = types.priority[tasks.type]
        self.urgency = types.urgency[tasks.type]
        self.offset = tasks.arrival + t_min  # completion time that earns the full priority
        # Seconds per class time unit, per task: one global unit, or (ch. 3 spec A4's (urgency's
        # time unit) alternative) the task's own T_min times a factor, so a long task's class
        # stretches with its length.
        if time_axis == "t_min":
            unit = np.maximum(time_unit_tmin * t_min, 1e-9)
        else:
            unit = np.full(tasks.n, time_unit_h * HOUR)
        self.inv_unit = 1.0 / unit
        # Python lists for the scalar path in the heuristics' inner loops.
        self._cls = self.cls.tolist()
        self._scale = self.scale.tolist()
        self._urg = self.urgency.tolist()
        self._off = self.offset.tolist()
        self._inv = self.inv_unit.tolist()

    def value(self, task, finish) -> np.ndarray:
        task = np.asarray(task, dtype=np.int64)
        x = (np.asarray(finish, float) - self.offset[task]) * self.inv_unit[task]
        return self.table.value(self.cls[task], self.scale[task], self.urgency[task], x)

    def ceiling(self, task: int) -> float:
        """The most ``task`` can earn: U falls from its scale (rates, urgency >= 0, jumps <= 1)."""
        return max(self._scale[task], 0.0)

    def value1(self, task: int, finish: float) -> float:
        return self.table.value1(self._cls[task], self._scale[task], self._urg[task],
                                 (finish - self._off[task]) * self._inv[task])

    def describe(self) -> list[dict]:
        return self.table.table()


class DecayUtility:
    """Testbed utility (testbed workload and flow (ch. 3 spec §8.3), testbed arrivals and decay
    (ch. 3 spec A35)): full value until ``start x T_min`` after arrival, then a linear decay to 0
    over ``length x T_min`` (or a step to 0)."""

    def __init__(self, tasks: Tasks, t_min: np.ndarray, start: float, length: float,
                 shape: str):
        self.scale = np.asarray(tasks.priority, dtype=float)
        self.begin = tasks.arrival + start * t_min
        self.length = np.maximum(length * t_min, 1e-9)
        self.step = shape == "step"
        self._scale, self._begin = self.scale.tolist(), self.begin.tolist()
        self._length = self.length.tolist()
        self._spec = {"shape": shape, "start_x_tmin": start, "length_x_tmin": length}

    def value(self, task, finish) -> np.ndarray:
        task = np.asarray(task, dtype=np.int64)
        late = np.asarray(finish, float) - self.begin[task]
        if self.step:
            return np.where(late <= 0.0, self.scale[task], 0.0)
        return self.scale[task] * np.clip(1.0 - late / self.length[task], 0.0, 1.0)

    def ceiling(self, task: int) -> float:
        """The most ``task`` can earn: its full value."""
        return max(self._scale[task], 0.0)

    def value1(self, task: int, finish: float) -> float:
        late = finish - self._begin[task]
        if late <= 0.0:
            return self._scale[task]
        if self.step or late >= self._length[task]:
            return 0.0
        return self._scale[task] * (1.0 - late / self._length[task])

    def describe(self) -> list[dict]:
        return [self._spec]
