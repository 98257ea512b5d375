"""Builders for hand-made missions, so tests can check value accounting by hand."""

from __future__ import annotations

import numpy as np
import pytest

from simcore.params import from_dict
from uav.engine.config import UavConfig
from uav.engine.model import SENSOR_INDEX, DynamicEvent, Mission, TargetSpec, UavSpec
from uav.engine.policies import make_policy
from uav.engine.sim import Simulator


def mission(uavs, targets, events=(), horizon=24.0):
    """uavs: [(E_tot, {"VIS": (rate, quality)}, joined?)], targets: [(priority, T_s,
    {"VIS": affinity}, windows, joined?)]; ids are 1-based in list order."""
    us = [UavSpec(i + 1, u[0], {SENSOR_INDEX[k]: v for k, v in u[1].items()},
                  u[2] if len(u) > 2 else 0.0) for i, u in enumerate(uavs)]
    ts = [TargetSpec(i + 1, t[0], t[1], {SENSOR_INDEX[k]: v for k, v in t[2].items()},
                     list(t[3]), t[4] if len(t) > 4 else 0.0) for i, t in enumerate(targets)]
    return Mission(horizon, us, ts, list(events))


def event(time, kind, **kw):
    if "sensor" in kw and isinstance(kw["sensor"], str):
        kw["sensor"] = SENSOR_INDEX[kw["sensor"]]
    if "values" in kw:
        kw["values"] = {SENSOR_INDEX[k]: v for k, v in kw["values"].items()}
    return DynamicEvent(time, kind, **kw)


def run(m: Mission, policy="max-value", seed=0, **cfg) -> Simulator:
    config = from_dict(UavConfig, {"horizon_h": m.horizon, **cfg})
    rng = np.random.default_rng(seed)
    return Simulator(m, config, make_policy(policy, rng)).run()


@pytest.fixture
def uavsim():
    """``uavsim.mission(...)``, ``uavsim.event(...)``, ``uavsim.run(mission, policy, **cfg)``."""

    class Api:
        pass

    api = Api()
    api.mission, api.event, api.run = staticmethod(mission), staticmethod(event), staticmethod(run)
    return api
