"""The pre-resolved mission: initial fleet and targets, hidden windows, timestamped events.

Every random choice of a scenario is fixed here before any policy runs (entities and state
(ch. 5 spec §5.1)), so all policies see the identical mission for a seed. Times are hours from the
start of the day.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SENSORS = ("VIS", "SAR", "IR", "LIDAR")
N_SENSORS = len(SENSORS)
SENSOR_INDEX = {name: i for i, name in enumerate(SENSORS)}

# Dynamic event types of dynamic events (ch. 5 spec §1.7), in Table 11 order: (code, config field,
# label).
EVENT_TYPES = (
    ("E1", "add_uav", "add a UAV"),
    ("E2", "remove_uav", "remove a UAV"),
    ("E3", "remove_sensor", "remove a sensor from a UAV"),
    ("E4", "modify_quality", "modify sensor qualities of a UAV"),
    ("E5", "add_target", "add a target"),
    ("E6", "remove_target", "remove a target"),
    ("E7", "change_priority", "change the priority of a target"),
    ("E8", "change_surveil_time", "change the surveillance time of a target"),
    ("E9", "add_sensor_type", "add an allowed sensor type to a target"),
    ("E10", "remove_sensor_type", "remove an allowed sensor type from a target"),
    ("E11", "modify_affinity", "modify sensor affinities of a target"),
)


@dataclass
class UavSpec:
    """A UAV as generated: sensors map a type index to (energy rate per hour, quality)."""

    id: int
    energy_total: float
    sensors: dict[int, tuple[float, int]]
    joined: float = 0.0
    x: float | None = None
    y: float | None = None

    def describe(self) -> str:
        return ", ".join(f"{SENSORS[s]} q{q} {r:.3f}/h"
                         for s, (r, q) in sorted(self.sensors.items()))


@dataclass
class TargetSpec:
    """A target as generated: ``allowed`` maps a type index to its affinity."""

    id: int
    priority: int
    surveil_time: float
    allowed: dict[int, int]
    windows: list[tuple[float, float]]
    joined: float = 0.0
    x: float | None = None
    y: float | None = None

    def describe(self) -> str:
        return ", ".join(f"{SENSORS[s]} a{a}" for s, a in sorted(self.allowed.items()))


@dataclass
class DynamicEvent:
    """One resolved change. ``kind`` is an EVENT_TYPES code (E1-E11); ``effect`` says what it does.

    effect: ``"add"``, ``"remove"``, ``"update"`` or ``"none"`` (nothing present to act on, or
    E9 on a target that already allows every type). E3/E10 that delete the last sensor/type
    carry ``effect="remove"`` and are applied as a removal of the whole UAV/target.
    """

    time: float
    kind: str
    uav: int | None = None
    target: int | None = None
    effect: str = "update"
    sensor: int | None = None
    new_uav: UavSpec | None = None
    new_target: TargetSpec | None = None
    values: dict[int, int] = field(default_factory=dict)  # qualities / affinities by type
    number: float | None = None  # new priority or surveil time; new affinity for E9

    def detail(self) -> str:
        if self.effect == "none":
            return "no effect"
        if self.kind == "E1" and self.new_uav:
            return f"UAV {self.new_uav.id}: E={self.new_uav.energy_total:.3f}, " \
                   + self.new_uav.describe()
        if self.kind == "E5" and self.new_target:
            t = self.new_target
            return f"target {t.id}: priority {t.priority}, Ts {t.surveil_time:.2f} h, " \
                   + t.describe()
        if self.effect == "remove":
            return "removed" if self.sensor is None else f"{SENSORS[self.sensor]} was the last one"
        if self.kind in ("E3", "E10"):
            return f"{SENSORS[self.sensor]} removed"
        if self.kind == "E9":
            return f"{SENSORS[self.sensor]} allowed, affinity {int(self.number)}"
        if self.kind in ("E4", "E11"):
            return ", ".join(f"{SENSORS[s]} {v}" for s, v in sorted(self.values.items()))
        if self.kind == "E7":
            return f"priority {int(self.number)}"
        if self.kind == "E8":
            return f"surveil time {self.number:.2f} h"
        return ""


@dataclass
class Mission:
    """Everything the simulator needs; windows and events are hidden from the policies."""

    horizon: float
    uavs: list[UavSpec]  # every UAV of the day: initial ones first, then those added by E1
    targets: list[TargetSpec]
    events: list[DynamicEvent]
    base: tuple[float, float] | None = None  # geometry model only
