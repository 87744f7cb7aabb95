"""RQ workers: verify submissions by replay, re-verify a day, rebuild boards.  Jobs are in ``jobs``."""
