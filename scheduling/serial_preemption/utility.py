"""The three utility families of ch4 as rows of a shared :class:`~..value.UtilityTable`.

Time is minutes since arrival; the scale of a row is applied per task (S = 8 for critical, 1 for
non-critical tasks), so rows depend only on the task type (and, for the classes, the class).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore.sampling import rng as make_rng
from simcore.value import Shape, UtilityTable, step

from .config import UtilityParams


@dataclass(frozen=True)
class UtilityClass:
    """A stand-in for one of the 20 classes of Khemka et al. (20 utility classes (ch. 4 spec §5.4),
    the 20 utility classes (ch. 4 spec A8))."""

    lead_in: float  # flat lead-in as a fraction a_c of E_k (0 = none)
    lengths: tuple[float, ...]  # decay intervals, minutes
    rates: tuple[float, ...]  # per minute
    jumps: tuple[float, ...]  # factor applied when entering interval 2, 3, ...

    def shape(self, avg_time: float, after_average: bool = False) -> Shape:
        # after_average: flat for at least E_k, as the chapter builds its other two families
        lead = (max(1.0, self.lead_in) if after_average else self.lead_in) * avg_time
        if lead > 0:
            return Shape((lead,) + self.lengths, (0.0,) + self.rates, (1.0,) + self.jumps)
        return Shape(self.lengths, self.rates, self.jumps)

    def public(self) -> dict:
        return {"lead_in_x_avg": self.lead_in, "lengths_min": list(self.lengths),
                "rates_per_min": list(self.rates), "jumps": list(self.jumps)}


def generate_classes(p: UtilityParams) -> list[UtilityClass]:
    """The class table: one fixed seed, shared by every trial and heuristic."""
    gen = make_rng(p.classes_seed, "ch4-utility-classes")
    out = []
    for _ in range(p.n_classes):
        has_lead = gen.random() < p.lead_in_prob
        a = float(gen.uniform(0.0, p.lead_in_max))
        n = int(gen.integers(p.intervals_min, p.intervals_max + 1))
        lengths = tuple(float(x) for x in gen.uniform(p.interval_min, p.interval_max, n))
        rates = tuple(float(x) for x in gen.uniform(p.rate_min, p.rate_max, n))
        jumps = tuple(float(x) for x in gen.uniform(p.jump_min, p.jump_max, n - 1))
        out.append(UtilityClass(a if has_lead else 0.0, lengths, rates, jumps))
    return out


def family_shapes(p: UtilityParams, avg_time: np.ndarray, critical_type: np.ndarray,
                  classes: list[UtilityClass] | None) -> list[Shape]:
    """Rows of the table: one per type (step, decay) or per (class, type) (classes).

    Row of a task: ``type`` for step/decay, ``class * n_types + type`` for classes.
    """
    avg = [float(x) for x in avg_time]
    if p.family == "step":
        return [step(e if crit else p.step_noncritical_factor * e)
                for e, crit in zip(avg, critical_type, strict=True)]
    if p.family == "decay":
        rate = p.urgency / p.urgency_time_unit_min
        return [Shape((e, p.decay_length_min), (0.0, rate), closed=True) for e in avg]
    if p.family == "classes":
        after = p.class_start == "after-average"
        return [c.shape(e, after) for c in classes for e in avg]
    raise ValueError(f"unknown utility family {p.family!r}")


def build_table(p: UtilityParams, avg_time: np.ndarray, critical_type: np.ndarray
                ) -> tuple[UtilityTable, list[UtilityClass] | None]:
    classes = generate_classes(p) if p.family == "classes" else None
    return UtilityTable(family_shapes(p, avg_time, critical_type, classes)), classes
