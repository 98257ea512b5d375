"""Every write to scenarios, experiments and runs, split by the side that makes it.

* ``submission``: the request side (web form, API, admin, commands): validate and price once,
  create, start dispatching on commit, cancel, re-run, delete, presets.
* ``admission``: what an account may queue (budgets, queue caps, published-size figures).
* ``dispatch``: the fair queue: runs wait in the database and are sent a few at a time.
* ``execution``: the worker side: claim, heartbeat, progress, finish, reap, and the experiment
  state recomputed from its runs.

Reads live in ``hetsite.selectors``; who may change what in ``hetsite.permissions``.
"""
