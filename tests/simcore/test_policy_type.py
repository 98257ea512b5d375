"""A kind's policy type is checked when a policy registers, with an error naming the policy."""

import pytest

from scheduling.engine import ENGINE
from scheduling.swf_replay.sim import Replay
from simcore.registry import Engine


class Base:
    def order(self, jobs):
        raise NotImplementedError


class ShortestFirst(Base):
    def order(self, jobs):
        return sorted(jobs)


def _engine():
    engine = Engine("t", "t", kinds={"k": "t.k"})
    engine.kind("k", title="k", description="k", config_cls=object, policy_type=Base)(
        lambda *a: None)
    return engine


def test_a_policy_of_the_kind_s_type_registers_and_any_other_is_refused_by_name():
    engine = _engine()
    engine.policy("k", "shortest", label="S", description="", spec="")(ShortestFirst)
    assert engine.get_policy("k", "shortest").factory is ShortestFirst
    with pytest.raises(TypeError, match=r"policy 'plain' of kind 'k' must be a subclass of "
                                        r".*\.Base, got <function"):
        engine.policy("k", "plain", label="P", description="", spec="")(lambda jobs: jobs)
    with pytest.raises(TypeError, match="policy 'other-class'"):
        engine.policy("k", "other-class", label="O", description="", spec="")(dict)


def test_policies_registered_before_their_kind_are_checked_when_it_registers():
    engine = Engine("t", "t", kinds={"k": "t.k"})
    engine.policy("k", "plain", label="P", description="", spec="")(lambda jobs: jobs)
    with pytest.raises(TypeError, match="policy 'plain' of kind 'k'"):
        engine.kind("k", title="k", description="k", config_cls=object, policy_type=Base)(
            lambda *a: None)


def test_the_replay_kind_declares_its_policy_type_and_its_policies_are_of_it():
    assert ENGINE.get_kind("swf-replay").policy_type is Replay
    assert all(issubclass(p.factory, Replay) for p in ENGINE.list_policies("swf-replay"))
