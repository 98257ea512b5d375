"""Policy catalogue: every base heuristic and its Preemption/Filtering variants (heuristic variants
(ch. 5 spec §4.8))."""

from __future__ import annotations

from ..config import KIND
from .base import UavPolicy
from .greedy import GreedyPolicy
from .meta import MetaPolicy
from .random_ import RandomPolicy

BASES = {
    "random": ("Random", "baseline", "§4.2",
               "random target order; a random valid idle UAV and a random valid sensor"),
    "rbs": ("Random Best Sensor", "baseline", "§4.3",
            "like Random, but the UAV's sensor with the highest quality x affinity"),
    "max-value": ("Max Value", "greedy", "§4.4",
                  "repeatedly start the valid combination with the highest value"),
    "max-vpt": ("Max Value per Time", "greedy", "§4.4",
                "repeatedly start the combination with the highest value per surveil hour"),
    "max-vpe": ("Max Value per Energy", "greedy", "§4.4",
                "repeatedly start the combination with the highest value per projected energy"),
    "meta": ("Metaheuristic", "meta", "§4.5",
             "per UAV Max Value when behind the linear energy pace, else Max VPE; the system "
             "starts the proposal with the highest value"),
}
VARIANTS = {
    "": ("", ""),
    "p": (" + P", "; with preemption of running surveils by better ones (spec ch5 §4.6)"),
    "f": (" + F", "; with per-UAV adaptive VPE filtering (spec ch5 §4.7)"),
    "pf": (" + P + F", "; with preemption and filtering (spec ch5 §4.6, §4.7)"),
}
# Only these take P and F: Random and RBS have no score to compare (no modifications on Random/RBS
# (ch. 5 spec A28)).
SCORED = ("max-value", "max-vpt", "max-vpe", "meta")


def policy_names() -> list[str]:
    names = ["random", "rbs"]
    for base in SCORED:
        names += [base] + [f"{base}+{v}" for v in ("p", "f", "pf")]
    return names


def split_name(name: str) -> tuple[str, bool, bool]:
    base, _, variant = name.partition("+")
    return base, "p" in variant, "f" in variant


def policy_class(name: str) -> tuple[type[UavPolicy], dict]:
    """The class of policy ``name`` and the options it is registered (and built) with."""
    base, preemption, filtering = split_name(name)
    if base == "random":
        return RandomPolicy, {}
    if base == "rbs":
        return RandomPolicy, {"best_sensor": True}
    if base == "meta":
        return MetaPolicy, {"preemption": preemption, "filtering": filtering}
    return GreedyPolicy, {"score": base.removeprefix("max-"), "preemption": preemption,
                          "filtering": filtering}


def make_policy(name: str, rng) -> UavPolicy:
    cls, options = policy_class(name)
    return cls(rng, **options)


def with_flag(name: str, flag: str) -> str:
    """The variant of ``name`` with ``flag`` ("p" or "f") switched on, for the CLI flags."""
    base, p, f = split_name(name)
    p, f = p or flag == "p", f or flag == "f"
    suffix = ("p" if p else "") + ("f" if f else "")
    return f"{base}+{suffix}" if suffix else base


__all__ = ["BASES", "SCORED", "VARIANTS", "UavPolicy", "make_policy", "policy_class",
           "policy_names", "split_name", "with_flag"]


def register(engine) -> None:
    """Register every base heuristic and its variants: each a :class:`UavPolicy` subclass,
    built per run as ``cls(rng, **options)``."""
    vspec = {"": "", "p": ", §4.6", "f": ", §4.7", "pf": ", §4.6, §4.7"}
    for name in policy_names():
        base, p, f = split_name(name)
        label, family, spec, desc = BASES[base]
        variant = ("p" if p else "") + ("f" if f else "")
        vlabel, vdesc = VARIANTS[variant]
        cls, options = policy_class(name)
        engine.policy(KIND, name, label=label + vlabel, description=desc + vdesc,
                      spec=spec + vspec[variant], family=family, **options)(cls)
