"""The policy type of the swf-replay kind: a scheduler on the shared trace-replay event loop
(:mod:`scheduling.hpc.replay`) that decides in ``schedule`` which waiting jobs start."""

from __future__ import annotations

from scheduling.hpc.replay import InvariantError, JobReplay

__all__ = ["InvariantError", "Replay"]


class Replay(JobReplay):
    """An swf-replay policy (FCFS, EASY, conservative): the kind's policy type, checked at
    registration. Its one method is ``schedule(t, completed, first_new)``: start jobs at
    ``t`` (``first_new .. arrived-1`` arrived at ``t``; ``completed``: a job ended at ``t``)."""

    def schedule(self, t: float, completed: bool, first_new: int) -> None:
        raise NotImplementedError
