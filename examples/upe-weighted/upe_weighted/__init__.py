"""Max UPE with the energy weighted by an exponent: a ch. 3 (parallel-energy) policy plugin.

The dissertation's Max UPE ranks a task's options by utility per joule, u / E. Here the
energy counts ``weight`` times over, u / E**weight: above 1 the policy leans harder towards
thrifty P-states and clusters than Max UPE, below 1 towards utility (0 is utility alone).
Each mapping event ranks the waiting tasks once by their best objective, then places them in
that order, each on its best option still feasible, as a place-holder (like the "PH"
heuristics: a start later than now is booked until the next event only).
"""

from scheduling.parallel_energy.policies.base import INF, Policy


class WeightedUpe(Policy):
    family = "utility"
    uses_utility = True  # tasks whose best utility is below the dropping threshold are dropped

    def __init__(self, cfg, gen, weight=2.0, energy_filter=None):
        super().__init__(cfg, gen, energy_filter)
        self.weight = float(weight)

    def best(self, st, ctx, i, t):
        """(objective, cluster, P-state, start) of task ``t``'s best feasible option now."""
        opts, best = st.options, None
        for c in opts.eligible_clusters[t]:
            durations = opts.duration[t, c]
            starts = st.timelines[c].earliest1(int(opts.nodes[t, c]), durations)
            for p, start in enumerate(starts.tolist()):
                finish = start + float(durations[p])
                if start == INF or (ctx.allowed is not None and not ctx.allowed[i, c, p]):
                    continue
                if not st.ledger.fits(start, finish, float(st.charge_power[t, c, p])):
                    continue  # past the day's energy budget
                utility = st.utility.value1(t, finish)
                if utility <= 0.0 and self.cfg.scheduler.exclude_zero_utility:
                    continue
                objective = utility / float(opts.energy[t, c, p]) ** self.weight
                if best is None or objective > best[0]:
                    best = (objective, c, p, start)
        return best

    def map(self, st, ctx):
        tasks = ctx.tasks.tolist()
        ranked = [(found[0], i) for i, t in enumerate(tasks)
                  if (found := self.best(st, ctx, i, t)) is not None]
        for _, i in sorted(ranked, key=lambda item: (-item[0], item[1])):
            found = self.best(st, ctx, i, tasks[i])  # earlier placements may have taken it
            if found is not None:
                st.assign(tasks[i], found[1], found[2], found[3], permanent=False)
                ctx.assigned.add(tasks[i])


def register(policies):
    policies.policy("max-upe2-ph", label="Max UPE² PH", family="utility", weight=2.0,
                    description="Utility per energy squared, ranked once per event; "
                                "place-holders.")(WeightedUpe)
    policies.policy("max-upe-half-ph", label="Max UPE½ PH", family="utility", weight=0.5,
                    description="Utility per square root of energy, ranked once per event; "
                                "place-holders.")(WeightedUpe)
