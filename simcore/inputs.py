"""Files a scenario names, and where a run finds them; the core knows no file format.

A scenario never names a path. A parameter that takes a file holds either a name its kind
knows (a file the kind ships, such as a library trace) or ``upload:<sha256>``: content the
caller stores, addressed by its SHA-256. Which uploads exist is the caller's business: it
hands each run an :class:`UploadStore` (``RunContext.inputs``; the web app its own store, the
command line none), and the kind reads the file in whatever format it takes.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Protocol

_UPLOAD_RE = re.compile(r"^upload:([0-9a-f]{64})$")


class UploadStore(Protocol):
    def locate(self, sha256: str) -> Path | None:
        """A readable local file holding the upload with this SHA-256, or None."""


def upload_sha(value: str) -> str | None:
    """The SHA-256 an ``upload:<sha256>`` reference names, or None for any other value."""
    m = _UPLOAD_RE.match(value)
    return m.group(1) if m else None
