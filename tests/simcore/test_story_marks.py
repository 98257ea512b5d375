"""Run charts and stories meet: every mark a run chart names as a task (``meta.task``, an index
into the mark's ``customdata``; docs/explain.md) names a task of the run, and a run that
explained itself has a story for every such mark the log kept."""

import pytest

from simcore import explain
from simcore.lab import discover
from simcore.result import Result

# One small explained run per kind whose run chart has task marks, and its id column.
CASES = [("swf-replay", "swf-small", "easy", "job_id"),
         ("swf-preemptive", "pbb-small", None, "job_id"),
         ("parallel-energy", "ch3-testbed", None, "id"),
         ("value-of-service", "vos-small", None, "id"),
         ("serial-preemption", "ch4-small", "max-util-greedy", "id"),
         ("uav", "small-baseline", None, "id"),
         ("grid", "grid-small", "internode-can", "id")]  # its migrations and preemptions
LABS = {lab.kind: lab for lab in discover()}


@pytest.mark.parametrize(("kind", "preset", "policy", "column"), CASES)
def test_every_task_mark_names_a_task_with_a_story(kind, preset, policy, column):
    lab = LABS[kind]
    engine = lab.engine
    policy = policy or lab.default_policies[0]
    result = engine.simulate(engine.preset_scenario(preset), policy, seed=1001, explain=True)
    data = result.to_dict()
    ids = {str(x) for x in data["tasks"][column]}
    kept = {str(d["task"]) for d in data["decisions"]}
    marked = set()
    for spec in lab.run_charts:
        for trace in spec.build(Result.from_dict(data))["data"]:  # as stored
            at = (trace.get("meta") or {}).get("task")
            if at is None:
                continue
            marked |= {str(c[at]) for c in trace["customdata"]}
    assert marked, f"{kind}: no run chart names its task marks"
    assert marked <= ids  # a mark names a task of the run
    assert marked & kept  # and clicking kept ones finds their story
    for task in sorted(marked & kept)[:20]:
        assert explain.story(data["decisions"], task)
