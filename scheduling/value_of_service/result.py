"""Turn a finished run into the ``value-of-service`` :class:`Result` (system VoS (ch. 2 spec §3.3),
experiments (ch. 2 spec §8))."""

from __future__ import annotations

import math

import numpy as np

from simcore.accounting import cumulative_per_minute, overlap
from simcore.clock import RunClock
from simcore.result import Result

from .config import CATEGORIES, PERIODS, VosConfig
from .model import task_value, weight_table
from .sim import COMMITTED, DROPPED, STATUS_NAMES, RunRecord, VosSim
from .workload import Workload

# Part of every result (its "speedup model" note): kept word for word, so results stay
# byte-identical, although the function now lives in scheduling.hpc.speedup.
DOWNEY_FORM = ("closed form S(n) = nA(σ+1) / (σ(n+A-1) + A) for n <= A + Aσ - σ, else A "
               "(simcore.speedup.downey_speedup); the simplified T(n) = σ + (A + Aσ - σ)/n "
               "of a later chapter gives the same S(n) = T(1)/T(n)")


def window(cfg: VosConfig) -> tuple[float, float]:
    r = cfg.scheduler
    return r.warmup_h * 60.0, r.duration_h * 60.0


def maximum(wl: Workload, cfg: VosConfig) -> dict:
    """The maximum-VoS bound (simulation experiment (ch. 2 spec §8.1)): every task starts on arrival
    with both its fastest configuration's time and its least-energy configuration's energy (usually
    from different configurations). Returns per-task bound components."""
    t_best = np.nanmin(np.where(np.isfinite(wl.etc), wl.etc, np.nan), axis=1)[wl.type]
    e_best = np.nanmin(np.where(np.isfinite(wl.eec), wl.eec, np.nan), axis=1)[wl.type]
    e_best = e_best * wl.energy_noise  # any configuration's realised energy scales alike
    value, v_p, v_e = task_value(t_best, e_best, wl.p_soft, wl.p_hard, wl.vp_min, wl.e_soft,
                                 wl.e_hard, wl.ve_min, wl.gamma, wl.w_p, wl.w_e)
    earns = value > 0.0
    return {"vos": value, "perf": np.where(earns, wl.gamma * wl.w_p * v_p, 0.0),
            "energy": np.where(earns, wl.gamma * wl.w_e * v_e, 0.0),
            "perf_raw": wl.gamma * wl.w_p * v_p, "energy_raw": wl.gamma * wl.w_e * v_e}


def arrived_in_window(arrival, w0: float, w1: float) -> np.ndarray:
    """The tasks the summary counts (``tasks_total``): those arriving in the window."""
    arrival = np.asarray(arrival, dtype=float)
    return (arrival >= w0) & (arrival < w1)


def started_in_run(status, start, w1: float) -> np.ndarray:
    """The tasks that started: committed (``COMMITTED``, "started or reserved") with a start
    before the run's end ``w1``. A permanent reservation booked at or past the end gives its
    task a start time, yet the task never starts in the run (``tasks_never_started`` counts it);
    a task with no start (nan) never started."""
    status = np.asarray(status)
    start = np.asarray(start, dtype=float)
    return (status == COMMITTED) & (start < w1)


def task_fates(tasks: dict, window_min) -> dict[str, np.ndarray]:
    """How the summary counts each row of a result's task table (its JSON lists): ``counted``
    (arrived in the window), ``started`` (in the run), ``dropped``, ``reserved_past_end`` (booked
    to start at or after the end) and ``never_started`` (neither started nor dropped), so that
    ``counted & never_started`` is ``tasks_never_started`` and ``counted & dropped`` is
    ``tasks_dropped``."""
    w0, w1 = (float(v) for v in window_min)
    status = np.asarray(tasks.get("status", []), dtype=np.int64)
    start = np.asarray(tasks.get("start", []), dtype=float)  # (numpy reads None as nan)
    started = started_in_run(status, start, w1)
    dropped = status == DROPPED
    return {"counted": arrived_in_window(tasks.get("arrival", []), w0, w1),
            "started": started, "dropped": dropped,
            "reserved_past_end": (status == COMMITTED) & ~started,
            "never_started": ~started & ~dropped}


def credits(sim: VosSim, cfg: VosConfig) -> dict:
    """Per task: the share of its execution inside the window and the value credited there."""
    wl = sim.wl
    w0, w1 = window(cfg)
    ran = started_in_run(sim.status, sim.start, w1)
    start = np.where(ran, sim.start, 0.0)
    end = np.where(ran, sim.end, 0.0)
    length = np.where(ran, end - start, 1.0)
    frac = np.where(ran, overlap(start, end, w0, w1) / length, 0.0)
    earns = sim.value > 0.0
    return {
        "ran": ran, "frac": frac,
        "vos": sim.value * frac,
        "perf": np.where(earns, wl.gamma * wl.w_p * sim.v_p, 0.0) * frac,
        "energy": np.where(earns, wl.gamma * wl.w_e * sim.v_e, 0.0) * frac,
        "perf_raw": wl.gamma * wl.w_p * sim.v_p * frac,
        "energy_raw": wl.gamma * wl.w_e * sim.v_e * frac,
    }


def _pct(num: float, den: float) -> float:
    return 100.0 * num / den if den > 0 else 0.0


def summary(rec: RunRecord, cfg: VosConfig) -> dict:
    sim, wl = rec.sim, rec.sim.wl
    w0, w1 = window(cfg)
    got = credits(sim, cfg)
    bound = maximum(wl, cfg)
    in_window = arrived_in_window(wl.arrival, w0, w1)
    population = in_window if cfg.scheduler.max_vos_tasks == "window-arrivals" else \
        np.ones(wl.n_tasks, dtype=bool)
    vos, perf, energy = (float(got[k].sum()) for k in ("vos", "perf", "energy"))
    max_vos, max_perf, max_energy = (float(bound[k][population].sum())
                                     for k in ("vos", "perf", "energy"))
    done = got["ran"] & (sim.end >= w0) & (sim.end <= w1)
    realised = sim.wl.eec[wl.type, np.maximum(sim.config, 0)] * wl.energy_noise
    ev = rec.events
    t_ev = np.asarray(ev["t_min"])
    inside = (t_ev >= w0) & (t_ev < w1)
    cores = np.asarray(ev["cores_busy"], float)[inside]
    memory = np.asarray(ev["memory_used"], float)[inside]
    return {
        "vos": vos,
        "max_vos": max_vos,
        "pct_max_vos": _pct(vos, max_vos),
        "perf_value": perf,
        "max_perf_value": max_perf,
        "pct_max_perf_value": _pct(perf, max_perf),
        "energy_value": energy,
        "max_energy_value": max_energy,
        "pct_max_energy_value": _pct(energy, max_energy),
        # The halves counted over every task that ran, also those whose other half was 0 (so
        # they earned no VoS): the other reading of "total performance value" (testbed experiment
        # (ch. 2 spec §8.2)).
        "pct_max_perf_value_raw": _pct(float(got["perf_raw"].sum()),
                                       float(bound["perf_raw"][population].sum())),
        "pct_max_energy_value_raw": _pct(float(got["energy_raw"].sum()),
                                         float(bound["energy_raw"][population].sum())),
        "max_vos_window_arrivals": float(bound["vos"][in_window].sum()),
        "max_vos_all_arrivals": float(bound["vos"].sum()),
        "exec_time_ks": float(np.sum(np.where(done, sim.end - sim.start, 0.0))) * 60.0 / 1e3,
        "energy_mj": float(np.sum(np.where(done, realised, 0.0))) / 1e6,
        "tasks_total": int(np.count_nonzero(in_window)),
        "tasks_completed": int(np.count_nonzero(done)),
        "tasks_dropped": int(np.count_nonzero(in_window & (sim.status == DROPPED))),
        "tasks_zero_value": int(np.count_nonzero(in_window & got["ran"] & (sim.value <= 0.0))),
        "tasks_never_started": int(np.count_nonzero(in_window & ~got["ran"]
                                                    & (sim.status != DROPPED))),
        "cores_busy_pct": _pct(float(cores.mean()) if cores.size else 0.0, sim.total_cores),
        "memory_used_pct": _pct(float(memory.mean()) if memory.size else 0.0,
                                sim.total_memory),
        "mapping_events": len(ev["t_min"]),
        "placeholders_made": int(sim.placeholders_made),
        "reservations_made": int(sim.reservations_made),
    }


def per_minute(rec: RunRecord, cfg: VosConfig) -> dict:
    sim = rec.sim
    ev = rec.events
    horizon = int(math.ceil(cfg.scheduler.duration_h * 60.0 - 1e-9))
    minutes = np.arange(horizon + 1)
    t_ev = np.asarray(ev["t_min"], dtype=float)
    last = np.maximum(np.searchsorted(t_ev, minutes + 1e-9, side="right") - 1, 0)
    got = credits(sim, cfg)
    ran = got["ran"]

    def level(key, scale=1.0, digits=None):
        values = np.asarray(ev[key], dtype=float)[last] * scale
        return values.round(digits).tolist() if digits is not None else values.tolist()

    return {
        "t_min": minutes.tolist(),
        "vos_cum": cumulative_per_minute(np.minimum(sim.end[ran], horizon), got["vos"][ran],
                                         horizon).tolist(),
        "cores_busy": level("cores_busy"),
        "memory_used_gb": level("memory_used"),
        "cores_pct": level("cores_busy", 100.0 / sim.total_cores, 3),
        "memory_pct": level("memory_used", 100.0 / sim.total_memory, 3),
        "mappable": level("mappable"),
        "running": level("running"),
        "placeholders": level("placeholders"),
    }


def task_table(sim: VosSim, cfg: VosConfig) -> dict:
    wl = sim.wl
    got = credits(sim, cfg)
    k = np.maximum(sim.config, 0)

    def floats(a):
        return [None if x != x else x for x in a.tolist()]

    committed = sim.status == COMMITTED
    return {
        "id": list(range(wl.n_tasks)),
        "type": wl.type.tolist(),
        "category": wl.category.tolist(),
        "period": wl.period.tolist(),
        "arrival": wl.arrival.tolist(),
        "gamma": wl.gamma.tolist(),
        "start": floats(sim.start),
        "end": floats(sim.end),
        "node": sim.node.tolist(),
        "config": sim.config.tolist(),
        "cores": np.where(committed, wl.cfg_cores[wl.type, k], 0).tolist(),
        "memory_gb": np.where(committed, wl.cfg_mem[wl.type, k], 0.0).tolist(),
        "core_ids": [c if c is not None else [] for c in sim.cores],
        "value": sim.value.tolist(),
        "v_p": sim.v_p.tolist(),
        "v_e": sim.v_e.tolist(),
        "credit": got["vos"].tolist(),
        "status": sim.status.tolist(),
    }


def extra(rec: RunRecord, cfg: VosConfig) -> dict:
    sim, wl = rec.sim, rec.sim.wl
    return {
        "system": {"layout": cfg.system.layout,
                   "nodes": [{"index": i, "cores": tl.n, "memory_gb": tl.memory}
                             for i, tl in enumerate(sim.nodes)],
                   "total_cores": sim.total_cores, "total_memory_gb": sim.total_memory},
        "types": wl.tables(),
        "window_min": list(window(cfg)),
        "categories": list(CATEGORIES),
        "periods": list(PERIODS),
        "weights": weight_table(cfg.value).tolist(),
        "downey": DOWNEY_FORM,
        "status_codes": {str(k): v for k, v in STATUS_NAMES.items()},
        "workload": {"tasks": wl.n_tasks, "types": wl.n_types, "source": cfg.workload.source,
                     **wl.info},
    }


def build_result(rec: RunRecord, cfg: VosConfig, clock: RunClock) -> Result:
    ev = rec.events
    return Result(
        summary=summary(rec, cfg),
        series=per_minute(rec, cfg),
        tasks=task_table(rec.sim, cfg),
        events={k: ev[k] for k in ("t_min", "mappable", "started", "placeholders", "dropped")},
        extra=extra(rec, cfg),
        timing=clock.timing(),
    )
