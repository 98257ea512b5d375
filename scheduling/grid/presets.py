"""Named grid scenarios and the paper's figures as runnable figure presets.

The paper's setting is the default of :mod:`.config` (1,000 nodes, 5,000 jobs, T = 3,600 s,
alpha 0, beta 1, delta 5 s); its load knob is the mean inter-arrival time (workload (grid spec §3),
experiments (grid spec §8)).
"""

from __future__ import annotations

from simcore.claims import Claim, Provenance, Size, claims

from .config import KIND

IATS = (1.5, 2.0, 2.5, 3.0, 3.5, 4.0)
FOUR = ("fcfs", "local", "internode-can", "internode-2nn")
PREEMPTIVE = ("local", "internode-can", "internode-2nn")

# 100 nodes and 500 jobs at a tenth of the arrival rate: the main setting's load per core at
# IAT 2 s, so every scheduler runs in well under a second.
SMALL = {"nodes": {"n_nodes": 100}, "jobs": {"n_jobs": 500, "iat_s": 20.0},
         "report": {"omit_lowest": 200, "tail_jobs": 20}}


def register(engine) -> None:
    engine.preset("grid-small", KIND, params=SMALL, source="§3, §8 (scaled down)",
                  description="Grid scaled down: 100 nodes, 500 jobs arriving every 20 s on "
                              "average (the main setting's load per core at IAT 2 s); any "
                              "scheduler in well under a second.")
    engine.preset("grid-main", KIND, params={}, source="§3, §8",
                  description="The paper's main setting: 1,000 nodes, 5,000 jobs, IAT 2 s, "
                              "alpha 0, beta 1, delta 5 s.")
    for iat in IATS:
        engine.preset(f"grid-iat-{iat:g}", KIND, params={"jobs": {"iat_s": iat}},
                      source="§8 Fig. 3, 5, 6",
                      description=f"The main setting at a mean inter-arrival time of {iat:g} s.")
    engine.preset("grid-aging", KIND, params={"scheduler": {"alpha": 0.5}},
                  source="§8 Fig. 4",
                  description="The aging study: alpha 0.5, beta 1 (long waits raise a job's "
                              "priority), otherwise the main setting.")
    engine.preset("grid-delta-2.5", KIND, params={"scheduler": {"delta_s": 2.5}},
                  source="§9 (delta sensitivity)",
                  description="The main setting with a 2.5 s scheduling interval.")

    iat, alpha, delta = "jobs.iat_s", "scheduler.alpha", "scheduler.delta_s"
    median, tail = "wait_median_s", "wait_tail_mean_s"
    engine.figure(
        "grid-fig3", KIND, title="Median wait vs inter-arrival time (Fig. 3)",
        preset="grid-main", axes=[(iat, IATS)], policies=FOUR,
        metrics=(median, "wait_mean_s", "conv_wait_median_s"), trials=10,
        claims=[*claims([("local", "fcfs"), ("internode-can", "local"),
                         ("internode-2nn", "local")], median, lower=True, per_point=True),
                *(Claim(p, p, median, lower=True, at={iat: 4.0}, worse_at={iat: 1.5},
                        note="waits fall as the IAT rises") for p in FOUR)],
        baseline="fcfs",
        claim="Local preemptive has a much lower median wait than FCFS at every IAT; internode "
              "is lower still; the CAN' vs 2-NN gap is small at IAT 1.5 and 2.0 and grows with "
              "the IAT; waits fall as the IAT rises.",
        source="Balasubramanian, Sussman, Sadeh (JSSPP 2013) Fig. 3; spec §9",
        scale="Full size (1,000 nodes, 5,000 jobs) with 10 seeds per point, as the spec asks.")
    engine.figure(
        "grid-fig4-aging", KIND, title="Aging: alpha 0 vs 0.5 (Fig. 4)",
        preset="grid-main", axes=[(alpha, (0.0, 0.5))], policies=PREEMPTIVE,
        metrics=("wait_top10_median_s", median, "wait_max_s", "preemptions"),
        trials=10,
        claims=[*(Claim(p, p, "wait_top10_median_s", lower=True, at={alpha: 0.5},
                        worse_at={alpha: 0.0},
                        note="alpha 0.5 reduces the median wait of the 10% longest-waiting "
                             "jobs") for p in PREEMPTIVE),
                *(Claim(p, p, median, at={alpha: 0.5}, worse_at={alpha: 0.0},
                        note="the overall median is somewhat higher with alpha 0.5")
                  for p in PREEMPTIVE)],
        claim="In CAN', alpha 0.5 clearly reduces the median wait of the 10% longest-waiting "
              "jobs (Fig. 4a; similar for 2-NN and local) while the overall median is "
              "somewhat higher than with alpha 0 (Fig. 4b).",
        source="Balasubramanian, Sussman, Sadeh (JSSPP 2013) Fig. 4; spec §9",
        provenance=[Provenance("reading", "jobs.iat_s = 2 s, the main setting: the paper does "
                                          "not state Fig. 4's inter-arrival time")],
        scale="Full size at the default IAT of 2 s (the paper does not state the IAT of "
              "Fig. 4), 10 seeds.")
    beat_fcfs = [Claim(p, "fcfs", "wait_mean_s", lower=True,
                       note="the preemptive schemes beat FCFS markedly (Fig. 5c)")
                 for p in PREEMPTIVE]
    for value, claims_, claim in (
            (1.5, claims([("local", "internode-can"), ("local", "internode-2nn")], tail,
                         lower=True),
             "At IAT 1.5 the local preemptive scheduler has the shorter tail: migrations "
             "lengthen some queues (load imbalance); local and internode-2NN curves almost "
             "overlap in Fig. 5a."),
            (2.5, claims([("local", "internode-can"), ("local", "internode-2nn")], tail,
                         lower=True),
             "At IAT 2.5 a similar but weaker trend: local's tail is shorter than internode's."),
            (4.0, claims([("internode-2nn", "local"), ("internode-2nn", "internode-can")],
                         tail, lower=True) + beat_fcfs,
             "At IAT 4.0 internode-2NN has the shortest tail, beating both local and "
             "internode-CAN'; the preemptive schemes beat FCFS markedly (Fig. 5c).")):
        engine.figure(
            f"grid-fig56-iat-{value:g}", KIND,
            title=f"Wait distribution and tail at IAT {value:g} s (Figs. 5, 6)",
            preset=f"grid-iat-{value:g}", policies=FOUR,
            metrics=(tail, "wait_max_s", "wait_p90_s", median, "wait_mean_s"),
            trials=10, claims=claims_, claim=claim,
            source="Balasubramanian, Sussman, Sadeh (JSSPP 2013) Figs. 5, 6; spec §9",
            scale="Full size, 10 seeds; the tail is the mean of the 200 longest waits "
                  "(report.tail_jobs) and the maximum.")
    engine.figure(
        "grid-delta", KIND, title="Scheduling interval 5 s vs 2.5 s",
        preset="grid-main", axes=[(delta, (5.0, 2.5)), (iat, (1.5, 2.5, 4.0))],
        policies=PREEMPTIVE, metrics=(median, "wait_mean_s", "preemptions"),
        trials=5,
        claims=[Claim("internode-can", "internode-can", median, lower=True,
                      at={delta: 2.5, iat: 4.0}, worse_at={delta: 5.0, iat: 4.0},
                      size=Size("ratio", -50.0),
                      note="internode CAN' at IAT 4 s: halving delta drops the median wait by "
                           "about 50%")],
        claim="Halving delta barely changes mean and median waits or preemptions, except "
              "internode CAN' at IAT 4 s, whose median wait drops by about 50%.",
        source="Balasubramanian, Sussman, Sadeh (JSSPP 2013) §6.2; spec §9",
        scale="Full size, three IATs, 5 seeds.")
    engine.figure(
        "grid-preemptions", KIND, title="Preemptions per run (alpha 0, delta 5 s)",
        preset="grid-main", axes=[(iat, (1.5, 4.0))], policies=PREEMPTIVE,
        metrics=("preemptions", "jobs_preempted"), trials=10,
        claims=[Claim(p, p, "preemptions", at={iat: 1.5}, worse_at={iat: 4.0},
                      size=Size("ratio", round(100 * (hi - lo) / lo, 1)),
                      note=f"{hi} preemptions at IAT 1.5 s down to {lo} at 4 s")
                for p, hi, lo in (("local", 556, 471), ("internode-can", 570, 480),
                                  ("internode-2nn", 570, 480))],
        claim="Local: 556 preemptions at IAT 1.5 s down to 471 at 4 s; internode: 570 down "
              "to 480; about 1/8 of the 5,000 jobs.",
        source="Balasubramanian, Sussman, Sadeh (JSSPP 2013) §6.2; spec §9",
        scale="Full size, 10 seeds.")
