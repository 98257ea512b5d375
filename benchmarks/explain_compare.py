"""What finding where two runs part ways costs (``simcore.explain.divergence``), the work
behind ``explain A.json B.json``, the lab's compare pages and its divergence API.

    .venv/bin/python benchmarks/explain_compare.py [--repeat 5]

A stranger can make this work large: the lab bounds each log (``HETSITE_EXPLAIN_LIMIT``,
10,000 decisions), but the scenario decides how many moves fall at one instant. The cases, each
two explained runs of one scenario and seed at the lab's bound:

- a crowded first instant: many-task, 5,000 lognormal tasks on 2,500 workers, random against
  sorted: about 1,260 moves a side where the two part;
- the lab's worst log: EASY against FCFS on lublin_256 (10,000 decisions each after sampling);
- UAV by target: max-vpe+pf against meta+pf on the large preset.

Prints, per case, the decisions on each side, the moves at the first difference and the best
wall time of ``divergence`` over ``--repeat``. Asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _measure import best  # noqa: E402

from scheduling.engine import ENGINE  # noqa: E402
from simcore import explain  # noqa: E402
from simcore.decisions import DecisionLog  # noqa: E402
from uav import engine as uav  # noqa: E402

LAB_LIMIT = 10_000  # the lab's default HETSITE_EXPLAIN_LIMIT


def pair(engine, preset: str, overrides: dict, policies: tuple[str, str]) -> list[dict]:
    scenario = engine.preset_scenario(preset, overrides)
    return [engine.simulate(scenario, p, seed=0, explain=DecisionLog(limit=LAB_LIMIT)).to_dict()
            for p in policies]


CASES = {
    "many-task crowded instant": lambda: pair(
        ENGINE, "many-task-small", {"workload": {"source": "lognormal", "tasks": 5000,
                                                 "mean_s": 251.5, "cov": 1.0},
                                    "machine": {"workers": 2500}}, ("random", "sorted")),
    "swf-replay lublin_256": lambda: pair(ENGINE, "lublin-256", {}, ("easy", "fcfs")),
    "uav large by target": lambda: pair(uav, "large", {"compare_random": False},
                                        ("max-vpe+pf", "meta+pf")),
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    for name, build in CASES.items():
        a, b = build()
        wall, _, found = best(lambda a=a, b=b: explain.divergence(a, b), args.repeat)
        first = found["first"] or {"only_a": [], "only_b": []}
        print(f"{name}: {len(a['decisions'])} / {len(b['decisions'])} decisions, "
              f"{len(first['only_a'])} / {len(first['only_b'])} moves at the first difference, "
              f"divergence {wall * 1e3:.1f} ms (best of {args.repeat})")


if __name__ == "__main__":
    main()
