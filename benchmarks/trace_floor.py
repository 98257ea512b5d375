"""The least any decision recorder could cost, beside what the real log costs.

    .venv/bin/python benchmarks/trace_floor.py [--repeat 9]

Runs the two cases where the decision trace is furthest over the 25 % target (docs/explain.md)
with four logs in turn, in this process, at the core's default bounds, and prints each run's
CPU time and its cost over the unexplained run:

- off: no log;
- null: samples as the real log does (``sample_up_front``), and ``add`` returns at once: the
  kind still works out each decision's numbers and makes the call;
- bare: ``add`` appends the decision's dict with no bounds at all, the least a recorder of the
  result's ``decisions`` can do;
- log: ``simcore.decisions.DecisionLog``, whose bounds (repeats counted, per-task cap, sampling,
  thinning) are what ``meta.decisions`` states;
- after (FCFS only): no log during the run; the same decisions written after it from the run's
  own arrays (each job's start and end, the head and the free nodes at each arrival), with no
  call per decision: the way round a log that records as the run goes. Its decisions are
  checked against the log's, order included, and the line says whether they are the same.

The cases: FCFS replay of lublin_256 (10,000 jobs in about 24 ms) and many-task on real15k
(15,000 tasks in 4-6 ms, random and sorted+chop, r = 5, f = 0.5). Asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _measure import best  # noqa: E402
from scheduling_swf import default_trace  # noqa: E402

from scheduling.engine import scenario, simulate  # noqa: E402
from scheduling.hpc import traces  # noqa: E402
from scheduling.hpc.jobs import prepare  # noqa: E402
from scheduling.swf_replay import ReplayConfig, replay  # noqa: E402
from scheduling.swf_replay.policies import Fcfs  # noqa: E402
from scheduling.swf_replay.result import build_result  # noqa: E402
from simcore.decisions import DecisionLog  # noqa: E402
from simcore.params import from_dict  # noqa: E402


class NullLog(DecisionLog):
    """Samples as the real log does and keeps nothing: the cost of the calls alone."""

    def add(self, t, task, action, reason, numbers=None, /, **more) -> None:
        pass


class BareLog(DecisionLog):
    """Keeps every decision's dict, unbounded."""

    def add(self, t, task, action, reason, numbers=None, /, **more) -> None:
        self._records.append({"t": t, "task": task, "action": action, "reason": reason,
                              **(numbers or more)})

    def export(self) -> tuple[list[dict], dict]:
        _, info = super().export()
        return self._records, info


LOGS = {"off": lambda: None, "null": NullLog, "bare": BareLog, "log": DecisionLog}


def fcfs_after_the_run(trace, config) -> list[dict]:
    """An FCFS replay with no log, then its decisions (as the log keeps them, at its default
    bounds) written from the run's arrays. FCFS starts jobs in queue order, so every number is
    in the arrays: a job's start and end, the free nodes before a start (the busy nodes summed
    over the starts and ends before it, ends first at one instant, as the event loop frees
    them), and at an arrival that waits the head (the first job starting later) and the free
    nodes. The records are put in the order the log makes them: an instant's ends, then its
    starts, then its arrivals' waits, each in queue order."""
    jobs = prepare(trace.header, trace.columns, config)
    sim = Fcfs(jobs)
    sim.run()
    build_result(sim, trace, config, sim.clock)
    keep = DecisionLog().sample_up_front(jobs.job_id, 3)  # as JobReplay.run samples
    J, N = sim.J, sim.N
    kept = np.arange(J) if keep is None else np.flatnonzero(keep)
    start, sub, n = np.array(sim.start_t), jobs.submit, jobs.nodes
    end = start + jobs.run
    times = np.concatenate([end, start])
    order = np.lexsort((np.tile(np.arange(J), 2), np.repeat([0, 1], J), times))
    busy = np.cumsum(np.concatenate([-n, n])[order])  # after each end or start, in order
    at = np.empty(2 * J, dtype=np.int64)
    at[order] = np.arange(2 * J)
    free_before = N - (busy[at[J:]] - n)
    held = kept[start[kept] > sub[kept]]
    t_held = sub[held]
    head = np.searchsorted(start, t_held, side="right")
    free_held = N - busy[np.searchsorted(times[order], t_held, side="right") - 1]
    ids, nodes = jobs.job_id.tolist(), n.tolist()
    records = [{"t": t, "task": ids[j], "action": "completed",
                "reason": "ran its actual run time", "nodes": nodes[j], "run_s": r}
               for t, j, r in zip(end[kept].tolist(), kept.tolist(), jobs.run[kept].tolist(),
                                  strict=True)]
    records += [{"t": t, "task": ids[j], "action": "mapped",
                 "reason": "first in the queue and its nodes are free", "nodes": nodes[j],
                 "free": f}
                for t, j, f in zip(start[kept].tolist(), kept.tolist(),
                                   free_before[kept].tolist(), strict=True)]
    records += [{"t": t, "task": ids[j], "action": "held",
                 "reason": "waits in queue order behind the head, which does not fit (FCFS: "
                           "no backfilling)", "head": ids[h], "head_nodes": nodes[h],
                 "nodes": nodes[j], "free": f}
                for t, j, h, f in zip(t_held.tolist(), held.tolist(), head.tolist(),
                                      free_held.tolist(), strict=True)]
    phase = np.repeat([0, 1, 2], [kept.size, kept.size, held.size])
    made = np.lexsort((np.concatenate([kept, kept, held]), phase,
                       np.concatenate([end[kept], start[kept], t_held])))
    return [records[i] for i in made.tolist()]


def measure(label: str, run, repeat: int, after=None) -> None:
    """``run(log)`` with each log in turn (and ``after()``, if given), ``repeat`` rounds; the
    least CPU time of each."""
    modes = {name: (lambda m=make: run(m())) for name, make in LOGS.items()}
    if after is not None:
        modes["after"] = after
    cpu = {name: float("inf") for name in modes}
    for _ in range(repeat):
        for name, fn in modes.items():
            cpu[name] = min(cpu[name], best(fn, 1)[1])
    cells = ", ".join(f"{name} {cpu[name] * 1e3:.1f} ms"
                      + ("" if name == "off" else f" ({100 * (cpu[name] / cpu['off'] - 1):+.0f}%)")
                      for name in modes)
    print(f"  {label:<28} {cells}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args()
    trace, config = traces.load_path(default_trace()), from_dict(ReplayConfig, {})

    def fcfs(log):
        replay(trace, config, Fcfs, decisions=log)
        if log is not None:
            log.export()

    log = DecisionLog()
    replay(trace, config, Fcfs, decisions=log)
    same = fcfs_after_the_run(trace, config) == log.export()[0]
    del log
    print("CPU time of the whole run, the least of each; cost over the unexplained run")
    measure("lublin_256, FCFS replay", fcfs, args.repeat,
            after=lambda: fcfs_after_the_run(trace, config))
    print(f"  {'':<28} (after: the log's decisions, order included: "
          f"{'the same' if same else 'NOT the same'})", flush=True)
    bag = scenario("many-task", {"workload": {"source": "real15k"}, "chop": {"r": 5, "f": 0.5}})
    for policy in ("random", "sorted+chop"):
        measure(f"real15k, {policy}",
                lambda log, p=policy: simulate(bag, p, seed=1, explain=log), args.repeat)


if __name__ == "__main__":
    main()
