from pathlib import Path

import pytest

from scheduling.engine import preset_scenario


@pytest.fixture(scope="session")
def ref(load_sibling):
    """The literal (slow) heuristics of the spec and run helpers, see _reference.py."""
    return load_sibling(Path(__file__).with_name("_reference.py"), "ch4_reference")


@pytest.fixture(scope="session")
def small():
    return preset_scenario("ch4-small")
