"""Scenario parameters of kind ``uav``: every default of spec ch5 (scenario generation
(ch. 5 spec §6), ambiguities and defaults (ch. 5 spec §10)) is a parameter.

Times in hours unless the name says otherwise; energy in normalized units (capacity <= 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from simcore.errors import ScenarioError
from simcore.params import group, param

from .model import EVENT_TYPES, SENSORS

KIND = "uav"

# What one run may ask for (checked at validation, so the CLI, the forms and the API refuse it
# naming the parameter; docs/uav.md "Limits and price"). Each bounds a count the run's time or
# memory grows with. The score matrices hold UAV slots x target slots (x 4 sensors), about 200
# bytes a slot pair at their peak, 235 with the geometry model (measured on a worker: +1.19 GB
# at 2,000 x 3,000), so a run at the slot cap peaks at about 1.85 GB of a worker process's
# memory, within the site's default per-run limit of 2,048 MB (HETSITE_RUN_MEMORY_MB;
# docs/reliability.md "Memory of a run"); 12,000,000 needed 2.3 GB. The UAV and target bounds
# (uavs_mean <= 2,000, targets_mean <= 5,000) are each allowed, not both at once; events that
# add UAVs and targets (E1, E5) cannot multiply past the cap.
MAX_MAPPING_EVENTS = 200_000
MAX_DYNAMIC_EVENTS = 200_000
MAX_SLOT_CELLS = 7_000_000
MAX_WINDOWS = 200_000


def beta_params(mean: float, sd: float) -> tuple[float, float]:
    """Beta(a, b) on [0, 1] with the given mean and sd (distribution parameters
    (ch. 5 spec §6.1))."""
    c = mean * (1 - mean) / (sd * sd) - 1
    return mean * c, (1 - mean) * c


def gamma_params(mean: float, cv: float) -> tuple[float, float]:
    """Gamma (shape k, scale theta) with mean and coefficient of variation (distribution parameters
    (ch. 5 spec §6.1))."""
    return 1.0 / (cv * cv), mean * cv * cv


def _check_beta(field: str, mean: float, cv: float) -> None:
    sd = mean * cv
    if mean * (1 - mean) <= sd * sd:
        limit = ((1 - mean) / mean) ** 0.5
        raise ScenarioError(field, f"a Beta with mean {mean:g} needs a coefficient of variation "
                                   f"< {limit:.4g}; got {cv:g}")


@dataclass(frozen=True)
class EventRates:
    """Baseline rates in events per day (spec Table 11), before ``event_multiplier``."""

    add_uav: float = param(1.0, unit="1/day", min=0, max=1000, advanced=True,
                           label="E1: add a UAV", help="E1: add a UAV")
    remove_uav: float = param(1.0, unit="1/day", min=0, max=1000, advanced=True,
                              label="E2: remove a UAV", help="E2: remove a UAV")
    remove_sensor: float = param(0.5, unit="1/day", min=0, max=1000, advanced=True,
                                 label="E3: remove a sensor",
                                 help="E3: remove a sensor from a UAV")
    modify_quality: float = param(0.5, unit="1/day", min=0, max=1000, advanced=True,
                                  label="E4: redraw sensor qualities",
                                  help="E4: redraw the qualities of all sensors of a UAV")
    add_target: float = param(2.0, unit="1/day", min=0, max=1000, advanced=True,
                              label="E5: add a target", help="E5: add a target")
    remove_target: float = param(2.0, unit="1/day", min=0, max=1000, advanced=True,
                                 label="E6: remove a target", help="E6: remove a target")
    change_priority: float = param(4.0, unit="1/day", min=0, max=1000, advanced=True,
                                   label="E7: redraw a priority",
                                   help="E7: redraw a target's priority")
    change_surveil_time: float = param(6.0, unit="1/day", min=0, max=1000, advanced=True,
                                       label="E8: redraw a surveil time",
                                       help="E8: redraw a target's surveillance time")
    add_sensor_type: float = param(6.0, unit="1/day", min=0, max=1000, advanced=True,
                                   label="E9: allow a sensor type",
                                   help="E9: allow one more sensor type for a target")
    remove_sensor_type: float = param(6.0, unit="1/day", min=0, max=1000, advanced=True,
                                      label="E10: disallow a sensor type",
                                      help="E10: disallow one sensor type of a target")
    modify_affinity: float = param(2.0, unit="1/day", min=0, max=1000, advanced=True,
                                   label="E11: redraw affinities",
                                   help="E11: redraw all affinities of a target")

    def by_code(self) -> dict[str, float]:
        return {code: getattr(self, name) for code, name, _ in EVENT_TYPES}


@dataclass(frozen=True)
class SensorSpec:
    type: str = param("VIS", choices=SENSORS, help="sensor type")
    rate: float = param(0.05, unit="1/h", min=0, max=1, min_exclusive=True,
                        help="energy used per hour while the sensor runs")
    quality: int = param(5, min=1, max=10, help="quality 1 (worst) .. 10 (best)")


@dataclass(frozen=True)
class FixedUav:
    energy_total: float = param(1.0, min=0, max=1, min_exclusive=True,
                                help="sensor energy capacity (normalized)")
    sensors: tuple[SensorSpec, ...] = group(lambda: (SensorSpec(),), min_items=1, max_items=4,
                                            help="at most one sensor of each type")

    def validate(self) -> None:
        types = [s.type for s in self.sensors]
        if len(set(types)) != len(types):
            raise ScenarioError("sensors", f"has duplicate sensor types {types}")


@dataclass(frozen=True)
class Affinity:
    type: str = param("VIS", choices=SENSORS, help="allowed sensor type")
    affinity: int = param(5, min=1, max=10, help="affinity 1 (worst) .. 10 (best)")


@dataclass(frozen=True)
class FixedTarget:
    priority: int = param(5, min=1, max=10, help="priority 1 .. 10")
    surveil_time: float = param(2.0, unit="h", min=0, max=24, min_exclusive=True,
                                help="duration of one complete surveil")
    allowed: tuple[Affinity, ...] = group(lambda: (Affinity(),), min_items=1, max_items=4,
                                          help="allowed sensor types with affinities")
    windows: list[list[float]] = param([[0.0, 24.0]], unit="h", min=0, max=24,
                                       help="surveillance windows [start, end) in hours")
    x_km: float = param(0.0, unit="km", min=0, help="position (geometry model only)")
    y_km: float = param(0.0, unit="km", min=0, help="position (geometry model only)")

    def validate(self) -> None:
        types = [a.type for a in self.allowed]
        if len(set(types)) != len(types):
            raise ScenarioError("allowed", f"has duplicate sensor types {types}")
        last = 0.0
        for i, w in enumerate(self.windows):
            if len(w) != 2 or not w[0] < w[1] or w[0] < last:
                raise ScenarioError(f"windows.{i}", "must be [start, end) with start < end, "
                                                    "sorted and not overlapping")
            last = w[1]


@dataclass(frozen=True)
class Geometry:
    """Optional positions, travel time and flight energy (beyond the dissertation; extensions
    (ch. 5 spec §9.3))."""

    enabled: bool = param(False, label="Geometry model",
                          help="model positions, travel time and flight energy")
    area_km: float = param(50.0, unit="km", advanced=True, min=0.1, max=10000,
                           help="targets are placed uniformly in a square of this side",
                           label="Side of the area")
    base_x_km: float = param(25.0, unit="km", advanced=True, min=0,
                             help="base position; UAVs start here", label="Base x")
    base_y_km: float = param(25.0, unit="km", advanced=True, min=0,
                             help="base position; UAVs start here", label="Base y")
    speed_kmh: float = param(100.0, unit="km/h", advanced=True, min=0, max=10000,
                             min_exclusive=True, help="cruise speed between targets",
                             label="Cruise speed")
    flight_energy_rate: float = param(0.02, unit="1/h", advanced=True, min=0, max=1,
                                      help="energy used per hour of flight, from the same "
                                           "budget as the sensors", label="Flight energy rate")


@dataclass(frozen=True)
class UavConfig:
    # -- population (initial population (ch. 5 spec §6.4), small scenario sets (ch. 5 spec §6.6),
    # large scenarios (ch. 5 spec §6.7)) --
    uavs_mean: float = param(9.0, min=0, max=2000, label="Mean number of UAVs λ_U",
                             help="initial UAV count ~ Poisson(λ_U)")
    targets_mean: float = param(14.0, min=0, max=5000, label="Mean number of targets λ_T",
                                help="initial target count ~ Poisson(λ_T)")
    # -- UAVs (generating a UAV (ch. 5 spec §6.2)) --
    energy_total_mean: float = param(0.8, min=0, max=1, min_exclusive=True, advanced=True,
                                     help="UAV energy capacity ~ Beta with this mean",
                                     label="Mean UAV energy capacity")
    energy_total_cv: float = param(0.15, min=0, max=5, min_exclusive=True, advanced=True,
                                   help="coefficient of variation of the UAV energy capacity",
                                   label="UAV energy capacity COV")
    energy_rate_mean: float = param(0.05, unit="1/h", min=0, max=1, min_exclusive=True,
                                    label="Mean sensor energy rate μ_e",
                                    help="sensor energy rate ~ Beta with this mean")
    energy_rate_cv: float = param(0.5, min=0, max=5, min_exclusive=True, advanced=True,
                                  help="coefficient of variation of the sensor energy rate "
                                       "(kept at 0.5 in the μ_e sweep, spec ch5 A24)",
                                  label="Sensor energy rate COV")
    sensor_count_scale: float = param(2.0, min=0, max=100, min_exclusive=True, advanced=True,
                                      help="#sensors per UAV ~ Rayleigh(scale), clamped to 1..4",
                                      label="Sensors per UAV: Rayleigh scale")
    sensor_count_rounding: str = param("floor", choices=("floor", "round"), advanced=True,
                                       help="how the Rayleigh draw becomes an integer "
                                            "(spec ch5 A1)", label="Sensors per UAV: rounding")
    sensor_type_weights: list[float] = param([0.5, 0.2, 0.2, 0.1], min=0, min_items=4,
                                             max_items=4, advanced=True,
                                             help="weights of VIS, SAR, IR, LIDAR when drawing "
                                                  "a UAV's sensor types without replacement",
                                             label="Sensor type weights")
    quality_mean: float = param(0.6, min=0, max=1, min_exclusive=True, advanced=True,
                                help="sensor quality = integerize(10 x Beta(mean, cv))",
                                label="Mean sensor quality")
    quality_cv: float = param(0.4, min=0, max=5, min_exclusive=True, advanced=True,
                              help="coefficient of variation of the quality Beta",
                              label="Sensor quality COV")
    integerize: str = param("floor", choices=("floor", "ceil"), advanced=True,
                            help="how a Beta x 10 or Gamma draw becomes an integer 1..10 "
                                 "(spec ch5 A2, A3)", label="Integer rounding")
    # -- targets (generating a target (ch. 5 spec §6.3)) --
    priority_mean: float = param(4.0, min=0, max=100, min_exclusive=True, advanced=True,
                                 help="priority = integerize(Gamma(mean, cv))",
                                 label="Mean target priority")
    priority_cv: float = param(0.6, min=0, max=10, min_exclusive=True,
                               label="Target priority COV",
                               help="spread of target priorities")
    affinity_mean: float = param(0.7, min=0, max=1, min_exclusive=True, advanced=True,
                                 help="sensor affinity = integerize(10 x Beta(mean, cv))",
                                 label="Mean sensor affinity")
    affinity_cv: float = param(0.3, min=0, max=5, min_exclusive=True, advanced=True,
                               help="coefficient of variation of the affinity Beta",
                               label="Sensor affinity COV")
    allowed_types_p: float = param(0.5, min=0, max=1, advanced=True,
                                   help="#allowed types per target = 1 + Binomial(3, p)",
                                   label="Allowed sensor types: probability p")
    surveil_time_min: float = param(1.0, unit="h", min=0, max=24, min_exclusive=True,
                                    advanced=True, help="surveil time ~ Uniform(min, max)",
                                    label="Shortest surveil time")
    surveil_time_max: float = param(3.0, unit="h", min=0, max=24, min_exclusive=True,
                                    advanced=True, help="surveil time ~ Uniform(min, max)",
                                    label="Longest surveil time")
    window_gap_mean: float = param(1.0, unit="h", min=0, max=24, min_exclusive=True,
                                   advanced=True,
                                   help="gap before each window ~ Exponential(mean)",
                                   label="Mean gap before a window")
    window_duration_mean: float = param(3.0, unit="h", min=0, max=24, min_exclusive=True,
                                        advanced=True, help="window length ~ Gamma(mean, cv)",
                                        label="Mean window length")
    window_duration_cv: float = param(0.2, min=0, max=10, min_exclusive=True, advanced=True,
                                      help="coefficient of variation of the window length",
                                      label="Window length COV")
    added_target_windows: str = param("from-add", choices=("from-add", "from-zero"),
                                      advanced=True,
                                      help="windows of targets added mid-day are generated "
                                           "from the add time, or from 0 and clipped "
                                           "(spec ch5 A8)", label="Windows of added targets")
    # -- dynamic events (ch. 5 spec §1.7, generating events (ch. 5 spec §6.5)) --
    event_multiplier: float = param(1.0, min=0, max=1000, label="Dynamic-event rate multiplier",
                                    help="scales every Table 11 rate; 0 = no dynamic events")
    event_rates: EventRates = group(EventRates, advanced=True,
                                    help="Table 11 rates in events per day",
                                    label="Dynamic-event rates (Table 11)")
    # -- simulation and policies --
    mapping_interval_min: float = param(5.0, unit="min", min=0, max=1440, min_exclusive=True,
                                        label="Mapping interval Δ",
                                        help="a mapping event every Δ minutes from t = 0")
    horizon_h: float = param(24.0, unit="h", min=0, max=24, min_exclusive=True, advanced=True,
                             help="length of the mission day (the spec uses 24 h)",
                             label="Mission day")
    one_surveil_per_window: bool = param(True, advanced=True,
                                         help="a window is worth one complete surveil; "
                                              "after it completes the target waits for its "
                                              "next window (off: unlimited repeats; "
                                              "spec ch5 A4)", label="One surveil per window")
    after_partial: str = param("continue", choices=("continue", "fresh"), advanced=True,
                               help="a surveil after a partial one in the same window "
                                    "continues the window's progress (needs only the rest of "
                                    "T_s), or is a fresh full-length one and the window is "
                                    "credited with its best surveil; either way a window "
                                    "earns at most one surveil's worth (spec ch5 A5)",
                               label="Surveil after a partial one")
    pacing_clock: str = param("day", choices=("day", "since-join"), advanced=True,
                              help="δ = t/24 for every UAV, or the fraction of the UAV's "
                                   "own remaining day since it joined (spec ch5 A16)",
                              label="Pacing clock δ")
    filter_base: str = param("mean-vpe", choices=("mean-vpe", "value-per-energy"),
                             advanced=True,
                             help="filtering τ = mean VPE of the UAV's started surveils, "
                                  "or its value earned / energy used so far (spec ch5 A17)",
                             label="Filtering threshold τ")
    preemption_basis: str = param("full", choices=("full", "remaining"), advanced=True,
                                  help="compare a challenger with the running surveil's "
                                       "full-surveil score, or with its remaining value "
                                       "(spec ch5 A18)", label="Preemption basis")
    tie_break: str = param("first", choices=("first", "random"), advanced=True,
                           help="ties in an argmax go to the lowest (UAV, target, sensor), "
                                "or are broken at random (spec ch5 A20)", label="Ties")
    compare_random: bool = param(True, advanced=True,
                                 help="also run Random on the same mission for value_vs_random",
                                 label="Also run Random")
    # -- fixed missions (hand-made examples such as spec Tables 9/10) --
    fixed_uavs: tuple[FixedUav, ...] = group(tuple, advanced=True,
                                             help="if given, the initial fleet (replaces λ_U)",
                                             label="Fixed fleet")
    fixed_targets: tuple[FixedTarget, ...] = group(tuple, advanced=True,
                                                   help="if given, the initial targets with "
                                                        "their windows (replaces λ_T)",
                                                   label="Fixed targets")
    geometry: Geometry = group(Geometry, help="optional positions and travel (off by default)",
                               label="Geometry")

    def validate(self) -> None:
        _check_beta("energy_total_cv", self.energy_total_mean, self.energy_total_cv)
        _check_beta("energy_rate_cv", self.energy_rate_mean, self.energy_rate_cv)
        _check_beta("quality_cv", self.quality_mean, self.quality_cv)
        _check_beta("affinity_cv", self.affinity_mean, self.affinity_cv)
        if self.surveil_time_min > self.surveil_time_max:
            raise ScenarioError("surveil_time_min", f"must be <= surveil_time_max "
                                                    f"({self.surveil_time_max:g}); "
                                                    f"got {self.surveil_time_min:g}")
        if sum(self.sensor_type_weights) <= 0:
            raise ScenarioError("sensor_type_weights", "needs at least one positive weight")
        if sum(w > 0 for w in self.sensor_type_weights) < 4:
            # Drawing without replacement must be able to pick all four types.
            raise ScenarioError("sensor_type_weights", "must all be > 0")
        if self.mapping_interval_min > self.horizon_h * 60:
            raise ScenarioError("mapping_interval_min",
                                f"must be <= the horizon ({self.horizon_h * 60:g} min)")
        self._check_size()
        g = self.geometry
        for name in ("base_x_km", "base_y_km"):
            if getattr(g, name) > g.area_km:
                raise ScenarioError(f"geometry.{name}", f"must be <= geometry.area_km "
                                                        f"({g.area_km:g})")
        for i, t in enumerate(self.fixed_targets):
            for j, w in enumerate(t.windows):
                if w[1] > self.horizon_h:
                    raise ScenarioError(f"fixed_targets.{i}.windows.{j}",
                                        f"must end <= horizon_h ({self.horizon_h:g})")
            if g.enabled and max(t.x_km, t.y_km) > g.area_km:
                raise ScenarioError(f"fixed_targets.{i}.x_km",
                                    f"must lie inside the area (<= {g.area_km:g} km)")

    # -- size: what a run's time and memory grow with (the price, ``uav.engine._cost``, and the
    # caps of ``_check_size``) ------------------------------------------------------------------
    def mapping_events(self) -> int:
        """Mapping events of a run: one every Δ minutes from t = 0 (as ``Simulator``)."""
        return math.ceil(self.horizon_h * 60.0 / self.mapping_interval_min - 1e-9)

    def dynamic_events(self) -> float:
        """Expected dynamic events of a run: every Table 11 rate x ``event_multiplier`` over
        the day."""
        return sum(self.event_rates.by_code().values()) * self.event_multiplier \
            * self.horizon_h / 24.0

    def slots(self) -> tuple[float, float]:
        """Expected UAV and target slots: the initial population (the fixed fleet and targets
        when given, else λ_U and λ_T) plus those E1/E5 add during the day. Every slot has a row
        of the score matrices from t = 0."""
        day = self.event_multiplier * self.horizon_h / 24.0
        uavs = len(self.fixed_uavs) if self.fixed_uavs else self.uavs_mean
        targets = len(self.fixed_targets) if self.fixed_targets else self.targets_mean
        return (uavs + self.event_rates.add_uav * day,
                targets + self.event_rates.add_target * day)

    def windows(self) -> float:
        """Expected surveillance windows: one every (gap + length) hours per drawn target,
        the fixed targets' own."""
        per_target = self.horizon_h / (self.window_gap_mean + self.window_duration_mean)
        fixed = sum(len(t.windows) for t in self.fixed_targets)
        drawn = self.slots()[1] - len(self.fixed_targets)
        return fixed + drawn * per_target

    def _check_size(self) -> None:
        # as a float first: an interval of 5e-324 min gives infinitely many
        events = self.horizon_h * 60.0 / self.mapping_interval_min
        if events > MAX_MAPPING_EVENTS:
            count = f"{self.mapping_events():,}" if math.isfinite(events) else "unboundedly many"
            raise ScenarioError("mapping_interval_min",
                                f"gives {count} mapping events over the {self.horizon_h:g} h "
                                f"day; at most {MAX_MAPPING_EVENTS:,} (Δ >= "
                                f"{self.horizon_h * 60.0 / MAX_MAPPING_EVENTS:.4g} min)")
        dynamic = self.dynamic_events()
        if dynamic > MAX_DYNAMIC_EVENTS:  # (the rates alone give at most 11 x 1,000 a day)
            raise ScenarioError("event_multiplier",
                                f"gives about {dynamic:,.0f} dynamic events (event_multiplier "
                                f"{self.event_multiplier:g} x the event rates, "
                                f"{sum(self.event_rates.by_code().values()):g} a day, over "
                                f"{self.horizon_h:g} h); at most {MAX_DYNAMIC_EVENTS:,}")
        uavs, targets = self.slots()
        if uavs * targets > MAX_SLOT_CELLS:
            raise ScenarioError(self._slot_field(uavs, targets),
                                f"gives about {uavs:,.0f} UAVs x {targets:,.0f} targets = "
                                f"{uavs * targets:,.0f} UAV-target pairs in the score matrices "
                                f"(the initial population plus what events E1 and E5 add); at "
                                f"most {MAX_SLOT_CELLS:,}")
        windows = self.windows()
        if windows > MAX_WINDOWS:
            raise ScenarioError("window_gap_mean",
                                f"gives about {windows:,.0f} surveillance windows (one every "
                                f"{self.window_gap_mean + self.window_duration_mean:g} h per "
                                f"target, window_gap_mean + window_duration_mean); at most "
                                f"{MAX_WINDOWS:,}")

    def _slot_field(self, uavs: float, targets: float) -> str:
        day = self.event_multiplier * self.horizon_h / 24.0
        added_u, added_t = self.event_rates.add_uav * day, self.event_rates.add_target * day
        if (uavs - added_u) * (targets - added_t) > MAX_SLOT_CELLS or added_u == added_t == 0:
            # the initial population alone is this large
            return "fixed_targets" if self.fixed_targets else "targets_mean"
        if self.event_multiplier > 1:
            return "event_multiplier"
        # the rate whose additions grow the product most
        return ("event_rates.add_target" if added_t * uavs >= added_u * targets
                else "event_rates.add_uav")
