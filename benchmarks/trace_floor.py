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
  thinning) are what ``meta.decisions`` states.

The cases: FCFS replay of lublin_256 (10,000 jobs in about 24 ms) and many-task on real15k
(15,000 tasks in 4-6 ms, random and sorted+chop, r = 5, f = 0.5). Asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _measure import best  # noqa: E402
from scheduling_swf import default_trace  # noqa: E402

from scheduling.engine import scenario, simulate  # noqa: E402
from scheduling.hpc import traces  # noqa: E402
from scheduling.swf_replay import ReplayConfig, replay  # noqa: E402
from scheduling.swf_replay.policies import Fcfs  # noqa: E402
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


def measure(label: str, run, repeat: int) -> None:
    """``run(log)`` with each log in turn, ``repeat`` rounds; the least CPU time of each."""
    cpu = {name: float("inf") for name in LOGS}
    for _ in range(repeat):
        for name, make in LOGS.items():
            cpu[name] = min(cpu[name], best(lambda m=make: run(m()), 1)[1])
    cells = ", ".join(f"{name} {cpu[name] * 1e3:.1f} ms"
                      + ("" if name == "off" else f" ({100 * (cpu[name] / cpu['off'] - 1):+.0f}%)")
                      for name in LOGS)
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

    print("CPU time of the whole run, the least of each; cost over the unexplained run")
    measure("lublin_256, FCFS replay", fcfs, args.repeat)
    bag = scenario("many-task", {"workload": {"source": "real15k"}, "chop": {"r": 5, "f": 0.5}})
    for policy in ("random", "sorted+chop"):
        measure(f"real15k, {policy}",
                lambda log, p=policy: simulate(bag, p, seed=1, explain=log), args.repeat)


if __name__ == "__main__":
    main()
