"""Named scenarios: a small one for tests and the UI, the baseline, the sensitivity run of the
urgency's time unit (ch. 4 spec A7), and the figure presets of the chapter's sweeps.

The sweeps of ch. 4 spec §11.2 (utility family, burst size, preemption flags, critical task
length) are figure presets that vary one parameter of a base preset, not a preset per point;
everything else stays at the defaults of :mod:`.config` (baseline environment (ch. 4 spec §11.1): 5
x 160 cores, 60,000 tasks/day, B = 64, 20 utility classes, both preemption flags on every task, 28 h
with a 4 h warm-up).
"""

from __future__ import annotations

from simcore.claims import Claim, Provenance, Size, claims

from .config import KIND

# 5 x 8 cores and 20 task types: the baseline's load per core and mix of critical tasks, with
# bursts scaled down with the system (B = 8), so any policy runs in about a second.
SMALL = {
    "system": {"n_clusters": 5, "cores_per_cluster": 8},
    "etc": {"n_types": 20, "n_critical_types": 4},
    "workload": {"burst_size": 8},
}


def register(engine) -> None:
    engine.preset("ch4-small", KIND, params=SMALL, source="§11.1 (scaled down)",
                  description="ch4 scaled down: 5 x 8 cores, 20 task types, bursts of ~8, "
                              "28 h; any policy in about a second.")
    engine.preset("ch4-baseline", KIND, params={}, source="§11.1",
                  description="ch4 baseline: 5 x 160 cores, 60,000 tasks/day in bursts of "
                              "~64, 20 utility classes, every task may preempt and be "
                              "preempted.")
    engine.preset("ch4-decay-fast", KIND, source="§5.3 (A7 sensitivity)",
                  params={"utility": {"family": "decay", "urgency_time_unit_min": 1.0}},
                  description="ch4 decaying class with urgency 0.3 per minute instead of per "
                              "10 minutes (sensitivity run of the urgency's time unit, "
                              "spec ch4 A7).")


# -- figure presets (Figs. 36-40 of the dissertation = Figs. 3-7 of the paper) ---------------------
ALL = ("random", "fcfs", "max-util", "max-upt", "max-util-greedy", "max-upt-greedy",
       "max-util-diff", "max-upt-diff", "max-util-pair", "max-upt-pair")
PREEMPTIVE_OVER_PLAIN = [(f"max-{m}-{t}", f"max-{m}") for m in ("util", "upt")
                         for t in ("greedy", "diff", "pair")]
UTILITY_OVER_COMPARISON = [(f"max-{m}", c) for m in ("util", "upt") for c in ("random", "fcfs")]
UPT_OVER_UTIL = [("max-upt", "max-util")] + [(f"max-upt-{t}", f"max-util-{t}")
                                             for t in ("greedy", "diff", "pair")]
PAIR_BELOW = [(f"max-{m}-{t}", f"max-{m}-pair") for m in ("util", "upt")
              for t in ("greedy", "diff")]
SCALE = ("ch4-small (5 x 8 cores, 20 types, bursts of ~8: the baseline's load per core) instead "
         "of 5 x 160 cores; {trials} trials per point (64 published)")


P, CRIT, DONE = "pct_max_utility", "pct_critical_completed", "pct_tasks_completed"
SMALL_SYSTEM = Provenance("scaled", "ch4-small: 5 x 8 cores, 20 types, bursts of ~8 (the "
                                    "baseline's load per core) instead of 5 x 160 cores")
CLASSES = Provenance("reading", "utility.class_start = arrival (the default; the 20 classes are "
                                "a stand-in, A8): with after-average a class is flat for the "
                                "task's average time first")


def register_figures(engine) -> None:
    metrics = (P, CRIT, DONE, "preemptions")
    family = "utility.family"
    engine.figure(
        "ch4-fig-36", KIND, title="Utility function families (Fig. 36 / paper Fig. 3)",
        preset="ch4-small", axes=[(family, ["step", "decay", "classes"])],
        policies=ALL, trials=64, metrics=metrics,
        claims=claims(PREEMPTIVE_OVER_PLAIN + UTILITY_OVER_COMPARISON + PAIR_BELOW, P,
                      per_point=True),
        provenance=[SMALL_SYSTEM],
        source="dissertation ch. 4 Fig. 36 (paper Fig. 3); spec ch4 §12",
        claim="Utility-aware heuristics beat Random and FCFS, and every preemption-capable "
              "heuristic beats Max Util and Max UPT in all three families, most of all with "
              "step functions, where critical tasks must start almost at once; Pair is below "
              "Greedy and Diff.",
        scale=SCALE.format(trials=64), paper_trials=64)
    burst = "workload.burst_size"
    engine.figure(
        "ch4-fig-37", KIND, title="Burst size (Fig. 37 / paper Fig. 4)",
        preset="ch4-small", axes=[(burst, [1, 2, 4, 8, 16])],
        policies=ALL, trials=64, metrics=metrics,
        claims=[*claims([p for p in PREEMPTIVE_OVER_PLAIN if "pair" not in p[0]
                         and p != ("max-upt-diff", "max-upt")], P,
                        at={burst: 16}, note="at the largest bursts preemption pays most"),
                Claim("max-upt-diff", "max-upt", P, at={burst: 16}, size=Size("ratio", 20.0),
                      note="at the largest bursts the best preemptive heuristics earn up to "
                           "20% more than Max UPT"),
                *(Claim(p, p, P, at={burst: 1}, worse_at={burst: 16},
                        note="as bursts grow Max Util and Max UPT lose much utility")
                  for p in ("max-util", "max-upt"))],
        provenance=[SMALL_SYSTEM],
        source="dissertation ch. 4 Fig. 37 (paper Fig. 4); spec ch4 §12",
        claim="As bursts grow, Max Util and Max UPT lose much utility and Greedy and Diff "
              "little, since they preempt non-critical tasks to start a critical burst at "
              "once; at the largest bursts the best preemptive heuristics earn up to 20% more "
              "than Max UPT; without bursts the heuristics are close.",
        scale=SCALE.format(trials=64) + "; burst sizes 1-16 on 40 cores stand for 1-128 on "
                                        "800 (the small preset's B = 8 is the baseline's 64)",
        paper_trials=64)
    flags = "workload.p_can_preempt+workload.p_preemptible"
    engine.figure(
        "ch4-fig-38", KIND, title="Preemption flags (Fig. 38 / paper Fig. 5)",
        preset="ch4-small", axes=[(flags, [0.0, 0.2, 0.4, 0.6, 0.8, 1.0])],
        policies=ALL, trials=64, metrics=metrics,
        claims=claims(PREEMPTIVE_OVER_PLAIN, P, at={"workload.p_can_preempt": 1.0},
                      note="turning both flags on for all tasks never lowers performance"),
        provenance=[SMALL_SYSTEM],
        source="dissertation ch. 4 Fig. 38 (paper Fig. 5); spec ch4 §12",
        claim="At 0% every preemption-capable heuristic equals its non-preemptive counterpart; "
              "the non-preemptive ones are flat; most preemptive ones improve about linearly "
              "with the share of tasks that may preempt and be preempted, Max UPT Pair not; "
              "turning both flags on for all tasks never lowers performance.",
        scale=SCALE.format(trials=64), paper_trials=64)
    critical = "etc.critical_mean_min"
    engine.figure(
        "ch4-fig-39", KIND, title="Critical task length (Fig. 39 / paper Fig. 6)",
        preset="ch4-small", axes=[(critical, [10.0, 30.0, 50.0])],
        policies=ALL, trials=64, metrics=metrics,
        claims=[*claims([p for p in PREEMPTIVE_OVER_PLAIN if "pair" not in p[0]], P,
                        per_point=True),
                *claims(UPT_OVER_UTIL, P, per_point=True,
                        note="Max UPT beats Max Util whatever the preemption technique"),
                *(Claim(p, p, P, at={critical: 10.0}, worse_at={critical: 50.0},
                        provenance=(CLASSES,),
                        note="longer critical tasks: every heuristic drops slightly (with the "
                             "default classes the drop is not slight)")
                  for p in ("max-util", "max-upt-diff"))],
        provenance=[SMALL_SYSTEM],
        source="dissertation ch. 4 Fig. 39 (paper Fig. 6); spec ch4 §12",
        claim="Longer critical tasks oversubscribe the system more, so every heuristic drops "
              "slightly; the best preemption-capable heuristics earn the most in every case; "
              "Max UPT beats Max Util whatever the preemption technique.",
        scale=SCALE.format(trials=64), paper_trials=64)
    engine.figure(
        "ch4-fig-40", KIND, title="Tasks completed (Fig. 40 / paper Fig. 7)",
        preset="ch4-small", axes=[(critical, [10.0, 30.0, 50.0])],
        policies=ALL, trials=64, metrics=(DONE, P, CRIT),
        claims=claims(UPT_OVER_UTIL + UTILITY_OVER_COMPARISON, DONE, per_point=True),
        provenance=[SMALL_SYSTEM],
        source="dissertation ch. 4 Fig. 40 (paper Fig. 7); spec ch4 §12",
        claim="Utility-aware heuristics also complete more tasks than Random and FCFS, and the "
              "Max UPT family completes more than the Max Util family, since UPT steers each "
              "task to the cluster that runs it fastest.",
        scale=SCALE.format(trials=64), paper_trials=64)
    engine.figure(
        "ch4-quick", KIND, title="Preemption with step utilities (scaled-down, seconds)",
        preset="ch4-small", overrides={"utility.family": "step", "scheduler.duration_min": 720,
                                       "scheduler.warmup_min": 120},
        policies=("max-util", "max-util-greedy", "max-upt", "max-upt-diff"), trials=4,
        metrics=(P, CRIT), quick=True,
        claims=claims([("max-util-greedy", "max-util"), ("max-upt-diff", "max-upt")], P),
        provenance=[SMALL_SYSTEM],
        source="dissertation ch. 4 Fig. 36 (paper Fig. 3), step functions",
        claim="With step utilities a critical task must start almost at once, so every "
              "preemption-capable heuristic earns far more than its non-preemptive base.",
        scale="ch4-small over 12 simulated hours, 4 trials")
