"""Every suspicion flag is described wherever it is shown: the API (each flag's ``description``, and
the schema's list of codes), docs/operations.md's table of flags and docs/analysis.md."""

from __future__ import annotations

from pathlib import Path

from service.api.schemas.ops import FlagSchema
from service.flags import DESCRIPTIONS, described

DOCS = Path(__file__).resolve().parents[1] / "docs"
#: The codes the service raises: the verification's, and the hidden-information check's.
RAISED = {"explored", "probed", "many_runs", "speed", "outlier", "oracle", "hindsight", "hindsight_player"}


def test_every_flag_has_a_description_and_the_api_lists_them_all():
    assert set(DESCRIPTIONS) == RAISED and all(len(text) > 20 for text in DESCRIPTIONS.values())
    listed = FlagSchema().fields["code"].metadata["description"]
    assert all(f"{code}: " in listed for code in RAISED), listed
    assert described([{"code": "oracle", "evidence": {}}])[0]["description"] == DESCRIPTIONS["oracle"]
    assert described([{"code": "not-a-flag", "evidence": {}}])[0]["description"] == ""


def test_every_flag_is_in_the_operators_table_and_named_in_analysis_md():
    table = (DOCS / "operations.md").read_text(encoding="utf-8")
    analysis = (DOCS / "analysis.md").read_text(encoding="utf-8")
    for code in RAISED:
        assert f"  | `{code}` |" in table, f"operations.md's table of flags lacks {code}"
        assert f"`{code}`" in analysis, f"analysis.md does not name {code}"
