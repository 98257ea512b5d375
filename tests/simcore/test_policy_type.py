"""A kind's policy type is checked when a policy registers, with an error naming the policy."""

import pytest

from scheduling.engine import ENGINE
from scheduling.hpc.replay import JobReplay
from scheduling.swf_preemptive.policies import VictimPolicy
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


def test_the_preemptive_kind_declares_its_victim_policies_and_shares_only_the_event_loop():
    from scheduling.swf_preemptive.sim import Maui

    assert ENGINE.get_kind("swf-preemptive").policy_type is VictimPolicy
    factories = [p.factory for p in ENGINE.list_policies("swf-preemptive")]
    assert len(factories) == 8 and all(issubclass(f, VictimPolicy) for f in factories)
    # Both trace kinds run on the shared loop; neither kind's scheduler is the other's.
    assert issubclass(Maui, JobReplay) and issubclass(Replay, JobReplay)
    assert not issubclass(Maui, Replay)
    with pytest.raises(TypeError, match=r"policy 'replay-easy' of kind 'swf-preemptive' must be "
                                        r"a subclass of .*\.VictimPolicy"):
        ENGINE.policy("swf-preemptive", "replay-easy", label="E", description="",
                      spec="")(ENGINE.get_policy("swf-replay", "easy").factory)
