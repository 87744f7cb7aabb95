"""What several test modules share, and no test of its own: playing a game through the API and
starting the service (``svc_helpers``), the whole product for the browser tests (``live_stack``) and
driving its page (``web_helpers``, ``auction``), a closed day's games (``closed_day``), nginx in front
(``nginx``), scripted tricks and random positions for the engine and bots (``scripted``,
``positions``).  pyproject.toml puts tests/ on the path: ``from support.svc_helpers import ...``."""
