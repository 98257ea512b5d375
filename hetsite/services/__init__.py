"""Every write to scenarios, experiments and runs, split by the side that makes it.

* ``submission``: the request side (web form, API, admin, commands): validate once, create,
  dispatch on commit, cancel, re-run, delete, presets.
* ``execution``: the worker side: claim, heartbeat, progress, finish, reap, and the experiment
  state recomputed from its runs.

Reads live in ``hetsite.selectors``; who may change what in ``hetsite.permissions``.
"""
