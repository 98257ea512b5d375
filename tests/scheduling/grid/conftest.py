from pathlib import Path

import pytest

from scheduling.engine import preset_scenario


@pytest.fixture(scope="session")
def helpers(load_sibling):
    """Hand-built workloads, traced runs, invariant checks, reference SRPT (_helpers.py)."""
    return load_sibling(Path(__file__).with_name("_helpers.py"), "grid_helpers")


@pytest.fixture(scope="session")
def small():
    return preset_scenario("grid-small")
