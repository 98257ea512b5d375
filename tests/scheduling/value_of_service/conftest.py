from pathlib import Path

import pytest

from scheduling.engine import preset_scenario


@pytest.fixture(scope="session")
def ref(load_sibling):
    """Literal (slow) versions of the spec's formulas and heuristics, see _reference.py."""
    return load_sibling(Path(__file__).with_name("_reference.py"), "vos_reference")


@pytest.fixture(scope="session")
def small():
    return preset_scenario("vos-small")
