"""One player on every device: device links, passkeys, and the player's devices (no account).

A device is a token of its own (``service.players.devices``); a new device joins a player by a
link's code made on one of its devices, or by one of its passkeys (``service.players.passkeys``).
The answer of a join is the new device's token, given once.  A device that already is another
player joins all the same (the page asks first): the games it played keep their name, under the
player it was.  Making a link counts towards ``links_per_player`` and ``links_per_address``;
every code tried and every passkey sign-in (its options included) counts towards
``joins_per_address``, wrong ones too (429 ``too_many_requests``, Retry-After).
"""

from __future__ import annotations

from urllib.parse import urlsplit

import segno
from flask import current_app, request
from flask.views import MethodView

from service.errors import ServiceError, Unauthorized

from . import limits
from .blueprint import Blueprint
from .caching import limited
from .common import as_documented, services, token_from_request
from .schemas import (CreationOptionsSchema, DeviceListSchema, JoinedSchema, LinkSchema, PasskeyCreateSchema,
                      PasskeySchema, PasskeySignInSchema, RequestOptionsSchema)

PREFIX = "/players"
blp = Blueprint("devices", __name__, description=(
    "One player on every device, with no account: a device link (a short single-use code), passkeys, "
    "and the player's devices, each its own token, removable."))
SECURITY = [{"playerToken": []}]
OPTIONAL_TOKEN = [{}] + SECURITY
LOOPBACK = ("localhost", "127.0.0.1", "::1", "[::1]")


def public_origin() -> str:
    """``MANILLE_PUBLIC_URL``, else (development) the request's own origin."""
    return services().settings.public_url or request.host_url.rstrip("/")


def relying_party() -> tuple[str, str]:
    """(relying party id, origin) of the passkeys: ``MANILLE_PUBLIC_URL``'s; without it the
    request's own, in development only (a loopback host, or the app in debug or testing): else
    503 ``passkeys_unconfigured``, since a passkey is bound to its site for good."""
    url = services().settings.public_url
    if not url:
        if not (current_app.debug or current_app.testing or request.host.rsplit(":", 1)[0] in LOOPBACK):
            raise ServiceError("passkeys need MANILLE_PUBLIC_URL (the site's origin) to be set",
                               code="passkeys_unconfigured", status=503)
        url = request.host_url.rstrip("/")
    parts = urlsplit(url)  # a site served under a path still has its origin as the relying party
    return parts.hostname, f"{parts.scheme}://{parts.netloc}"


def _me() -> tuple[str, str]:
    """(device id, pid) of the caller, whose device gets a record if it had none (a first device)."""
    s = services()
    did, pid = s.players.device(token_from_request())
    s.players.devices.keep(did, pid, request.headers.get("User-Agent", ""),
                           joined_at=s.players.profile(pid).get("created_at") if did == pid else None)
    return did, pid


def _joined(token: str, did: str, pid: str) -> dict:
    return {"player_token": token, "device_id": did, "nickname": services().players.profile(pid).get("nickname")}


def _count_join() -> None:
    """A code tried or a passkey ceremony begun from this address: counted whatever its outcome
    (a guess must cost), 429 when the address has tried too many."""
    s = services()
    gate = limits.gate(("joins_per_address", limits.client_address()))
    if gate:
        s.limits.take(gate, limits.now_ms())


def _caller_pid() -> tuple[str | None, str | None]:
    """(device id, pid) of the caller's token if it is a live device's, else (None, None): a join
    needs no token, and a removed device may join again."""
    token = token_from_request()
    if token is None:
        return None, None
    try:
        return services().players.device(token)
    except Unauthorized:
        return None, None


def _join(pid: str, how: str, **details) -> dict:
    """The caller's device joins ``pid``: a new device with its own token; a device that is this
    player already keeps its token (nothing is made); one that was another player leaves a note
    on that player's trail (its games keep their name)."""
    s = services()
    old_did, old_pid = _caller_pid()
    if old_pid == pid:
        return _joined(token_from_request(), old_did, pid)
    token, did = s.players.devices.add(pid, request.headers.get("User-Agent", ""), how, **details)
    if old_pid is not None:
        s.players.devices.note(old_pid, "device_left", device=old_did, to_device=did)
    return _joined(token, did, pid)


@blp.route("/me/links")
class Links(MethodView):
    @blp.response(201, LinkSchema)
    @blp.doc(security=SECURITY)
    @limited(201)
    def post(self):
        """A code that makes another device a device of this player

        Valid 10 minutes, once; ``url`` is the page /link/{code}, ``qr_svg`` its QR code (an SVG
        image as a data: URI).  Counts towards ``links_per_player`` and ``links_per_address`` (429)."""
        s = services()
        did, pid = _me()
        with limits.Admission(("links_per_player", pid), ("links_per_address", limits.client_address())) as adm:
            adm.take()
            code, expires_at = s.players.devices.new_link(pid, did)
            adm.keep()
        url = f"{public_origin()}/link/{code}"
        return as_documented({"code": code, "url": url, "expires_at": expires_at,
                              "qr_svg": segno.make(url, error="m").svg_data_uri(scale=4, border=2)}, 201)


@blp.route("/links/<string:code>")
class Link(MethodView):
    @blp.response(200, JoinedSchema)
    @blp.doc(security=OPTIONAL_TOKEN)
    @limited(200)
    def post(self, code):
        """Make this device a device of the player whose link ``code`` is

        Answers this device's own new token (once), its id and the player's nickname; the code is
        then used.  404 ``unknown_link`` for a code wrong, used or expired.  With the token of a
        device of another player, this device joins all the same (the games it played keep their
        name, under that player); with one of the same player, that token is answered again.
        Every try counts towards ``joins_per_address`` (429)."""
        _count_join()
        link = services().players.devices.take_link(code)
        return as_documented(_join(link["pid"], "joined_by_link", from_device=link["from"]))


@blp.route("/me/devices")
class MyDevices(MethodView):
    @blp.response(200, DeviceListSchema)
    @blp.doc(security=SECURITY)
    def get(self):
        """The player's devices (``current``: the one asking) and passkeys"""
        s = services()
        did, pid = _me()
        return {"devices": s.players.devices.listed(pid, did), "passkeys": s.passkeys.listed(pid)}


@blp.route("/me/devices/<string:device_id>")
class MyDevice(MethodView):
    @blp.response(204)
    @blp.doc(security=SECURITY)
    def delete(self, device_id):
        """Remove one of the player's devices: its token is refused (401) from its next request

        The asking device itself included.  404 ``unknown_device`` for one that is not the player's
        or already removed."""
        did, pid = _me()
        services().players.devices.remove(pid, device_id, by=did)
        return None


@blp.route("/me/passkeys/options")
class PasskeyOptions(MethodView):
    @blp.response(200, CreationOptionsSchema)
    @blp.doc(security=SECURITY)
    def post(self):
        """WebAuthn creation options for a new passkey of the player (for
        ``PublicKeyCredential.parseCreationOptionsFromJSON``); its challenge serves once, within
        5 minutes.  503 ``passkeys_unconfigured`` without ``MANILLE_PUBLIC_URL`` in production."""
        s = services()
        rp_id, _origin = relying_party()
        did, pid = _me()
        return as_documented(s.passkeys.creation_options(pid, did, s.players.profile(pid).get("nickname"), rp_id))


@blp.route("/me/passkeys")
class MyPasskeys(MethodView):
    @blp.arguments(PasskeyCreateSchema)
    @blp.response(201, PasskeySchema)
    @blp.doc(security=SECURITY)
    def post(self, body):
        """Keep a passkey made with this device's open creation options, named ``name``

        422 ``invalid_credential`` for one that does not verify or answers no open challenge of
        this device; 409 ``passkey_exists``, ``too_many_passkeys`` (20)."""
        s = services()
        rp_id, origin = relying_party()
        did, pid = _me()
        agent = request.headers.get("User-Agent", "")
        name = (body.get("name") or "").strip() or s.players.devices.label(did) or "Passkey"
        return as_documented(s.passkeys.register(pid, did, body["credential"], name, rp_id, origin, agent), 201)


@blp.route("/me/passkeys/<string:passkey_id>")
class MyPasskey(MethodView):
    @blp.response(204)
    @blp.doc(security=SECURITY)
    def delete(self, passkey_id):
        """Forget one of the player's passkeys

        404 ``unknown_passkey``; 409 ``last_way_back`` for the player's last passkey while it has
        no other device (this device's storage lost, nothing would bring the player back)."""
        did, pid = _me()
        services().passkeys.remove(pid, passkey_id, did)
        return None


@blp.route("/passkeys/sign-in/options")
class SignInOptions(MethodView):
    @blp.response(200, RequestOptionsSchema)
    @blp.doc(security=[{}])
    @limited(200)
    def post(self):
        """WebAuthn request options to sign in with a passkey (no allowCredentials: the
        authenticator offers the site's); counts towards ``joins_per_address`` (429)"""
        rp_id, _origin = relying_party()
        _count_join()
        return as_documented(services().passkeys.request_options(rp_id))


@blp.route("/passkeys/sign-in")
class SignIn(MethodView):
    @blp.arguments(PasskeySignInSchema)
    @blp.response(200, JoinedSchema)
    @blp.doc(security=OPTIONAL_TOKEN)
    @limited(200)
    def post(self, body):
        """Make this device a device of the player whose passkey signed ``credential``

        Answers as a link does.  401 ``passkey_refused`` for a passkey not kept here, a challenge
        used, expired or of another ceremony, a bad signature or a signature counter that did not
        move up; 422 ``invalid_credential`` for no credential at all.  Counts towards
        ``joins_per_address`` (429)."""
        s = services()
        rp_id, origin = relying_party()
        _count_join()
        pid, passkey_id = s.passkeys.signed(body["credential"], rp_id, origin)
        return as_documented(_join(pid, "passkey_sign_in", passkey=passkey_id))
