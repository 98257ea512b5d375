"""Start the whole lab locally: broker (if needed), a Celery worker and the web server.

``make run`` calls this after migrating. It prefers a private ``redis-server`` on a free port,
with its data under ``.run/``; without one it falls back to kombu's filesystem transport, so runs
stay asynchronous on a machine that has nothing but Python. Ctrl-C stops every child.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _unblock_stop_signals():
    """In a child between fork and exec: the mask is inherited, and the child must stop."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_in_use(host: str, port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return True
    return False


def wait_for_port(port: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.05)
    return False


class Command(BaseCommand):
    help = "Run redis (when installed), a Celery worker and the web server until Ctrl-C."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--broker", choices=["auto", "redis", "filesystem"], default="auto",
                            help="auto: redis-server when installed, else the filesystem broker")
        parser.add_argument("--concurrency", type=int, default=os.cpu_count() or 2)

    def handle(self, *args, host, port, broker, concurrency, **options):
        if port_in_use(host, port):
            raise CommandError(f"port {port} on {host} is already in use; stop the other server "
                               f"or pass --port")
        run_dir = settings.RUN_DIR
        run_dir.mkdir(parents=True, exist_ok=True)
        redis_bin = shutil.which("redis-server")
        if broker == "redis" and not redis_bin:
            raise CommandError("--broker redis asked for, but redis-server is not installed")
        use_redis = broker == "redis" or (broker == "auto" and redis_bin is not None)

        env = dict(os.environ)
        env.setdefault("DEBUG", "1")
        children: list[tuple[str, subprocess.Popen]] = []

        def start(name, cmd):
            # A signal between the fork and the bookkeeping would leave a child nobody stops.
            signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
            try:
                proc = subprocess.Popen(cmd, env=env, start_new_session=True,
                                        preexec_fn=_unblock_stop_signals)
                children.append((name, proc))
            finally:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
            return proc

        def stop_all(*_):
            for _, proc in reversed(children):
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGTERM)
            deadline = time.monotonic() + 15
            for _, proc in reversed(children):
                try:
                    proc.wait(max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()

        def on_stop_signal(*_):
            # Shut down once, however many signals arrive (make forwards a second TERM, a
            # supervisor repeats its own): later ones are ignored, so none can interrupt the
            # cleanup and leave redis-server or the worker behind.
            for sig in STOP_SIGNALS:
                signal.signal(sig, signal.SIG_IGN)
            raise KeyboardInterrupt

        # Installed for SIGINT too: a process inherits an ignored SIGINT (a shell's background
        # job, a test runner's worker), and Ctrl-C must still stop everything.
        for sig in STOP_SIGNALS:
            signal.signal(sig, on_stop_signal)
        try:
            if use_redis:
                redis_port = free_port()
                redis_dir = run_dir / "redis"
                redis_dir.mkdir(exist_ok=True)
                start("redis", [redis_bin, "--port", str(redis_port), "--bind", "127.0.0.1",
                                "--dir", str(redis_dir), "--save", "", "--appendonly", "no",
                                "--loglevel", "warning"])
                if not wait_for_port(redis_port, 10):
                    raise CommandError("redis-server did not start within 10 s")
                url = f"redis://127.0.0.1:{redis_port}/0"
                env.update(REDIS_URL=url, CELERY_BROKER_URL=url, CELERY_RESULT_BACKEND=url)
                self.stdout.write(f"broker: redis-server on port {redis_port}")
            else:
                env.update(CELERY_BROKER_URL="filesystem://",
                           CELERY_BROKER_DIR=str(run_dir / "broker"))
                env.pop("CELERY_RESULT_BACKEND", None)
                self.stdout.write("broker: embedded filesystem transport (redis-server not found)")

            start("worker", [sys.executable, "-m", "celery", "-A", "hetsite", "worker",
                             "--loglevel", "INFO", "--concurrency", str(concurrency),
                             "--hostname", f"lab-{os.getpid()}@%h"])
            start("web", [sys.executable, "manage.py", "runserver", f"{host}:{port}",
                          "--noreload"])
            if not wait_for_port(port, 30):
                raise CommandError("the web server did not start within 30 s")
            self.stdout.write(self.style.SUCCESS(f"hetsite is running at http://{host}:{port}/ "
                                                 "(Ctrl-C stops everything)"))
            while True:
                for name, proc in children:
                    if proc.poll() is not None:
                        raise CommandError(f"{name} exited with code {proc.returncode}")
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            for sig in STOP_SIGNALS:  # an error ends the lab the same way
                signal.signal(sig, signal.SIG_IGN)
            self.stdout.write("stopping...")
            self.stdout.flush()
            stop_all()
