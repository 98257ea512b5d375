"""Literal transcriptions of the spec, for checking the vectorized engine against.

* :func:`value_eq1` / :func:`task_value_eq2`: Eq. 1 and Eq. 2 as written, one number at a time.
* :func:`max_vptr_event`: one mapping event of the Max VPTR family exactly as ch. 2 spec §7.1's
  pseudo-code says: every round evaluates every mappable task's every configuration, drops
  tasks that cannot earn value, and commits the best pair; no incremental shortcuts.
"""

from __future__ import annotations

import math

import numpy as np


def value_eq1(obj, soft, hard, vmin, vmax=1.0):
    if 0 <= obj <= soft:
        return vmax
    if soft < obj < hard:
        return (obj - hard) * (vmax - vmin) / (soft - hard) + vmin
    if obj >= hard:
        return 0.0
    return vmax  # negative objectives do not occur; treated as 0


def task_value_eq2(resp, energy, p_soft, p_hard, vp_min, e_soft, e_hard, ve_min, gamma, w_p,
                   w_e):
    v_p = value_eq1(resp, p_soft, p_hard, vp_min)
    v_e = value_eq1(energy, e_soft, e_hard, ve_min)
    if v_p == 0 or v_e == 0:
        return 0.0
    return gamma * (w_p * v_p + w_e * v_e)


def metric(name, value, etc, cores, mem, total_cores, total_mem, wc=1.0, wm=1.0):
    if name == "vptr":
        return value / (etc * (wc * cores / total_cores + wm * mem / total_mem))
    if name == "value":
        return value
    if name == "vpt":
        return value / etc
    if name == "vpcr":
        return value / (etc * cores)
    if name == "vpmr":
        return value / (etc * mem)
    raise ValueError(name)


def max_vptr_event(sim, tasks, name="vptr"):
    """Max VPTR (ch. 2 spec §7.1)'s loop on ``sim`` (a VosSim at the start of an event): returns the
    decisions in order, ``("drop", task)`` or ``("assign", task, config, start)``."""
    wl = sim.wl
    mappable = [int(t) for t in tasks]
    decisions = []
    while mappable:
        best = None
        for j in list(mappable):
            ty = wl.type[j]
            cand = None
            top_value = 0.0
            for k in range(int(wl.n_cfg[ty])):
                c, m, d = int(wl.cfg_cores[ty, k]), float(wl.cfg_mem[ty, k]), float(wl.etc[ty, k])
                s, node = sim.earliest(c, m, d)
                s = float(s[0])
                if not math.isfinite(s):
                    continue
                v = task_value_eq2(s + d - wl.arrival[j], float(wl.eec[ty, k]), wl.p_soft[j],
                                   wl.p_hard[j], wl.vp_min[j], wl.e_soft[j], wl.e_hard[j],
                                   wl.ve_min[j], wl.gamma[j], wl.w_p[j], wl.w_e[j])
                top_value = max(top_value, v)
                score = metric(name, v, d, c, m, sim.total_cores, sim.total_memory)
                if cand is None or score > cand[0]:
                    cand = (score, k, s, int(node[0]))
            if top_value == 0.0:
                decisions.append(("drop", j))
                sim.drop(j)
                mappable.remove(j)
                continue
            if best is None or cand[0] > best[0]:
                best = (cand[0], j, cand[1], cand[2], cand[3])
        if best is None:
            break
        _, j, k, s, node = best
        sim.assign(j, k, s, node, "voids", True)
        decisions.append(("assign", j, k, s))
        mappable.remove(j)
    return decisions


def check_schedule(result, tol=1e-6):
    """No core holds two VMs at once; no node's memory is over its size; every started task
    holds exactly its configuration's cores on one node, after its arrival."""
    tasks = result.tasks
    nodes = result.extra["system"]["nodes"]
    per_core = {}
    events = {i: [] for i in range(len(nodes))}
    for j, start in enumerate(tasks["start"]):
        if start is None:
            continue
        end, node = tasks["end"][j], tasks["node"][j]
        cores = tasks["core_ids"][j]
        assert start >= tasks["arrival"][j] - tol
        assert end > start
        assert len(cores) == tasks["cores"][j] == len(set(cores))
        assert all(0 <= c < nodes[node]["cores"] for c in cores)
        for c in cores:
            per_core.setdefault((node, c), []).append((start, end, j))
        events[node].append((start, tasks["memory_gb"][j]))
        events[node].append((end, -tasks["memory_gb"][j]))
    for spans in per_core.values():
        spans.sort()
        for (_, e0, _), (s1, _, _) in zip(spans, spans[1:], strict=False):
            assert s1 >= e0 - tol, "a core holds two VMs at once"
    for i, evs in events.items():
        evs.sort(key=lambda x: (x[0], x[1]))  # releases before acquisitions at equal times
        used = np.cumsum([m for _, m in evs]) if evs else np.zeros(0)
        assert (used <= nodes[i]["memory_gb"] + tol).all(), "memory over-committed"
