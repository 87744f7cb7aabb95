"""gunicorn settings for the Manille service: ``gunicorn -c deploy/gunicorn.conf.py 'service.app:create_app()'``.

Environment: MANILLE_BIND (default 127.0.0.1:8000; several, comma-separated, e.g. a Unix socket
``unix:/run/manille/web.sock`` beside the port), WEB_CONCURRENCY (worker processes,
default one a core, cores + 1 with gthread), MANILLE_WORKER_CLASS (default gevent; gthread for the old threaded workers),
MANILLE_WORKER_CONNECTIONS (connections per gevent process, default 1000), MANILLE_THREADS
(threads per gthread process, default 4), MANILLE_ACCESS_LOG (set: gunicorn's own access lines too, on the
same stream; default off: the app writes one access line per request itself, with its request id),
MANILLE_LOG_FORMAT (json, default, or text) and MANILLE_LOG_LEVEL (service.telemetry.logs),
PROMETHEUS_MULTIPROC_DIR (where each process keeps its metrics; default a fresh temporary
directory, removed at exit; a given one is emptied at start).

gevent, because a client sending its request slowly holds the thread reading it: with gthread's
3 x 4 threads, 40 slow connections (a slowloris) left the service answering almost nothing
(scripts/slow_clients.py).  A gevent worker gives each connection a greenlet, so slow ones cost a
little memory each and hold nothing else up; gunicorn patches the standard library (sockets, locks)
before the app is loaded, so redis-py (the limits too) and RQ's enqueue wait cooperatively.  The
app's work is short and CPU-bound (a play is a few bot moves), which one event loop per process
serves in turn as the threads did under the GIL.  In production a proxy in front (deploy/nginx.conf)
cuts slow clients off altogether.
"""

import gc
import glob
import multiprocessing
import os
import shutil
import tempfile

# Metrics of several processes: prometheus_client reads this when first imported, so it is set
# before anything imports it (the app, in each worker, after the fork).
_metrics_dir = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
_own_metrics_dir = not _metrics_dir
if _own_metrics_dir:
    _metrics_dir = os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="manille-metrics-")

import gunicorn.util  # noqa: E402

from service.errors_http import write_server_error  # noqa: E402
from service.telemetry.logs import gunicorn_logconfig  # noqa: E402

# A request gunicorn cannot parse is answered in the API's JSON envelope, not an HTML page.
gunicorn.util.write_error = write_server_error

bind = [b.strip() for b in os.environ.get("MANILLE_BIND", "127.0.0.1:8000").split(",") if b.strip()]
worker_class = os.environ.get("MANILLE_WORKER_CLASS") or "gevent"
# gevent: one process a core.  Its processes never block (a greenlet waiting on Redis lets the next
# request run), so a process more than the cores only has the OS take a core from one in the middle
# of a request: a play's p99 was 29-36 ms with cores + 1 against 15-21 ms with one a core, and
# 750-972 plays/s against 934-971 (scripts/bench_speed.py --rows 2, 2 cores, four runs of each taken
# in turn).  Threads may block: one process more.
workers = int(os.environ.get("WEB_CONCURRENCY")
              or multiprocessing.cpu_count() + (0 if worker_class == "gevent" else 1))
worker_connections = int(os.environ.get("MANILLE_WORKER_CONNECTIONS", "1000"))
threads = int(os.environ.get("MANILLE_THREADS", "4"))
timeout = 30
graceful_timeout = 10
keepalive = 5
# Bounded request line and headers; bodies are bounded by the app (MAX_CONTENT_LENGTH, 413).
limit_request_line = 4094
limit_request_fields = 50
limit_request_field_size = 8190
accesslog = None  # see logconfig_dict: MANILLE_ACCESS_LOG turns gunicorn's access lines on
errorlog = "-"
loglevel = os.environ.get("MANILLE_LOG_LEVEL", "info")
# gunicorn's lines, the app's and RQ's: one stderr stream in MANILLE_LOG_FORMAT, secrets scrubbed.
logconfig_dict = gunicorn_logconfig()
proc_name = "manille-web"
# The app keeps no state in memory: any number of processes, recycled now and then.  Seldom:
# each process recycled leaves its metrics files (its counts must stay in the sums), which every
# scrape reads until the server restarts.
max_requests = 200000
max_requests_jitter = 20000
# gunicorn's control socket lives at one fixed path per user; several servers on one machine
# (tests, benchmarks, make run) would fight over it.
control_socket_disable = True


def post_worker_init(worker):
    """Once the app is loaded in the worker: what is alive now (the modules, the app, its routes and
    schemas, some 80,000 objects) lives as long as the process, so the cyclic garbage collector is
    told to leave it alone (``gc.freeze``).  A full collection went through all of it: 4 of them
    in a 40 s run of plays (scripts/bench_speed.py, 3 workers) held a process 64 ms at the
    median, 103 ms at worst, every request in it waiting; frozen, 2 of them took 3 ms."""
    gc.collect()
    gc.freeze()


def on_starting(server):
    """Files of a previous server in a given metrics directory would be summed with ours."""
    for path in glob.glob(os.path.join(_metrics_dir, "*.db")):
        os.remove(path)


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid, _metrics_dir)


def on_exit(server):
    if _own_metrics_dir:
        shutil.rmtree(_metrics_dir, ignore_errors=True)
