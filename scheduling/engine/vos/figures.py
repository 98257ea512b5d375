"""The chapter's published comparisons as figure presets (spec §9; docs/vos.md has our numbers).

Scale: the simulation figures run 48 scenarios per environment (the number the source says were
generated; its results are "averaged over 64"); the testbed figures 20 workload instances per
size, emulated in simulation (spec §8.2). Each takes at most about 8 minutes of two workers on
two cores (Fig. 7: about 20 CPU-s per scenario over its five points and five policies).
"""

from __future__ import annotations

from .config import KIND
from .presets import ENV_VALUES

SIMPLES = ("simple", "simple-d", "simple-p", "simple-dp")
ORDER = (("max-vptr", "simple-dp"), ("simple-dp", "simple-d"), ("simple-dp", "simple-p"),
         ("simple-d", "simple"), ("simple-p", "simple"))
TESTBED = ("simple-dp", "max-vptr")
NODES = ("system.nodes", (1, 2, 4))  # 20, 40, 80 VM cores
SIM_SCALE = ("48 scenarios per environment, the number the source says it generated (its figures "
             "are averaged over 64)")
TB_SCALE = ("the testbed emulated in simulation with synthetic ETC/EEC tables (spec §8.2); 20 "
            "workload instances per size where the paper ran each workload once")


def register(engine) -> None:
    engine.figure(
        "vos-fig7", KIND, title="% of maximum VoS, cores varied (256 GB)",
        preset="vos-env-c256", axes=[("system.cores", ENV_VALUES)],
        policies=(*SIMPLES, "max-vptr"), metrics=("pct_max_vos",), trials=48,
        baseline="simple-dp", ranking=ORDER, per_point=True, scale=SIM_SCALE,
        source="ch. 2 §2.5.2, Fig. 7",
        claim="Max VPTR earns more VoS than Simple w/ d&p in every environment, up to 49% "
              "more; plain Simple is very poor and dropping or place-holders each improve it "
              "clearly; Max VPTR's advantage is most visible when cores are scarce (128).")
    engine.figure(
        "vos-fig8", KIND, title="% of maximum VoS, memory varied (256 cores)",
        preset="vos-env-m256", axes=[("system.memory_gb", tuple(float(m) for m in ENV_VALUES))],
        policies=(*SIMPLES, "max-vptr"), metrics=("pct_max_vos",), trials=48,
        baseline="simple-dp", ranking=ORDER, per_point=True, scale=SIM_SCALE,
        source="ch. 2 §2.5.2, Fig. 8",
        claim="Max VPTR earns more VoS than Simple w/ d&p in every environment; its advantage "
              "is most visible when memory is scarce (128 GB); Simple is very poor, and "
              "dropping or place-holders each improve it.")
    engine.figure(
        "vos-variants", KIND, title="Max VPTR against its variants",
        preset="vos-env-c256", axes=[("system.cores", (128, 384))],
        policies=("max-vptr", "max-value", "max-vpt", "max-vpcr", "max-vpmr"),
        metrics=("pct_max_vos",), trials=24, baseline="max-vptr",
        ranking=(("max-vptr", "max-value"), ("max-vptr", "max-vpt"), ("max-vptr", "max-vpcr"),
                 ("max-vptr", "max-vpmr")),
        scale="24 scenarios at the two extreme core counts; the paper gives no figure",
        source="ch. 2 §2.4.2 (text; results not shown)",
        claim="Max Value, Max VPT, Max VPCR and Max VPMR performed worse than or comparable "
              "to Max VPTR in every scenario examined.")
    testbed = [
        ("vos-fig10", 1, "exec_time_ks", True, "Fig. 10",
         "Total execution time of completed tasks (thousands of s) grows with the cores for "
         "both heuristics, as more tasks complete; Max VPTR's total is lower than Simple w/ "
         "d&p's."),
        ("vos-fig11", 1, "energy_mj", True, "Fig. 11",
         "Total energy of completed tasks (MJ) grows with the cores; Max VPTR's is lower than "
         "Simple w/ d&p's; at small core counts the two behave alike."),
        ("vos-fig12", 1, "pct_max_perf_value", False, "Fig. 12",
         "Max VPTR earns more performance value than Simple w/ d&p, up to 82% more."),
        ("vos-fig13", 1, "pct_max_energy_value", False, "Fig. 13",
         "Max VPTR earns more energy value than Simple w/ d&p, up to 110% more."),
        ("vos-fig14", 1, "pct_max_vos", False, "Fig. 14",
         "Max VPTR earns more VoS than Simple w/ d&p: +77% at 80 cores, +36% at 40, +32% at "
         "20."),
        ("vos-fig15", 2, "pct_max_perf_value", False, "Fig. 15",
         "Max VPTR earns more performance value than Simple w/ d&p, almost +100% at 80 "
         "cores."),
        ("vos-fig16", 2, "pct_max_energy_value", False, "Fig. 16",
         "Max VPTR earns more energy value than Simple w/ d&p, +84% at 80 cores."),
        ("vos-fig17", 2, "pct_max_vos", False, "Fig. 17",
         "Max VPTR earns up to 91% more VoS than Simple w/ d&p and the gap widens as cores "
         "increase; Simple w/ d&p's % of maximum VoS falls as cores increase."),
    ]
    titles = {"exec_time_ks": "total execution time of completed tasks",
              "energy_mj": "total energy of completed tasks",
              "pct_max_perf_value": "% of maximum performance value",
              "pct_max_energy_value": "% of maximum energy value",
              "pct_max_vos": "% of maximum VoS"}
    for name, workload, metric, lower, figure, claim in testbed:
        engine.figure(
            name, KIND, title=f"Testbed Workload {workload}: {titles[metric]}",
            preset=f"vos-testbed-w{workload}-80", axes=[NODES], policies=TESTBED,
            metrics=(metric,), trials=20, baseline="simple-dp",
            ranking=(("max-vptr", "simple-dp"),), per_point=True, lower_is_better=lower,
            scale=TB_SCALE, source=f"ch. 2 §2.6.4, {figure}", claim=claim)
