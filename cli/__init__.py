"""The ``manille`` command line: the engine, the bots and the service's ops at a terminal.

Its own front end beside the web service: it may import ``service`` (the engine, seeds, ops) and
``bots``; nothing in ``service`` imports it.
"""
