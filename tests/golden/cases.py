"""The fixed set of runs whose result JSON must stay byte-identical through refactors.

``python tests/golden/cases.py --capture [--large]`` writes the digests (SHA-256 of each run's
``to_json()`` with the code version pinned); ``test_golden.py`` recomputes and compares the small
set, ``--check --large`` the full-size one. Capture only from a commit whose results are known
good, and say so in its message.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DIGESTS = HERE / "digests.json"
PINNED_VERSION = "golden"

CH3 = ["random", "random+epr", "conservative", "easy", "easy+ept", "fcfs-mq", "max-util-pr",
       "max-util-ph", "max-upt-pr", "max-upt-ph", "max-upr-pr", "max-upr-ph+epr",
       "max-upe-pr+ept", "max-upe-ph", "meta-event", "meta-task+epr"]
CH4 = ["random", "fcfs", "max-util", "max-util-greedy", "max-util-diff", "max-util-pair",
       "max-upt", "max-upt-greedy", "max-upt-diff", "max-upt-pair"]
PBB = ["first-fit", "random", "duration-consumed", "duration-remaining", "wcduration",
       "wcduration-percentresusage", "scaled-remaining", "min-work"]
UAV = ["random", "rbs", "max-value", "max-value+pf", "max-vpt+p", "max-vpe+f", "meta",
       "meta+pf"]
GRID = ["fcfs", "local", "internode-can", "internode-2nn", "internode-can+qb",
        "internode-2nn+qb"]
MANY = ["random", "sorted", "random+chop", "sorted+chop"]
VOS = ["simple", "simple-d", "simple-p", "simple-dp", "max-vptr", "max-vpmr"]

# (engine package, preset, dotted overrides, policy, seed)
CASES: list[tuple[str, str, dict, str, int]] = [
    *[("scheduling.engine", "small", {}, p, 3) for p in CH3],
    ("scheduling.engine", "ch3-trace", {}, "max-upe-ph", 1),
    ("scheduling.engine", "ch3-testbed", {}, "max-upr-ph", 2),
    ("scheduling.engine", "small", {"energy.budget_gj": 2.5}, "max-util-ph", 5),
    *[("scheduling.engine", preset, {}, p, 0) for preset in ("swf-small", "swf-example")
      for p in ("fcfs", "easy", "conservative")],
    *[("scheduling.engine", "ch4-small", {}, p, 4) for p in CH4],
    *[("scheduling.engine", "pbb-small", {}, p, 1) for p in PBB],
    ("scheduling.engine", "pbb-small-mix-a", {}, "duration-remaining", 2),
    ("scheduling.engine", "pbb-small-mix-b", {}, "duration-consumed", 3),
    ("scheduling.engine", "pbb-small", {"preemptible": "past-reservation",
                                        "history_filter": True, "history_rho": "p80"},
     "scaled-remaining", 4),
    *[("uav.engine", "small-baseline", {}, p, 2) for p in UAV],
    ("uav.engine", "example-tables-9-10", {}, "meta+p", 0),
    ("uav.engine", "geometry-demo", {}, "max-vpe+pf", 1),
    *[("scheduling.engine", "grid-small", {}, p, 5) for p in GRID],
    ("scheduling.engine", "grid-small", {"scheduler.alpha": 0.5, "scheduler.victims": "greedy",
                                         "scheduler.migrate_suspended": True},
     "internode-can", 6),
    *[("scheduling.engine", "many-task-small", {}, p, 1) for p in MANY],
    ("scheduling.engine", "dock6", {}, "random+chop", 0),
    *[("scheduling.engine", "vos-small", {}, p, 1) for p in VOS],
    ("scheduling.engine", "vos-testbed-w2-40", {}, "max-vptr", 2),
    ("scheduling.engine", "vos-testbed-w1-20", {"scheduler.energy_noise_cov": 0.1},
     "simple-dp", 3),
]

# Full-size runs for speed work (issue 15); together they take minutes, so they are checked by
# ``python tests/golden/cases.py --check --large`` rather than by the test suite.
LARGE_CASES: list[tuple[str, str, dict, str, int]] = [
    ("scheduling.engine", "ch3-5k", {}, "max-upe-ph", 1),
    ("scheduling.engine", "ch3-10k", {}, "max-upr-ph+epr", 1),
    ("scheduling.engine", "ch3-5k", {}, "meta-event+epr", 2),
    ("scheduling.engine", "lublin-256", {}, "easy", 0),
    ("scheduling.engine", "lublin-256", {}, "conservative", 0),
    ("scheduling.engine", "pbb-surrogate", {}, "duration-remaining", 0),
    ("scheduling.engine", "pbb-mix-b", {}, "random", 1),
    ("scheduling.engine", "ch4-baseline", {}, "max-util-pair", 0),
    ("scheduling.engine", "ch4-baseline", {}, "max-upt-diff", 0),
    ("uav.engine", "large", {}, "meta+pf", 0),
    ("scheduling.engine", "fig1-real935k", {}, "random", 0),
    ("scheduling.engine", "real935k", {}, "random+chop", 1),
]
LARGE_DIGESTS = HERE / "digests_large.json"


def case_id(case) -> str:
    package, preset, overrides, policy, seed = case
    extra = ",".join(f"{k}={v}" for k, v in overrides.items())
    return f"{preset}:{policy}:{seed}" + (f":{extra}" if extra else "")


def digest(case) -> str:
    import importlib

    from simcore.result import code_version

    package, preset, overrides, policy, seed = case
    os.environ["HETSITE_CODE_VERSION"] = PINNED_VERSION
    code_version.cache_clear()  # cached per process: another caller may have read git's
    engine = importlib.import_module(package)
    result = engine.simulate(engine.preset_scenario(preset, overrides), policy=policy, seed=seed)
    return hashlib.sha256(result.to_json().encode()).hexdigest()


def main(argv: list[str]) -> int:
    action = argv[0] if argv else ""
    if action not in ("--capture", "--check") or argv[1:] not in ([], ["--large"]):
        print(__doc__)
        return 2
    sys.path.insert(0, str(HERE.parents[1]))
    chosen, target = (LARGE_CASES, LARGE_DIGESTS) if "--large" in argv else (CASES, DIGESTS)
    if action == "--capture":
        out = {case_id(c): digest(c) for c in chosen}
        target.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
        print(f"{len(out)} digests written to {target}")
        return 0
    expected = json.loads(target.read_text())
    changed = [case_id(c) for c in chosen if digest(c) != expected[case_id(c)]]
    for name in changed:
        print(f"CHANGED {name}")
    print(f"{len(chosen) - len(changed)} of {len(chosen)} results unchanged")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
