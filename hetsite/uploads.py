"""Uploaded SWF traces: stored by content on the request side, found by the engines through the
trace library the worker hands them (never a path from web input)."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from django.conf import settings

from simcore.errors import ScenarioError
from simcore.swf import GZIP_MAGIC, read_swf
from simcore.traces import TraceLibrary, UploadDir


def trace_library() -> TraceLibrary:
    """The shipped traces plus this site's uploads, as the engines read them."""
    return TraceLibrary(uploads=UploadDir(Path(settings.HETSITE_TRACE_UPLOAD_DIR)))


def trace_upload_dir() -> Path:
    path = Path(settings.HETSITE_TRACE_UPLOAD_DIR)
    path.mkdir(parents=True, exist_ok=True)
    return path


def store_trace_upload(upload) -> str:
    """Validate an uploaded SWF file (streaming) and store it by content; returns its trace id.

    The file is copied in chunks to a temporary file while hashing, refused past
    ``HETSITE_MAX_TRACE_BYTES``, then parsed line by line (errors name the line and field) with
    at most ``HETSITE_MAX_TRACE_JOBS`` jobs. Only a fully valid file is kept, under its SHA-256;
    the scenario refers to it as ``upload:<sha256>``, never by a path.
    """
    limit = settings.HETSITE_MAX_TRACE_BYTES
    directory = trace_upload_dir()
    digest = hashlib.sha256()
    size = 0
    fd, tmp_name = tempfile.mkstemp(dir=directory, prefix=".upload-")
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in upload.chunks():
                size += len(chunk)
                if size > limit:
                    raise ScenarioError("trace_file", f"is larger than the upload limit of "
                                                      f"{limit:,} bytes")
                digest.update(chunk)
                out.write(chunk)
        if size == 0:
            raise ScenarioError("trace_file", "is empty")
        header, jobs = read_swf(tmp_name, max_bytes=settings.HETSITE_MAX_TRACE_DECODED_BYTES,
                                max_jobs=settings.HETSITE_MAX_TRACE_JOBS)
        count = sum(1 for _ in jobs)
        if count == 0:
            raise ScenarioError("trace_file", "holds no jobs")
        with open(tmp_name, "rb") as fh:
            gz = fh.read(2) == GZIP_MAGIC
        sha = digest.hexdigest()
        final = directory / (sha + (".swf.gz" if gz else ".swf"))
        os.replace(tmp_name, final)
        return f"upload:{sha}"
    except ScenarioError as err:
        if err.field.startswith("trace"):
            raise ScenarioError("trace_file", err.message if err.field == "trace_file"
                                else f"{err.field.removeprefix('trace:')}: {err.message}") from None
        raise
    finally:
        if os.path.exists(tmp_name):
            os.unlink(tmp_name)
