"""Workload generators of the Value of Service environment.

* ``synthetic`` (simulated workload (ch. 2 spec §5)): 30-40 task types with random allowable VM
  configurations, ETC from a base time scaled by Downey's speedup and the memory factor, EEC linear
  in cores and memory, 1,300-1,500 tasks arriving on a daily sinusoid.
* ``npb`` (testbed experiment (ch. 2 spec §8.2)): the testbed's four NAS kernels on the 20
  configurations cores {1, 4, 8, 16} x memory {1, 2, 4, 8, 16} GB, with synthesized ETC/EEC tables
  (fixed by ``tables_seed``, as historical tables would be) and Gaussian inter-arrivals per usage
  period.

Every random draw comes from ``rng(seed, "vos/...")`` streams, so every policy sees the same
workload for a seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from scheduling.hpc.speedup import downey_speedup
from simcore.sampling import normal_mean_cov, rng, sinusoidal_times

from .config import NPB_KERNELS, PERIODS, VosConfig
from .model import period_of_hour, weight_table


@dataclass
class Workload:
    # Task types: allowable configurations padded to the longest list (``n_cfg`` valid entries).
    type_names: list[str]
    n_cfg: np.ndarray  # (T,)
    cfg_cores: np.ndarray  # (T, K) int
    cfg_mem: np.ndarray  # (T, K) GB
    etc: np.ndarray  # (T, K) minutes; +inf in padding
    eec: np.ndarray  # (T, K) joules; +inf in padding
    sigma: np.ndarray  # (T,) Downey sigma
    parallelism: np.ndarray  # (T,) Downey A
    base_time: np.ndarray  # (T,) minutes on 1 core / 1 GB (or with enough memory)
    base_energy: np.ndarray  # (T,) joules on 1 core / 1 GB (nan for npb)
    type_category: np.ndarray  # (T,) category index, -1 when drawn per task
    type_gamma: np.ndarray  # (T,)
    # Tasks, in arrival order.
    arrival: np.ndarray  # minutes since the start of the run
    type: np.ndarray
    category: np.ndarray
    period: np.ndarray
    gamma: np.ndarray
    w_p: np.ndarray
    w_e: np.ndarray
    vp_min: np.ndarray
    ve_min: np.ndarray
    p_soft: np.ndarray  # response-time thresholds (minutes)
    p_hard: np.ndarray
    e_soft: np.ndarray  # energy thresholds (joules)
    e_hard: np.ndarray
    energy_noise: np.ndarray  # realised energy / EEC (1 without noise)
    info: dict = field(default_factory=dict)

    @property
    def n_tasks(self) -> int:
        return int(self.arrival.size)

    @property
    def n_types(self) -> int:
        return int(self.n_cfg.size)

    def tables(self) -> list[dict]:
        """Every type with its configurations, ETC and EEC (recorded with the results)."""
        out = []
        for k in range(self.n_types):
            n = int(self.n_cfg[k])
            out.append({
                "type": k, "name": self.type_names[k],
                "category": int(self.type_category[k]),
                "gamma": float(self.type_gamma[k]), "sigma": float(self.sigma[k]),
                "parallelism": float(self.parallelism[k]),
                "base_time_min": float(self.base_time[k]),
                "cores": self.cfg_cores[k, :n].tolist(), "memory_gb": self.cfg_mem[k, :n].tolist(),
                "etc_min": self.etc[k, :n].tolist(), "eec_j": self.eec[k, :n].tolist(),
            })
        return out


def _pad(rows: list[list[float]], fill, dtype) -> np.ndarray:
    k = max(len(r) for r in rows)
    out = np.full((len(rows), k), fill, dtype=dtype)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out


# -- task types -----------------------------------------------------------------------------------

def _synthetic_types(cfg: VosConfig, r: np.random.Generator) -> dict:
    """Workload generator defaults (ch. 2 spec §5.2): base values, Downey sigma, category,
    configurations, ETC, EEC and gamma."""
    w = cfg.workload
    t_sys = float(normal_mean_cov(r, w.base_time_min, w.base_time_cov, lo=0.0, lo_open=True)[0])
    e_sys = float(normal_mean_cov(r, w.base_energy_j, w.base_energy_cov, lo=0.0,
                                  lo_open=True)[0])
    n_types = int(r.integers(w.types_min, w.types_max + 1))
    lo, hi = w.type_clamp_lo, w.type_clamp_hi
    base_t = np.clip(r.normal(t_sys, w.type_cov * t_sys, n_types), lo * t_sys, hi * t_sys)
    base_e = np.clip(r.normal(e_sys, w.type_cov * e_sys, n_types), lo * e_sys, hi * e_sys)
    sigma = r.uniform(w.sigma_min, w.sigma_max, n_types)
    category = r.integers(0, 3, n_types)
    combos = sorted({(int(c), float(m)) for c in w.config_cores for m in w.config_memory_gb})
    cores, mem, etc, eec, par = [], [], [], [], []
    for k in range(n_types):
        size = int(r.integers(w.configs_min, min(w.configs_max, len(combos)) + 1))
        pick = np.sort(r.choice(len(combos), size=size, replace=False))
        c = np.array([combos[i][0] for i in pick], dtype=float)
        m = np.array([combos[i][1] for i in pick], dtype=float)
        a = float(c.mean())  # [DEFAULT] average parallelism: mean core count of the configs
        f_mem = 1.0 + w.memory_speedup * (m.max() - m) / m.max()
        cores.append(c.astype(int).tolist())
        mem.append(m.tolist())
        etc.append((base_t[k] / downey_speedup(c, a, sigma[k]) * f_mem).tolist())
        eec.append((base_e[k] * (w.energy_core_weight * c + w.energy_memory_weight * m)).tolist())
        par.append(a)
    # [DEFAULT] gamma's mean maps the clamp range of base times linearly onto [gamma_min, max].
    span = max((hi - lo) * t_sys, 1e-12)
    mu = w.gamma_min + (w.gamma_max - w.gamma_min) * (base_t - lo * t_sys) / span
    gamma = np.clip(r.normal(mu, w.gamma_cov * np.abs(mu)), w.gamma_min, w.gamma_max)
    return {"names": [f"type {k}" for k in range(n_types)], "cores": cores, "mem": mem,
            "etc": etc, "eec": eec, "sigma": sigma, "parallelism": np.array(par),
            "base_time": base_t, "base_energy": base_e, "category": category, "gamma": gamma,
            "info": {"system_base_time_min": t_sys, "system_base_energy_j": e_sys}}


def npb_tables(cfg: VosConfig) -> dict:
    """Testbed experiment (ch. 2 spec §8.2) [DEFAULT]: synthetic ETC/EEC of FT, IS, EP, LU on every
    testbed configuration.

    Time = base / Downey speedup (sigma per kernel from ``tables_seed``, A = mean core count of
    the configurations) x (1 + penalty x (W - m)/W below the working set W); energy = (the VM's
    share of node idle power + dynamic power per core x cores) x time.
    """
    n, s = cfg.npb, cfg.system
    r = rng(n.tables_seed, "vos/npb-tables")
    sigma = r.uniform(cfg.workload.sigma_min, cfg.workload.sigma_max, len(NPB_KERNELS))
    combos = sorted({(int(c), float(m)) for c in n.config_cores for m in n.config_memory_gb})
    c = np.array([x[0] for x in combos], dtype=float)
    m = np.array([x[1] for x in combos], dtype=float)
    a = float(c.mean())
    cores, mem, etc, eec = [], [], [], []
    for k in range(len(NPB_KERNELS)):
        ws = n.working_set_gb[k]
        short = np.where(ws > 0, np.clip(ws - m, 0.0, None) / max(ws, 1e-12), 0.0)
        t = n.base_min[k] / downey_speedup(c, a, sigma[k]) * (1.0 + n.memory_penalty * short)
        power = n.idle_power_w * c / s.node_cores + n.core_power_w * c
        cores.append(c.astype(int).tolist())
        mem.append(m.tolist())
        etc.append(t.tolist())
        eec.append((power * t * 60.0).tolist())
    k = len(NPB_KERNELS)
    return {"names": list(NPB_KERNELS), "cores": cores, "mem": mem, "etc": etc, "eec": eec,
            "sigma": sigma, "parallelism": np.full(k, a), "base_time": np.array(n.base_min),
            "base_energy": np.full(k, np.nan), "category": np.full(k, -1),
            "gamma": np.full(k, n.gamma), "info": {}}


# -- arrivals -------------------------------------------------------------------------------------

def _sinusoidal_arrivals(cfg: VosConfig, r: np.random.Generator) -> np.ndarray:
    """Workload generator defaults (ch. 2 spec §5.2) [DEFAULT]: n ~ U{tasks_min..tasks_max} arrivals
    over the run whose density follows 1 + amplitude sin(2π(h - peak + 6)/24) at clock hour h (peak
    at ``peak_hour``)."""
    a, w = cfg.arrivals, cfg.workload
    n = int(r.integers(w.tasks_min, w.tasks_max + 1))
    phase = -2.0 * math.pi * (a.start_hour - a.peak_hour + 6.0) / 24.0
    return sinusoidal_times(r, n, a.amplitude, 1.0, phase, 0.0,
                            cfg.scheduler.duration_h * 60.0)


def _phase_arrivals(cfg: VosConfig, r: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Testbed experiment (ch. 2 spec §8.2): Gaussian inter-arrival times whose mean follows the
    rate of the current phase (high; medium 30% lower; low 60% lower); returns arrival times and
    their phase's period."""
    a = cfg.arrivals
    ratio = {"low": a.low_ratio, "medium": a.medium_ratio, "high": 1.0}
    phase_min = a.phase_h * 60.0
    end = len(a.phases) * phase_min
    per_min = a.rate_per_core_h * cfg.system.total_cores / 60.0
    times, periods = [], []
    t = 0.0
    while True:
        p = min(int(t // phase_min), len(a.phases) - 1)
        rate = per_min * ratio[a.phases[p]]
        if rate <= 0.0:  # a silent phase: skip to the next one
            t = (p + 1) * phase_min
            if t >= end:
                break
            continue
        mean = 1.0 / rate
        t += float(normal_mean_cov(r, mean, a.interarrival_cov, lo=0.0, lo_open=True)[0])
        if t >= end:
            break
        times.append(t)
        periods.append(PERIODS.index(a.phases[min(int(t // phase_min), len(a.phases) - 1)]))
    return np.array(times, dtype=float), np.array(periods, dtype=np.int64)


# -- the whole workload ---------------------------------------------------------------------------

def generate(cfg: VosConfig, seed: int) -> Workload:
    w, v = cfg.workload, cfg.value
    r_types = rng(seed, "vos/types")
    types = _synthetic_types(cfg, r_types) if w.source == "synthetic" else npb_tables(cfg)
    n_cfg = np.array([len(c) for c in types["cores"]], dtype=np.int64)
    cfg_cores = _pad(types["cores"], 0, np.int64)
    cfg_mem = _pad(types["mem"], 0.0, float)
    etc = _pad(types["etc"], np.inf, float)
    eec = _pad(types["eec"], np.inf, float)

    r_arr = rng(seed, "vos/arrivals")
    if cfg.arrivals.pattern == "sinusoidal":
        arrival = _sinusoidal_arrivals(cfg, r_arr)
        period = period_of_hour(cfg.arrivals.start_hour + arrival / 60.0, v)
    else:
        arrival, period = _phase_arrivals(cfg, r_arr)
    n = arrival.size

    r = rng(seed, "vos/tasks")
    ttype = r.integers(0, len(n_cfg), n)
    type_category = np.asarray(types["category"], np.int64)
    if v.categories == "per-type":
        if w.source != "synthetic":  # the kernels have no category of their own: draw one each
            type_category = r_types.integers(0, 3, len(n_cfg))
        category = type_category[ttype]
    else:
        type_category = np.full(len(n_cfg), -1)
        category = r.integers(0, 3, n)
    vp_min = r.uniform(w.vmin_lo, w.vmin_hi, n)
    ve_min = r.uniform(w.vmin_lo, w.vmin_hi, n)
    t_ok = np.where(np.isfinite(etc), etc, np.nan)
    e_ok = np.where(np.isfinite(eec), eec, np.nan)
    t_min, t_max = np.nanmin(t_ok, axis=1)[ttype], np.nanmax(t_ok, axis=1)[ttype]
    e_min, e_max = np.nanmin(e_ok, axis=1)[ttype], np.nanmax(e_ok, axis=1)[ttype]
    cov = w.threshold_cov
    p_hard = normal_mean_cov(r, t_max, cov, lo=t_max)
    e_hard = normal_mean_cov(r, e_max, cov, lo=e_max)
    if w.source == "synthetic":
        # Stated workload facts (ch. 2 spec §5.1): min + 0.05 (max - min), COV 0.2, for both
        p_soft = normal_mean_cov(r, t_min + w.soft_offset * (t_max - t_min), cov, lo=0.0,
                                 hi=p_hard, lo_open=True)
        e_soft = normal_mean_cov(r, e_min + w.soft_offset * (e_max - e_min), cov, lo=0.0,
                                 hi=e_hard, lo_open=True)
    else:
        # Testbed experiment (ch. 2 spec §8.2): completion ~ N(min ETC, COV 0.2); energy min + 0.05
        # (max - min), no noise
        p_soft = normal_mean_cov(r, t_min, cov, lo=0.0, hi=p_hard, lo_open=True)
        e_soft = np.minimum(e_min + w.soft_offset * (e_max - e_min), e_hard)
    weights = weight_table(v)
    noise_cov = cfg.scheduler.energy_noise_cov
    if noise_cov > 0:  # lognormal with mean 1 and the given COV
        s2 = math.log(1.0 + noise_cov * noise_cov)
        noise = rng(seed, "vos/energy-noise").lognormal(-s2 / 2.0, math.sqrt(s2), n)
    else:
        noise = np.ones(n)
    return Workload(
        type_names=types["names"], n_cfg=n_cfg, cfg_cores=cfg_cores, cfg_mem=cfg_mem, etc=etc,
        eec=eec, sigma=np.asarray(types["sigma"], float),
        parallelism=np.asarray(types["parallelism"], float),
        base_time=np.asarray(types["base_time"], float),
        base_energy=np.asarray(types["base_energy"], float),
        type_category=type_category,
        type_gamma=np.asarray(types["gamma"], float),
        arrival=arrival, type=ttype, category=category.astype(np.int64), period=period,
        gamma=np.asarray(types["gamma"], float)[ttype],
        w_p=weights[category, period, 0], w_e=weights[category, period, 1],
        vp_min=vp_min, ve_min=ve_min, p_soft=p_soft, p_hard=p_hard, e_soft=e_soft,
        e_hard=e_hard, energy_noise=noise, info=types["info"])
