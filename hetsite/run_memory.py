"""The memory one run may use: ``HETSITE_RUN_MEMORY_MB``, a ceiling on each Celery pool process.

Validation caps what a scenario may ask for, but an estimate can be wrong and two large runs
can meet on one machine; past the host's memory its OOM killer picks a process, perhaps Redis,
PostgreSQL or the web server. So each pool process (it runs one run at a time) gets a resource
limit when it starts: past it an allocation fails with ``MemoryError`` (numpy's
``_ArrayMemoryError`` is one), which ``services.execution.execute_run`` turns into a failed run
naming the limit. The process frees the run and takes the next one; one that grew past 256 MB
resident is replaced first (``CELERY_WORKER_MAX_MEMORY_PER_CHILD`` in the settings), so what a
run leaves behind never comes out of the next run's limit.

The limit is ``RLIMIT_DATA``, not ``RLIMIT_AS``: it counts the private writable memory (VmData)
and not address space reserved and never used (a 64 MB malloc arena per thread, the code of
shared libraries), about 160 MB more in a pool process here and varying with its threads. Both
make numpy and Python allocations fail cleanly on Linux; RLIMIT_DATA bounds what the host gives.

Web processes, eager Celery (the unit tests) and the command line never call
:func:`limit_this_process`: only the ``worker_process_init`` signal does (``hetsite.tasks``).
"""

from __future__ import annotations

import resource

from django.core.exceptions import ImproperlyConfigured

SETTING = "HETSITE_RUN_MEMORY_MB"
# A pool process holds about 170 MB of VmData before its first run (Django, Celery, numpy and
# the engines imported; docs/reliability.md): a smaller limit would fail every run.
MINIMUM_MB = 256

_limit_mb = 0  # the limit this process runs under (0: none)


def parse_mb(text: str) -> int:
    """The setting's value: whole megabytes (2**20 bytes), 0 for no limit."""
    value = text.strip()
    if not (value.isascii() and value.isdigit()) or len(value) > 9 or (
            0 < int(value) < MINIMUM_MB):
        raise ImproperlyConfigured(
            f"{SETTING} must be a whole number of megabytes, 0 (no limit) or at least "
            f"{MINIMUM_MB}, not {text!r}")
    return int(value)


def limit_this_process(mb: int) -> None:
    """Put this process under the limit (no-op for 0)."""
    global _limit_mb
    if not mb:
        return
    _warm_blas()
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    soft = mb * 2**20 if hard == resource.RLIM_INFINITY else min(mb * 2**20, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))
    _limit_mb = mb


def _warm_blas() -> None:
    # OpenBLAS starts its threads and allocates their buffers at the first threaded call after
    # a fork. If that allocation fails it calls exit(), which then deadlocks on OpenBLAS's own
    # lock: a run over the limit at its first matrix product would hang the process rather
    # than raise MemoryError (seen with numpy 2.4's OpenBLAS). So make them now, unlimited.
    import numpy as np

    square = np.ones((256, 256))
    square @ square


def limit_mb() -> int:
    """The limit this process runs under, in MB (0: none)."""
    return _limit_mb


def failure_message() -> str:
    """What a run that ran out of memory says, naming the limit and the setting."""
    if _limit_mb:
        return (f"the run needed more memory than a run may use here ({SETTING} = "
                f"{_limit_mb:,} MB); ask for a smaller scenario")
    return f"the run ran out of memory (no per-run memory limit in this process: {SETTING})"
