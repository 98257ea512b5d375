"""Named ``swf-preemptive`` scenarios: the paper's surrogate workload and its figure presets."""

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
