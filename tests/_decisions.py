"""Checks the decision-trace tests of several kinds share (loaded with ``load_sibling``)."""

from __future__ import annotations

import json


def by_task(decisions: list[dict]) -> dict:
    """Each task's decisions, in the order they were made."""
    out: dict = {}
    for d in decisions:
        out.setdefault(d["task"], []).append(d)
    return out


def assert_explain_changes_nothing(simulate, scenario, policy: str, seed: int) -> None:
    """A run with explain off is the run without the argument, and one with it on differs only
    by the two keys it adds (``decisions`` and ``meta.decisions``)."""
    plain = simulate(scenario, policy, seed=seed).to_dict()
    off = simulate(scenario, policy, seed=seed, explain=False).to_dict()
    on = simulate(scenario, policy, seed=seed, explain=True).to_dict()
    assert "decisions" not in off and "decisions" not in off["meta"]
    assert on.pop("decisions") and on["meta"].pop("decisions")
    for r in (plain, off, on):
        r["meta"].pop("code_version")
    assert json.dumps(plain, sort_keys=True) == json.dumps(off, sort_keys=True) \
        == json.dumps(on, sort_keys=True)
