"""A device link's code never reaches a log, nginx's or the service's: its page and its API route are written
with the code replaced (the code is a credential to a player while it lasts)."""

from __future__ import annotations

from test_svc_nginx import _access_lines, call, proxy, tls  # noqa: F401  (fixtures)
from test_svc_nginx import pytestmark  # noqa: F401  (skipped without nginx, on one Redis)


def test_a_links_code_is_never_in_the_access_log(proxy, tls):  # noqa: F811
    port, _, _, tmp, _ = proxy
    status, _, run = call(port, "POST", "/api/v1/runs", "127.0.0.46", body={}, tls=tls)
    assert status == 201, run
    hdrs = {"X-Player-Token": run["player_token"]}
    status, _, link = call(port, "POST", "/api/v1/players/me/links", "127.0.0.46", hdrs=hdrs, tls=tls)
    assert status == 201, link
    code = link["code"]
    status, _, page = call(port, "GET", f"/link/{code}", "127.0.0.47", tls=tls)
    assert status == 200 and "Manille" in page
    status, _, joined = call(port, "POST", f"/api/v1/players/links/{code}", "127.0.0.47", body={}, tls=tls)
    assert status == 200 and joined["player_token"], joined
    status, _, _ = call(port, "POST", f"/api/v1/players/links/{code}", "127.0.0.47", body={}, tls=tls)
    assert status == 404
    records = _access_lines(tmp, lambda rec: rec["client"] in ("127.0.0.46", "127.0.0.47"))
    uris = [rec["uri"] for rec in records]
    assert "/link/[secret]" in uris and uris.count("/api/v1/players/links/[secret]") == 2, uris
    logs = [path for path in (tmp / "logs").iterdir() if path.is_file()]
    assert len(logs) > 2  # nginx's and the service's own
    assert not [path.name for path in logs if code in path.read_text(errors="replace")]
