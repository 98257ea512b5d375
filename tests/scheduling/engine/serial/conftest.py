import importlib.util
from pathlib import Path

import pytest

from scheduling.engine import preset_scenario


def _load_reference():
    spec = importlib.util.spec_from_file_location("ch4_reference",
                                                  Path(__file__).with_name("_reference.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def ref():
    """The literal (slow) heuristics of the spec and run helpers, see _reference.py."""
    return _load_reference()


@pytest.fixture(scope="session")
def small():
    return preset_scenario("ch4-small")
