"""Named ``swf-preemptive`` scenarios: the paper's surrogate workload and its figure presets."""

from simcore.claims import Provenance, claims

from .config import KIND

#: Spec section 3, option 2: the Lublin trace cut to jobs of at most 32 processors on a
#: 64-processor machine, arrivals rescaled to an offered load of 0.8.
SURROGATE = {"trace": "lublin_256", "nodes": 64, "max_procs": 32, "target_load": 0.8}


def register(engine) -> None:
    engine.preset("pbb-surrogate", KIND, params=SURROGATE,
                  description="The paper's surrogate workload: Lublin jobs of <= 32 "
                              "processors on 64, load 0.8, limits from the accuracy model "
                              "(8,794 jobs, about a second per run).",
                  source="Snell, Clement, Jackson 2002, section 4 (spec section 3 surrogate)")
    engine.preset("pbb-mix-a", KIND, params={**SURROGATE, "classes": "mix-a"},
                  description="Surrogate workload with Mix A: 20% High, 80% Medium per job.",
                  source="Snell, Clement, Jackson 2002, Figs. 8-9")
    engine.preset("pbb-mix-b", KIND, params={**SURROGATE, "classes": "mix-b"},
                  description="Surrogate workload with Mix B: 20% High, 80% Low per job.",
                  source="Snell, Clement, Jackson 2002, Figs. 10-11")
    engine.preset("pbb-small", KIND, params={**SURROGATE, "trace": "lublin_256_small"},
                  description="The surrogate recipe on the first 500 Lublin jobs (440 jobs, "
                              "a few hundredths of a second).",
                  source="hetsite trace library")
    for mix, classes in (("a", "High and Medium"), ("b", "High and Low")):
        engine.preset(f"pbb-small-mix-{mix}", KIND,
                      params={**SURROGATE, "trace": "lublin_256_small", "classes": f"mix-{mix}"},
                      description=f"pbb-small with Mix {mix.upper()} ({classes}, 20% High).",
                      source="hetsite trace library")


PLOTTED = ("first-fit", "random", "duration-consumed", "duration-remaining", "wcduration",
           "wcduration-percentresusage")
PRIORITIZED = ("first-fit", "duration-remaining", "duration-consumed")
SIZES = (1, 2, 4, 8, 16, 32)
SOURCE = "Snell, Clement, Jackson, Preemption Based Backfill, JSSPP 2002"
SCALE = ("The Utah trace (11,445 jobs) is not public: the spec's surrogate instead (Lublin "
         "jobs of <= 32 processors on P = 64, arrivals rescaled to load 0.8, limits from the "
         "CTC accuracy model with a per-user tendency), full size, 10 seeds; about a second "
         "per run, so the figure takes about {minutes} min on 2 cores.")


def _per_size(metric: str, cls: str = "") -> tuple[str, ...]:
    infix = f"_{cls}" if cls else ""
    return (f"{metric}{infix}", *(f"{metric}{infix}_p{b}" for b in SIZES))


UTAH = Provenance("substitute", "the spec's Lublin surrogate (jobs of <= 32 processors on 64, "
                               "load 0.8) for the Utah trace, which is not public")


def register_figures(engine) -> None:
    preemptive = PLOTTED[1:]
    engine.figure(
        "pbb-fig6", KIND, title="Expansion factor per victim policy, non-prioritized",
        preset="pbb-surrogate", policies=PLOTTED, metrics=_per_size("xf_mean"), trials=10,
        baseline="first-fit",
        claims=claims((("duration-remaining", "first-fit"), ("duration-consumed", "first-fit"),
                       ("first-fit", "random")), "xf_mean", lower=True),
        provenance=[UTAH],
        claim="Random victim selection is worst, clearly above First Fit; duration-remaining "
              "and duration-consumed give the best expansion factor and consistently beat "
              "First Fit.",
        source=f"{SOURCE}, Fig. 6", scale=SCALE.format(minutes=1))
    engine.figure(
        "pbb-fig7", KIND, title="Queue time per victim policy, non-prioritized",
        preset="pbb-surrogate", policies=PLOTTED, metrics=_per_size("queue_time_mean_s"),
        trials=10, baseline="first-fit",
        claims=claims(tuple((p, "first-fit") for p in preemptive), "queue_time_mean_s",
                      lower=True),
        provenance=[UTAH],
        claim="The average queue time of every preemption policy is below First Fit's (holes "
              "are filled with jobs whose estimates would exclude them); no clear winner, "
              "duration-remaining and duration-consumed both good. (The text of Fig. 6 also "
              "says random has a higher queue time than First Fit.)",
        source=f"{SOURCE}, Fig. 7", scale=SCALE.format(minutes=1))
    for fig, mix, other, metric, words in (
            ("pbb-fig8", "a", "medium", "xf_mean", "expansion factor"),
            ("pbb-fig9", "a", "medium", "queue_time_mean_s", "queue time"),
            ("pbb-fig10", "b", "low", "xf_mean", "expansion factor"),
            ("pbb-fig11", "b", "low", "queue_time_mean_s", "queue time")):
        claim = ("High jobs reach an expansion factor near 1 (near-zero queue time), except "
                 "the 32-processor class: High may preempt only backfilled Medium jobs. Medium "
                 "queue times stay about those of First Fit." if mix == "a" else
                 "High jobs get near-optimal service: they queue only behind High jobs and a "
                 "running Low job is killed at once. Low queue times are mostly similar to "
                 "First Fit's, except 32-processor Low jobs, which wait longer.")
        engine.figure(
            fig, KIND, title=f"{words.capitalize()} per class and size, Mix {mix.upper()}",
            preset=f"pbb-mix-{mix}", policies=PRIORITIZED,
            metrics=(*_per_size(metric, "high"), *_per_size(metric, other)), trials=10,
            baseline="first-fit",
            claims=claims((("duration-remaining", "first-fit"),
                           ("duration-consumed", "first-fit")), f"{metric}_high", lower=True,
                          note="High jobs get better service than under First Fit"),
            provenance=[UTAH, Provenance("reading", "the victim policy of the prioritized runs "
                                                    "is not stated: duration-remaining (the "
                                                    "spec's default) and duration-consumed")],
            claim=claim, source=f"{SOURCE}, Fig. {fig[7:]}",
            scale=SCALE.format(minutes=1) + " Victim policy not stated for the prioritized "
                                            "runs: duration-remaining (spec default) and "
                                            "duration-consumed.")
    engine.figure(
        "pbb-fig11-low32", KIND, title="32-processor Low jobs wait longer than under First Fit",
        preset="pbb-mix-b", policies=PRIORITIZED, metrics=("queue_time_mean_s_low_p32",),
        trials=10, baseline="first-fit",
        claims=claims((("first-fit", "duration-remaining"), ("first-fit", "duration-consumed")),
                      "queue_time_mean_s_low_p32", lower=True),
        provenance=[UTAH],
        claim="Low jobs with 32 processors received a higher average queue time than under "
              "First Fit.", source=f"{SOURCE}, Fig. 11", scale=SCALE.format(minutes=1))
