"""``python -m bots.native``: build the compiled search now (make install), not at a first search."""

from . import build

print(f"bots.native: {build() or 'no compiler: the Python search will be used'}")
