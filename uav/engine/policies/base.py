"""The base every UAV policy is a subclass of (checked when it registers)."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np


class UavPolicy(ABC):
    """A UAV mapping heuristic: the engine calls :meth:`map` once per mapping event.

    The kind builds one instance per run, ``cls(rng, **options)``: ``rng`` is the policy's
    own random stream (its draws never shift the mission's; the view's random tie-breaks use
    it too), ``options`` the keywords the policy was registered with (a subclass names the
    ones it takes, e.g. ``score``, ``preemption`` and ``filtering`` for
    :class:`~.greedy.GreedyPolicy`).
    """

    def __init__(self, rng: np.random.Generator | None = None):
        self.rng = rng

    @abstractmethod
    def map(self, view) -> None:
        """Start surveils at one mapping event, ``view.now`` (minutes).

        ``view`` (:class:`~uav.engine.sim.MappingView`) is what the policy may know now,
        never window ends, future windows or future events: per (UAV, target, sensor) the
        scores ``V``, ``VPT``, ``VPE`` and ``valid``; per UAV ``uav_ok`` (present with
        energy left), ``energy_remaining``, ``energy_total``, ``energy_spent`` and
        ``day_elapsed`` (fractions), ``running_target``/``running_sensor`` (-1 when idle),
        ``quality``; per target ``target_ok`` (eligible now), ``running_uav``, ``affinity``;
        the scenario's ``tie_break``, ``preemption_basis`` and ``filter_base``. The helpers in
        :mod:`uav.engine.policies.common` (``base_mask``, ``flat_argmax``, ``row_argmax``,
        ``filter_threshold``) apply the scenario's rules to these.

        It acts only through ``view.start(uav, sensor, target)``, which starts the surveil
        now, preempting whatever that UAV or target was doing, and returns the (UAV, target)
        that freed. Returns nothing. The simulator does not re-check ``valid`` and
        ``uav_ok``/``target_ok`` here: a policy starts only combinations where all hold.
        """
