"""Parameter names as words for people: ``time.sim_h`` -> "simulated time", group "Time".

Engines declare parameters with short snake_case names; a declared ``label`` wins, otherwise
the name's words are spelled out from a small vocabulary of the abbreviations the configs use,
and a trailing unit word (``_h``, ``_s``, ``_gj``) is dropped because the unit is shown beside
the field anyway.
"""

from __future__ import annotations

# Abbreviations used in parameter names across the kinds, spelled out.
WORDS = {
    "sim": "simulated time", "cov": "coefficient of variation", "cv": "coefficient of variation",
    "gp": "general-purpose", "sp": "special-purpose", "mq": "multi-queue",
    "pstate": "P-state", "etc": "ETC", "ept": "EPT", "epr": "EPR", "bsld": "bounded slowdown",
    "tau": "τ", "r": "R", "n": "number of", "min": "minimum",
    "max": "maximum", "rmax": "R max", "uavs": "UAVs", "uav": "UAV", "prob": "probability",
    "kmh": "km/h", "x": "x", "y": "y", "e": "E", "fcfs": "FCFS", "pct": "%", "upr": "UPR",
    "upe": "UPE", "tmin": "T_min", "vos": "VoS", "gj": "GJ", "iat": "inter-arrival time",
}
# Trailing unit words dropped from names (the unit is printed beside the label).
UNIT_WORDS = {"h", "s", "gj", "w", "km", "kmh", "min", "gb", "mj", "ks"}
BOUND_WORDS = {"min": "max", "max": "min"}
GROUP_TITLES = {"etc": "Execution times (ETC)", "uav": "UAVs"}


def _spell(words: list[str]) -> str:
    return " ".join(WORDS.get(w, w) for w in words)


def param_label(name: str, declared: str = "", unit: str = "", siblings=()) -> str:
    """The words for one (dotted) parameter name; ``siblings`` are the other names of its
    config, so ``interval_min`` beside ``interval_max`` reads "minimum interval" while a lone
    ``duration_min`` reads "duration" (its unit, min, is printed beside it)."""
    leaf = name.rsplit(".", 1)[-1]
    if declared and declared != leaf.replace("_", " "):
        return declared[:1].upper() + declared[1:]
    words = leaf.split("_")
    if len(words) > 2 and words[-1] in UNIT_WORDS and words[-2] in BOUND_WORDS:
        words = words[:-1]  # ``length_min_h``: the unit after the bound
    last = words[-1]
    stem = name[:len(name) - len(leaf)] + "_".join(words[:-1])
    paired = len(words) > 1 and last in BOUND_WORDS and (
        f"{stem}_{BOUND_WORDS[last]}" in siblings or not (last == "min" and unit == "min"))
    if len(words) > 1 and last in UNIT_WORDS and unit and not paired:
        words = words[:-1]
    if paired:
        # ``length_min`` is "minimum length", not "length minimum".
        words = [words[-1], *words[:-1]]
    text = _spell(words)
    return text[:1].upper() + text[1:] if text[:1].islower() and text[:2] != "P-" else text


def group_title(name: str) -> str:
    """The heading of a parameter's group (its first dotted part), '' for top-level ones."""
    if "." not in name:
        return ""
    head = name.split(".", 1)[0]
    return GROUP_TITLES.get(head) or _spell(head.split("_")).capitalize()


def unit_text(unit: str) -> str:
    return unit or ""
