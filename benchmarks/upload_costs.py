"""What a hostile upload costs the web process (issue 27, item 7; docs/reliability.md).

Posts three files to the swf-replay form with Django's test client in this process (a scratch
SQLite database) and prints, for each, the answer, the error beside the file field, the wall
time and the CPU time the request took, and whether the file was stored:

* a 2 MB gzip of 2 GB of one byte, no newline (a decompression bomb);
* a gzip of ~1.9 GB of one valid SWF job line repeated (a bomb that parses);
* a valid trace of --jobs jobs (default 2,000,000, gzip) in a form that is otherwise invalid
  (no policy chosen), so nothing should be kept.

    .venv/bin/python benchmarks/upload_costs.py [--jobs 2000000]
"""

from __future__ import annotations

import argparse
import atexit
import gzip
import os
import random
import re
import shutil
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
LINE = b"1 0 -1 100 2 -1 -1 2 120 -1 1 1 1 1 1 -1 -1 -1\n"


def packed(chunk: bytes, times: int) -> bytes:
    """gzip of ``chunk`` repeated ``times`` times, built without holding the whole."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    return b"".join([z.compress(chunk) for _ in range(times)] + [z.flush()])


def trace(jobs: int) -> bytes:
    rng = random.Random(1)
    lines, t = [b"; MaxProcs: 256\n"], 0
    for i in range(1, jobs + 1):
        t += rng.randint(0, 50)
        procs, run = rng.randint(1, 64), rng.randint(1, 5000)
        lines.append(f"{i} {t} -1 {run} {procs} -1 -1 {procs} {2 * run} -1 1 1 1 1 1 -1 -1 -1\n"
                     .encode())
    return gzip.compress(b"".join(lines), compresslevel=6)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2_000_000)
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="hetsite-bench-")
    atexit.register(shutil.rmtree, scratch, True)
    os.environ.update(DJANGO_SETTINGS_MODULE="hetsite.settings_test",
                      DATABASE_URL=f"sqlite:///{scratch}/bench.sqlite3",
                      HETSITE_TRACE_CACHE_DIR=f"{scratch}/cache")
    import django

    django.setup()
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import setup_test_environment

    from hetsite.models import Upload

    setup_test_environment()
    call_command("migrate", verbosity=0)
    cases = [("2 GB of one byte, no newline", packed(b"0" * (1 << 20), 2048), ["fcfs"]),
             ("1.9 GB of one job line", packed(LINE * 20_000, 2000), ["fcfs"]),
             (f"{args.jobs:,} valid jobs, no policy chosen", trace(args.jobs), [])]
    print(f"machine load: {os.getloadavg()[0]:.1f} (1 min)")
    for name, payload, policies in cases:
        data = {"p.trace": "lublin_256_small", "policies": policies, "trials": 1,
                "base_seed": 0, "p.cores_per_node": 1, "p.estimate_scale": 1.0,
                "p.use_requested_time": "on", "p.job_limit": 0, "p.bsld_tau": 10.0,
                "p.series_points": 3000,
                "trace_file": SimpleUploadedFile("upload.swf.gz", payload)}
        before = Upload.objects.count()
        wall, cpu = time.perf_counter(), time.process_time()
        response = Client().post("/new/swf-replay/", data)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        error = re.findall(r'data-field="trace_file"[^>]*>(.*?)<', response.content.decode(),
                           re.S)
        stored = Upload.objects.count() > before
        print(f"{name} ({len(payload):,} bytes): {response.status_code}, {wall:.1f} s wall, "
              f"{cpu:.1f} s CPU, stored: {'yes' if stored else 'no'}; "
              f"{error[0].strip() if error else '(no error beside the file)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
