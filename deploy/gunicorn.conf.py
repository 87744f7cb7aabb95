"""gunicorn settings for the Manille service: ``gunicorn -c deploy/gunicorn.conf.py 'service.app:create_app()'``.

Environment: MANILLE_BIND (default 127.0.0.1:8000), WEB_CONCURRENCY (worker processes,
default cores + 1), MANILLE_WORKER_CLASS (default gevent; gthread for the old threaded workers),
MANILLE_WORKER_CONNECTIONS (connections per gevent process, default 1000), MANILLE_THREADS
(threads per gthread process, default 4), MANILLE_ACCESS_LOG (a path, or "-" for stdout; default off).

gevent, because a client sending its request slowly holds the thread reading it: with gthread's
3 x 4 threads, 40 slow connections (a slowloris) left the service answering almost nothing
(scripts/slow_clients.py).  A gevent worker gives each connection a greenlet, so slow ones cost a
little memory each and hold nothing else up; gunicorn patches the standard library (sockets, locks)
before the app is loaded, so redis-py, RQ's enqueue and Flask-Limiter wait cooperatively.  The
app's work is short and CPU-bound (a play is a few bot moves), which one event loop per process
serves in turn as the threads did under the GIL.  In production a proxy in front (deploy/nginx.conf)
cuts slow clients off altogether.
"""

import multiprocessing
import os

import gunicorn.util

from service.errors_http import write_server_error

# A request gunicorn cannot parse is answered in the API's JSON envelope, not an HTML page.
gunicorn.util.write_error = write_server_error

bind = os.environ.get("MANILLE_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() + 1))
worker_class = os.environ.get("MANILLE_WORKER_CLASS") or "gevent"
worker_connections = int(os.environ.get("MANILLE_WORKER_CONNECTIONS", "1000"))
threads = int(os.environ.get("MANILLE_THREADS", "4"))
timeout = 30
graceful_timeout = 10
keepalive = 5
# Bounded request line and headers; bodies are bounded by the app (MAX_CONTENT_LENGTH, 413).
limit_request_line = 4094
limit_request_fields = 50
limit_request_field_size = 8190
accesslog = os.environ.get("MANILLE_ACCESS_LOG") or None
errorlog = "-"
loglevel = os.environ.get("MANILLE_LOG_LEVEL", "info")
proc_name = "manille-web"
# The app keeps no state in memory: any number of processes, recycled now and then.
max_requests = 20000
max_requests_jitter = 2000
# gunicorn's control socket lives at one fixed path per user; several servers on one machine
# (tests, benchmarks, make run) would fight over it.
control_socket_disable = True
