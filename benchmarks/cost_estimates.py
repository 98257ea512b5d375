"""How well each kind's cost estimate predicts a run's CPU time: the unit budgets are priced in.

The lab prices a submission in worker-seconds: ``LabKind.run_seconds`` = the kind's cost
estimate (``Kind.cost``, or ``LabKind.work``) x ``LabKind.seconds_per_cost``. That factor is
set on one stated run per kind, the *reference*: the kind's default preset with its first
default policy, seed 0 (median CPU time of --repeat runs). This script measures the reference
again and every other (preset, default policy) of the kind whose estimate stays under
--max-estimate seconds, out of sample (seed 1), and prints measured / estimated (the estimate
includes the 0.05 s a run costs a worker besides its simulation, which CPU time here does not
see, so tiny runs read below 1).

    python benchmarks/cost_estimates.py [--repeat 3] [--max-estimate 20] [--kind uav]

It asserts nothing: the factors in scheduling/lab.py and uav/lab.py came from a run of it (see
docs/reliability.md for the numbers and the machine).
"""

from __future__ import annotations

import argparse
import os
import statistics
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


def cpu_seconds(lab, params: dict, policy: str, seed: int) -> float:
    from hetsite.uploads import upload_store

    start = time.process_time()
    lab.engine.simulate({"kind": lab.kind, "params": params}, policy=policy, seed=seed,
                        inputs=upload_store())
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--max-estimate", type=float, default=20.0,
                        help="skip out-of-sample runs estimated above this many seconds")
    parser.add_argument("--kind", action="append", help="only these kinds")
    args = parser.parse_args()
    print(f"{'kind':18} {'preset':26} {'policy':14} {'estimate s':>10} {'measured s':>10} "
          f"{'ratio':>6}")
    for lab in kinds.all_kinds():
        if args.kind and lab.kind not in args.kind:
            continue
        presets = {p.name: p for p in lab.engine.list_presets(lab.kind)}
        ref_preset, ref_policy = lab.default_preset, lab.default_policies[0]
        params = to_dict(lab.engine.preset_scenario(ref_preset).params)
        measured = statistics.median(cpu_seconds(lab, params, ref_policy, 0)
                                     for _ in range(args.repeat))
        units = (lab.run_seconds(params, ref_policy) - RUN_OVERHEAD_S) / lab.seconds_per_cost
        print(f"{lab.kind:18} {ref_preset:26} {ref_policy:14} {'(reference)':>10} "
              f"{measured:10.3f}   seconds_per_cost now {lab.seconds_per_cost:.4g}, "
              f"measured {measured / units:.4g}")
        for name in presets:
            params = to_dict(lab.engine.preset_scenario(name).params)
            for policy in lab.default_policies:
                if (name, policy) == (ref_preset, ref_policy):
                    continue
                try:
                    estimate = lab.run_seconds(params, policy)
                except Exception as exc:  # a preset whose inputs are not here
                    print(f"{lab.kind:18} {name:26} {policy:14} skipped: {exc}")
                    break
                if estimate > args.max_estimate:
                    continue
                took = cpu_seconds(lab, params, policy, 1)
                print(f"{lab.kind:18} {name:26} {policy:14} {estimate:10.3f} {took:10.3f} "
                      f"{took / max(estimate, 1e-9):6.2f}", flush=True)


if __name__ == "__main__":
    main()
