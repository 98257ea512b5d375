"""Does the price follow the parameters that multiply a run's events? Estimate vs CPU time.

``benchmarks/cost_estimates.py`` checks each kind's price on its presets, which all keep the
default mapping interval, event rates and node counts. This script prices and runs scenarios
that move exactly those parameters (the mapping interval of the UAV and ch. 3 kinds, the UAV
event multiplier and geometry model, the grid's node count and load-sample interval) and prints
the price the site would charge (``LabKind.run_seconds``, which includes the 0.05 s a run
costs a worker besides its simulation), the model's units, the CPU seconds of one run (seed 1)
and measured / estimated. The UAV cases fly without the Random reference run
(``compare_random`` false) unless they say otherwise. It asserts nothing: docs/uav.md,
docs/ch3.md and docs/grid.md ("Limits and price") quote a run of it.

    python benchmarks/event_prices.py [--kind uav] [--quick]

``--quick`` leaves out the cases that take more than about 10 s each.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hetsite.settings")

import django  # noqa: E402

django.setup()

from hetsite import kinds  # noqa: E402
from hetsite.kinds import RUN_OVERHEAD_S  # noqa: E402
from simcore.params import to_dict  # noqa: E402

NO_REF = {"compare_random": False}
LARGE = {"uavs_mean": 90.0, "targets_mean": 140.0, "event_multiplier": 10.0}
# (kind, preset, overrides, policies, slow)
CASES = [
    *[("uav", "small-baseline", {**NO_REF, "mapping_interval_min": d}, ("random", "meta+pf"),
       False) for d in (120.0, 5.0, 1.0, 0.1)],
    ("uav", "small-baseline", {**NO_REF, "mapping_interval_min": 0.01}, ("random",), True),
    ("uav", "small-baseline", {"mapping_interval_min": 0.1}, ("max-vpe+p",), False),
    *[("uav", "small-baseline", {**NO_REF, **LARGE, "mapping_interval_min": d},
       ("random", "max-vpe+p"), False) for d in (30.0, 5.0, 1.0)],
    ("uav", "small-baseline", {**NO_REF, "event_multiplier": 100.0}, ("random", "meta+pf"),
     False),
    ("uav", "small-baseline", {**NO_REF, "event_multiplier": 1000.0}, ("random",), True),
    ("uav", "small-baseline", {**NO_REF, "geometry": {"enabled": True},
                               "mapping_interval_min": 0.5}, ("random", "meta+pf"), False),
    ("uav", "small-baseline", {**NO_REF, "uavs_mean": 300.0, "targets_mean": 500.0,
                               "event_multiplier": 0.0}, ("random", "max-vpe+p"), False),
    *[("parallel-energy", "small", {"time": {"mapping_interval_s": d}}, ("easy", "max-upe-ph"),
       d < 10) for d in (300.0, 60.0, 10.0, 1.0)],
    ("parallel-energy", "small", {"workload": {"tasks_per_day": 5.0},
                                  "time": {"mapping_interval_s": 5.0}}, ("easy",), False),
    *[("parallel-energy", "ch3-5k", {"time": {"mapping_interval_s": d}}, ("easy", "max-upe-ph"),
       d < 60) for d in (300.0, 60.0, 15.0)],
    ("parallel-energy", "ch3-10k", {}, ("easy",), True),
    ("parallel-energy", "ch3-testbed", {}, ("easy", "max-upe-ph"), False),
    ("parallel-energy", "ch3-testbed", {"testbed": {"mean_interarrival_s": 30.0}},
     ("easy", "max-upe-ph"), False),
    ("parallel-energy", "ch3-trace", {}, ("easy",), False),
    *[("grid", "grid-small", {"nodes": {"n_nodes": n}, "report": {"sample_s": s}},
       ("fcfs", "internode-can"), n > 10_000) for n, s in ((100, 60.0), (5000, 60.0),
                                                          (13_000, 60.0), (50_000, 600.0))],
    ("grid", "grid-main", {}, ("local", "internode-can"), False),
    ("grid", "grid-main", {"report": {"sample_s": 5.0}}, ("local",), False),
]


def flat(over: dict, prefix: str = "") -> list[str]:
    out = []
    for key, value in over.items():
        if isinstance(value, dict):
            out += flat(value, f"{prefix}{key}.")
        elif not (key == "compare_random" and value is False):
            out.append(f"{prefix}{key}={value:g}" if isinstance(value, float)
                       else f"{prefix}{key}={value}")
    return out


def merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for key, value in over.items():
        out[key] = merge(out.get(key, {}), value) if isinstance(value, dict) else value
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", action="append", help="only these kinds")
    parser.add_argument("--quick", action="store_true", help="leave out the slow cases")
    args = parser.parse_args()
    print(f"{'kind':16} {'scenario':62} {'policy':11} {'units':>10} {'estimate s':>10} "
          f"{'measured s':>10} {'ratio':>6}")
    for kind, preset, over, policies, slow in CASES:
        if (args.kind and kind not in args.kind) or (slow and args.quick):
            continue
        lab = kinds.get_kind(kind)
        params = merge(to_dict(lab.engine.preset_scenario(preset).params), over)
        label = " ".join([preset, *flat(over)])
        for policy in policies:
            estimate = lab.run_seconds(params, policy)
            units = (estimate - RUN_OVERHEAD_S) / lab.seconds_per_cost
            start = time.process_time()
            lab.engine.simulate({"kind": kind, "params": params}, policy=policy, seed=1)
            took = time.process_time() - start
            print(f"{kind:16} {label:62} {policy:11} {units:10.3g} {estimate:10.3f} "
                  f"{took:10.3f} {took / estimate:6.2f}", flush=True)


if __name__ == "__main__":
    main()
