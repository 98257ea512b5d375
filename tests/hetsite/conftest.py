import pytest

from hetsite import kinds


def small_setup():
    """The smallest runnable scenario: ch3 `small` when its engine is there, else the UAV one."""
    for kind, preset, policies in (("parallel-energy", "small", ["easy", "max-upe-ph"]),
                                   ("uav", "small-baseline", ["random", "meta+pf"])):
        if kinds.get_kind(kind) is not None:
            return kind, preset, policies
    pytest.skip("no scenario kind is available")


@pytest.fixture
def small():
    kind, preset, policies = small_setup()
    return {"kind": kind, "preset": preset, "policies": policies}
