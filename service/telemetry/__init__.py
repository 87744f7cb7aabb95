"""Observability: JSON logs with a request id (``logs``), Prometheus metrics (``metrics``) and the
web app's hooks and ``/metrics`` view that use both (``web``).  This package imports nothing by
itself, so that gunicorn's master can load ``logs`` without prometheus_client (``deploy/gunicorn.conf.py``)."""
