from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def ref(load_sibling):
    """The literal loop of tail-chopping (trailing-tasks spec §6), see _reference.py."""
    return load_sibling(Path(__file__).with_name("_reference.py"), "manytask_reference")


def run_list_scenario(runtimes, policy="sorted+chop", seed=0, **params):
    """Simulate an inline list of run times; ``params`` are ``group__name=value`` overrides
    (``machine__partitions=[2, 4]``)."""
    from scheduling.engine import scenario, simulate

    data = {"workload": {"source": "list", "values": list(runtimes)},
            "output": {"task_records": 100_000}}
    for key, value in params.items():
        group, _, name = key.partition("__")
        data.setdefault(group, {})[name] = value
    return simulate(scenario("many-task", data), policy, seed=seed)


@pytest.fixture(scope="session")
def run_list():
    return run_list_scenario
