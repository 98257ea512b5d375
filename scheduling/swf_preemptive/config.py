"""Scenario parameters of kind ``swf-preemptive`` (preemption-based backfill).

A preemptive scenario is a replay scenario (the trace and machine parameters every trace
replay has, ``scheduling.hpc.replay_config``) plus the workload recipe of the paper's
surrogate, the wall-clock accuracy model, priority classes and the preemption options. Every
[DEFAULT] of the spec (``shared/spec/preemption-backfill.md``) is a parameter here.
"""

from __future__ import annotations

from dataclasses import dataclass

from scheduling.hpc.replay_config import TraceReplayConfig
from simcore.params import param

KIND = "swf-preemptive"

CLASSES = ("none", "mix-a", "mix-b")
RHO = ("mean", "p80")
SCOPES = ("preemptible", "any")
PREEMPTIBLE = ("backfilled", "past-reservation")
TRIGGERS = ("head", "queue")
RESUSAGE = ("procs", "procs-x-wallclock")


@dataclass(frozen=True)
class PreemptiveConfig(TraceReplayConfig):
    # -- trace and machine (every trace replay's; these two read differently here) -----------
    estimate_scale: float = param(1.0, min=0.01, max=1000.0,
                                  help="wall-clock limit = scale x the trace's requested time "
                                       "(or x the run time when the accuracy model is off); "
                                       "a job that outlives its limit is killed at it",
                                  label="Wall-clock limit scale")
    use_requested_time: bool = param(True, help="take the limit from the SWF requested time "
                                                "when the trace has one (else the accuracy "
                                                "model or the run time)",
                                     label="Limit from the requested time")
    # -- surrogate workload (spec section 3, option 2) ------------------------------------------
    max_procs: int = param(0, unit="procs", min=0, max=10_000_000,
                           help="drop jobs wider than this before the replay (0 = keep all; "
                                "the paper's Utah trace has 1-32 processors)",
                           label="Widest job kept")
    target_load: float = param(0.0, min=0.0, max=10.0,
                               help="rescale the arrival times so the offered load on this "
                                    "machine is this (0 = keep the trace's arrivals)",
                               label="Target offered load")
    # -- wall-clock accuracy model (spec section 3) ------------------------------------------
    limit_model: bool = param(True, help="jobs without a requested time get a limit from the "
                                         "accuracy model (38% use <4%, 57% 4-40%, 5% 40-100% "
                                         "of it); off: limit = run time x estimate scale",
                              label="Wall-clock accuracy model")
    limit_max_h: float = param(72.0, unit="h", min=0.01, max=100_000.0, advanced=True,
                               help="longest synthesized limit (never below the run time)",
                               label="Longest synthesized limit")
    user_tendency: float = param(0.7, min=0.0, max=1.0,
                                 help="correlation of one user's accuracy ratios (0 = every "
                                      "job independent, 1 = a user always the same quantile); "
                                      "the accuracy mix over all jobs is unchanged",
                                 label="User accuracy tendency")
    users: int = param(64, min=1, max=1_000_000, advanced=True,
                       help="users drawn (Zipf popularity) for jobs without an SWF user id",
                       label="Synthetic users")
    kill_at_limit: bool = param(True, help="a job is killed when it reaches its wall-clock "
                                           "limit (counted as completed with the truncated run, "
                                           "spec ambiguity 13); off: limits below the run time "
                                           "are raised to it", label="Kill at the wall-clock limit")
    # -- priority classes (spec section 4.4) ------------------------------------------------------
    classes: str = param("none", choices=CLASSES,
                         help="none: every job equal (queue-time priority); mix-a: High and "
                              "Medium; mix-b: High and Low, drawn per job from the seed",
                         label="Priority classes")
    high_share: float = param(0.2, min=0.0, max=1.0,
                              help="share of High jobs in a mix (Mix A: 20% High / 80% Medium; "
                                   "Mix B: proportion not stated, 20% High / 80% Low assumed)",
                              label="Share of High jobs")
    within_class: bool = param(False, help="in a mix, a blocked job may also preempt "
                                           "backfilled jobs of its own class (spec default: "
                                           "no preemption within a class)",
                               label="Preemption within a class")
    # -- preemptive backfill (spec sections 4.1-4.3) -----------------------------------------
    preemption: bool = param(True, help="off: no job is preempted and nothing is backfilled "
                                        "past the reservation, so every policy is First Fit",
                             label="Preemption")
    preemptible: str = param("backfilled", choices=PREEMPTIBLE,
                             help="which backfilled jobs may be preempted: every job started "
                                  "by backfill (spec default) or only those started past the "
                                  "reservation (First Fit ones cannot delay it)",
                             label="Preemptible jobs")
    trigger: str = param("head", choices=TRIGGERS,
                         help="which waiting jobs may preempt: the top blocked job (then the "
                              "next once it started), or also every later one that passes "
                              "the First Fit test, over jobs ranked below it (spec 4.2: "
                              "'repeat for the next queued job while preemption is possible')",
                         label="Jobs that may preempt")
    relaxed_scope: str = param("preemptible", choices=SCOPES,
                               help="which jobs may backfill past the reservation: only those "
                                    "the reserved job may preempt, or any (the literal reading; "
                                    "in a mix these can delay their own class's reserved job)",
                               label="Jobs that may backfill past the reservation")
    history_filter: bool = param(False, help="backfill past the reservation only if the "
                                             "predicted run (wall-clock x rho of the user) ends "
                                             "by it; off: any job that fits (the paper's plain "
                                             "relaxed test)", label="User-history filter")
    history_rho: str = param("mean", choices=RHO,
                             help="rho of a user: the mean or the 80th percentile of "
                                  "actual / limit over the user's completed jobs (1 without "
                                  "history); used by the filter and by scaled-remaining",
                             label="User ρ")
    resusage: str = param("procs", choices=RESUSAGE, advanced=True,
                          help="wcduration-percentresusage key: processors (ties by wall-clock) "
                               "or processors x wall-clock", label="Resource-usage key")
    iteration_s: float = param(60.0, unit="s", min=1.0, max=86_400.0, advanced=True,
                               help="period of the scheduling iterations besides every submit "
                                    "and completion (provably no-ops; run only in check mode)",
                               label="Scheduling iteration period")

    @property
    def prioritized(self) -> bool:
        return self.classes != "none"
