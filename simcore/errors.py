"""The one error type the engines raise for bad input."""


class ScenarioError(ValueError):
    """Invalid scenario, policy, trace or parameter.

    ``field`` is the dotted name of the offending parameter (or ``trace:LINE:FIELD`` for trace
    files), so forms and the API can show the message beside the right input.
    """

    def __init__(self, field: str, message: str):
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}" if field else message)


class DecodedTooLarge(ScenarioError):
    """A file's decoded (decompressed) data passed the reader's ``max_bytes``: the site that
    set the limit says which of its settings it comes from."""


class RunCancelled(Exception):
    """Raised by a progress callback to stop a simulation at its next event."""


# The invariants every engine checks where a policy's decision is applied. A policy, built in
# or installed as a plugin, that breaks one gets its run failed with the rule's name rather
# than a result nobody should trust. docs/engine.md lists which kind checks which.
RULES = {
    "capacity": "never more nodes, cores, memory or machines allocated than the system has",
    "arrival": "no task started (or reserved) before it arrives",
    "waiting-task": "only a waiting task is started: not an unknown id, nor one already "
                    "started, reserved, finished or dropped",
    "start-time": "no task started at a time already past",
    "energy-budget": "the energy committed never exceeds the energy budget",
    "bound-cluster": "a suspended task resumes on the cluster it ran on",
    "preemptible": "only a running task that may be preempted (its flag, or the preempting "
                   "job's rights) is suspended or killed",
    "eligibility": "a task runs only on a machine or configuration allowed for it",
}


class PolicyViolation(RuntimeError):
    """A policy's decision broke one of the engine's invariants (``rule``, a key of RULES).

    Raised where the decision is applied, before it changes anything; ``policy`` is filled in
    by the engine that ran it when the check could not know the policy's name.
    """

    def __init__(self, rule: str, policy: str | None, detail: str):
        if rule not in RULES:
            raise ValueError(f"unknown rule {rule!r}")
        self.rule = rule
        self.policy = policy
        self.detail = detail
        super().__init__(rule, policy, detail)

    def __str__(self) -> str:
        who = f"policy {self.policy!r}" if self.policy else "the policy"
        return f"{who} broke the rule {self.rule!r} ({RULES[self.rule]}): {self.detail}"
