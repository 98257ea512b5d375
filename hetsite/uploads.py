"""Uploaded SWF traces and run-time lists: stored by content on the request side, found by the
engines through the trace library the worker hands them (never a path from web input)."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from django.conf import settings

from simcore.errors import ScenarioError
from simcore.runtimes import LIST, read_runtimes, sniff
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
    return _store(upload, "trace_file", _check_swf)


def store_runtimes_upload(upload, field: str = "runtimes_file") -> str:
    """Like :func:`store_trace_upload` for task run times: a list with one run time (s) per
    line, or an SWF trace whose run-time column is used (``simcore.runtimes``)."""
    return _store(upload, field, _check_runtimes)


def _check_swf(path: str) -> str:
    header, jobs = read_swf(path, max_bytes=settings.HETSITE_MAX_TRACE_DECODED_BYTES,
                            max_jobs=settings.HETSITE_MAX_TRACE_JOBS)
    if sum(1 for _ in jobs) == 0:
        raise ScenarioError("trace", "holds no jobs")
    return ".swf"


def _check_runtimes(path: str) -> str:
    read_runtimes(path, max_bytes=settings.HETSITE_MAX_TRACE_DECODED_BYTES,
                  max_values=settings.HETSITE_MAX_TRACE_JOBS)
    return ".txt" if sniff(path) == LIST else ".swf"


def _store(upload, field: str, check) -> str:
    """Copy ``upload`` to a temporary file (hashing, within the byte limit), ``check(path)`` it
    (returns the file suffix; raises ScenarioError) and keep it as ``<sha256><suffix>``."""
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
                    raise ScenarioError(field, f"is larger than the upload limit of "
                                               f"{limit:,} bytes")
                digest.update(chunk)
                out.write(chunk)
        if size == 0:
            raise ScenarioError(field, "is empty")
        suffix = check(tmp_name)
        with open(tmp_name, "rb") as fh:
            gz = fh.read(2) == GZIP_MAGIC
        sha = digest.hexdigest()
        final = directory / (sha + suffix + (".gz" if gz else ""))
        os.replace(tmp_name, final)
        return f"upload:{sha}"
    except ScenarioError as err:
        if err.field == field:
            raise
        where = err.field.partition(":")[2]  # "trace:12:run_time" -> "12:run_time"
        raise ScenarioError(field, f"{where}: {err.message}" if where else err.message
                            ) from None
    finally:
        if os.path.exists(tmp_name):
            os.unlink(tmp_name)
