"""The house's rules that the code itself can be held to: product modules of at most 400 lines,
one name for one thing (no top-level package named as a package of the service), no benchmark
code in the product, and the scripts' summary figures defined once (scripts/stats.py)."""

from pathlib import Path

import pytest

from stats import pct, quantile

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("service", "bots", "worker", "cli", "postmortem")
MAX_LINES = 400


def product_modules():
    return sorted(p for top in PRODUCT for p in (ROOT / top).rglob("*.py"))


def test_every_product_module_has_at_most_400_lines():
    long = {str(p.relative_to(ROOT)): n for p in product_modules()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}, f"modules over {MAX_LINES} lines: split each by concept: {long}"
    assert len(product_modules()) > 100  # the scan finds the product


def test_no_top_level_package_shares_a_name_with_one_of_the_service():
    tops = {p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file()}
    inner = {p.name for p in (ROOT / "service").iterdir() if (p / "__init__.py").is_file()}
    assert tops & inner == set()
    assert {"service", "bots", "postmortem"} <= tops and {"analysis", "runs"} <= inner


def test_no_benchmark_code_in_the_product():
    named = [str(p.relative_to(ROOT)) for p in product_modules() if "bench" in p.stem]
    assert named == []


@pytest.mark.parametrize("values, p, want", [([5], 90, 5), ([1, 2, 3, 4, 5], 50, 3), ([1, 2, 3, 4, 5], 90, 5),
                                            (list(range(11)), 10, 1), ([3, 1, 2], 0, 1), (list(range(1001)), 90, 900)])
def test_a_percentile_is_the_sorted_value_nearest_its_place(values, p, want):
    assert pct(values, p) == want


def test_a_quantile_by_nearest_rank():
    xs = list(range(1, 101))  # 1 … 100
    assert [quantile(xs, q) for q in (0.5, 0.9, 0.99, 1.0)] == [50, 90, 99, 100]
    assert quantile(xs[:50], 0.99) == 50  # 100 values or fewer: p99 is the largest
    with pytest.raises(IndexError):
        pct([], 50)
