"""SWF trace replay (kind ``swf-replay``): FCFS, EASY and conservative backfilling.

``UPLOAD_DIR`` is the directory where uploaded traces live as ``<sha256>[.swf|.swf.gz]``; a
scenario names one as ``"upload:<sha256>"``. It defaults to ``$HETSITE_TRACE_UPLOAD_DIR``; when
unset, uploaded traces are refused.
"""

import os

UPLOAD_DIR: str | None = os.environ.get("HETSITE_TRACE_UPLOAD_DIR") or None

from . import cli, environment  # noqa: E402  (register the environment, policies, command)
from .config import KIND, ReplayConfig  # noqa: E402
from .environment import replay  # noqa: E402
from .traces import list_traces  # noqa: E402

__all__ = ["KIND", "UPLOAD_DIR", "ReplayConfig", "cli", "environment", "list_traces", "replay"]
