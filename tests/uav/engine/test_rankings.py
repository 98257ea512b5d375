"""Published rankings that are large and stable enough to check on small missions in seconds
(claims to check (ch. 5 spec §8.2); docs/reproduction.md has the full figures)."""

from uav.engine import preset_scenario, simulate

MISSIONS = range(30)


def _values(policy, **overrides):
    sc = preset_scenario("small-baseline", {"compare_random": False, **overrides})
    return [simulate(sc, policy, seed=s).summary["value"] for s in MISSIONS]


def test_preemption_and_filtering_each_raise_meta():
    """R1 (Fig. 46): Meta+P and Meta+F both earn more than Meta over the same missions."""
    meta = sum(_values("meta"))
    assert sum(_values("meta+p")) > 1.08 * meta
    assert sum(_values("meta+f")) > 1.02 * meta


def test_filtering_overtakes_preemption_when_energy_is_scarce():
    """R3 (Fig. 47): preemption ahead of filtering at 0.05 per hour, behind it at 0.20."""
    assert sum(_values("meta+p")) > sum(_values("meta+f"))
    assert sum(_values("meta+f", energy_rate_mean=0.2)) > \
        sum(_values("meta+p", energy_rate_mean=0.2))
