"""Passkeys: WebAuthn credentials that bring a player back on a new device, with no name typed.

Discoverable (resident) credentials, user verification preferred, no attestation asked: the
platform (Apple, Google, a password manager) syncs them across a person's devices.  The relying
party is the site's host (``MANILLE_PUBLIC_URL``).  Each ceremony's challenge is kept in Redis
for ``CHALLENGE_SECONDS`` under its own digest, with the ceremony it was made for (and for a
registration, the player and device): the answer's challenge is taken (GETDEL) once, so it
serves one ceremony, once.  A sign-in checks the credential's signature counter against the one
stored (an authenticator that counts must count up: a cloned key shows an old count); synced
passkeys report 0 and are not counted.

A player may have several passkeys, each named; removing one is refused while it is the only
way back (no other device and no other passkey: losing this browser's storage would lose the
player).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time

import webauthn
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url, options_to_json
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (AuthenticatorSelectionCriteria, PublicKeyCredentialDescriptor,
                                      ResidentKeyRequirement, UserVerificationRequirement)

from service.errors import Conflict, NotFound, Unauthorized, Unprocessable
from service.store import key_for

from .devices import ID_RE, Devices, iso

CHALLENGE_SECONDS = 300
RP_NAME = "Manille"
#: Passkeys one player may hold.
MOST_PASSKEYS = 20


def passkey_id_of(raw_id: bytes) -> str:
    return hashlib.sha256(raw_id).hexdigest()[:24]


def passkey_key(passkey_id: str) -> str:
    return key_for("passkey", f"passkey:{passkey_id}")


def passkeys_key(pid: str) -> str:
    """A player's passkeys: passkey id -> when it was made."""
    return key_for("passkeys", f"player:{pid}")


def challenge_key(challenge: bytes) -> str:
    return key_for("challenge", f"webauthn:{hashlib.sha256(challenge).hexdigest()[:32]}")


def _challenge_of(credential: dict) -> bytes:
    """The challenge a credential's client data signed; Unprocessable if it has none."""
    try:
        client_data = json.loads(base64url_to_bytes(credential["response"]["clientDataJSON"]))
        return base64url_to_bytes(client_data["challenge"])
    except (KeyError, TypeError, ValueError, AttributeError):
        raise Unprocessable("not a WebAuthn credential (its response.clientDataJSON has no challenge)",
                            code="invalid_credential") from None


def _bytes_or_none(text) -> bytes | None:
    try:
        return base64url_to_bytes(text)
    except (TypeError, ValueError, AttributeError):
        return None


class Passkeys:
    def __init__(self, client, devices: Devices) -> None:
        self.r = client
        self.devices = devices

    # -- ceremonies' challenges ------------------------------------------------------------

    def _challenge(self, challenge: bytes, ceremony: str, **bound) -> None:
        self.r.set(challenge_key(challenge), json.dumps({"ceremony": ceremony, **bound}), ex=CHALLENGE_SECONDS)

    def _take_challenge(self, credential: dict, ceremony: str, refused, **bound) -> bytes:
        challenge = _challenge_of(credential)
        stored = self.r.getdel(challenge_key(challenge))
        held = json.loads(stored) if stored else None
        if not held or held.get("ceremony") != ceremony or any(held.get(k) != v for k, v in bound.items()):
            raise refused("this passkey answer is not for a challenge of this ceremony still open "
                          "(each is used once, within 5 minutes): ask for new options")
        return challenge

    # -- registration ----------------------------------------------------------------------

    def creation_options(self, pid: str, did: str, nickname: str | None, rp_id: str) -> dict:
        """The options to make a passkey for ``pid`` (as ``parseCreationOptionsFromJSON`` reads
        them); its existing passkeys are excluded (one authenticator holds one of the player's)."""
        existing = [PublicKeyCredentialDescriptor(id=base64url_to_bytes(rec["credential_id"]))
                    for rec in self._records(pid) if rec.get("credential_id")]
        options = webauthn.generate_registration_options(
            rp_id=rp_id, rp_name=RP_NAME, user_id=pid.encode("ascii"),
            user_name=nickname or "Manille", user_display_name=nickname or "Manille",
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED, require_resident_key=True,
                user_verification=UserVerificationRequirement.PREFERRED),
            exclude_credentials=existing)
        self._challenge(options.challenge, "register", pid=pid, did=did)
        return json.loads(options_to_json(options))

    def register(self, pid: str, did: str, credential: dict, name: str, rp_id: str, origin: str,
                 user_agent: str = "") -> dict:
        """Keep the passkey ``credential`` (a registration's JSON) answered to this player's and
        device's open creation options, named ``name``.  Unprocessable ``invalid_credential`` for
        one that does not verify or answers no open challenge; Conflict ``too_many_passkeys``."""
        refused = lambda message: Unprocessable(message, code="invalid_credential")  # noqa: E731
        challenge = self._take_challenge(credential, "register", refused, pid=pid, did=did)
        if self.r.hlen(passkeys_key(pid)) >= MOST_PASSKEYS:
            raise Conflict(f"a player holds at most {MOST_PASSKEYS} passkeys: remove one first",
                           code="too_many_passkeys")
        try:
            verified = webauthn.verify_registration_response(
                credential=credential, expected_challenge=challenge, expected_rp_id=rp_id,
                expected_origin=origin, require_user_verification=False)
        except (WebAuthnException, KeyError, TypeError, ValueError) as e:
            raise refused(f"the passkey did not verify: {e}") from None
        passkey_id = passkey_id_of(verified.credential_id)
        if self.r.exists(passkey_key(passkey_id)):
            raise Conflict("this passkey is already kept", code="passkey_exists")
        now = int(time.time())
        record = {"pid": pid, "credential_id": bytes_to_base64url(verified.credential_id),
                  "public_key": bytes_to_base64url(verified.credential_public_key),
                  "sign_count": verified.sign_count, "name": name, "created_at": iso(now)}
        self.devices.keep(did, pid, user_agent)
        self.r.hset(passkey_key(passkey_id), mapping=record)
        with self.r.pipeline(transaction=False) as pipe:
            pipe.hset(passkeys_key(pid), passkey_id, record["created_at"])
            pipe.persist(key_for("player", f"player:{pid}"))
            pipe.execute()
        self.devices.note(pid, "passkey_added", passkey=passkey_id, device=did, name=name)
        return {"passkey_id": passkey_id, "name": name, "created_at": record["created_at"], "last_used": None}

    # -- sign-in ---------------------------------------------------------------------------

    def request_options(self, rp_id: str) -> dict:
        """The options to sign in with any of this site's passkeys (no allowCredentials: the
        authenticator offers the discoverable ones it holds)."""
        options = webauthn.generate_authentication_options(
            rp_id=rp_id, user_verification=UserVerificationRequirement.PREFERRED)
        self._challenge(options.challenge, "sign_in")
        return json.loads(options_to_json(options))

    def signed(self, credential: dict, rp_id: str, origin: str) -> tuple[str, str]:
        """The player whose passkey signed ``credential`` (an authentication's JSON) over an open
        sign-in challenge, and that passkey: (pid, passkey id); its counter and use are kept.
        Unauthorized ``passkey_refused`` for an unknown passkey, a used or foreign challenge, a bad
        signature or a signature counter that did not move up; Unprocessable
        ``invalid_credential`` for no credential at all."""
        refused = lambda message: Unauthorized(message, code="passkey_refused")  # noqa: E731
        challenge = self._take_challenge(credential, "sign_in", refused)
        try:
            raw_id = base64url_to_bytes(credential.get("rawId") or credential["id"])
        except (KeyError, TypeError, ValueError):
            raise Unprocessable("not a WebAuthn credential (no id)", code="invalid_credential") from None
        passkey_id = passkey_id_of(raw_id)
        record = self.r.hgetall(passkey_key(passkey_id))
        if not record:
            raise refused("this passkey is not kept here (it was removed, or made for another site)")
        response = credential.get("response")
        handle = response.get("userHandle") if isinstance(response, dict) else None
        if handle and not hmac.compare_digest(_bytes_or_none(handle) or b"", record["pid"].encode("ascii")):
            raise refused("this passkey's answer names another player")
        try:
            verified = webauthn.verify_authentication_response(
                credential=credential, expected_challenge=challenge, expected_rp_id=rp_id,
                expected_origin=origin, credential_public_key=base64url_to_bytes(record["public_key"]),
                credential_current_sign_count=int(record.get("sign_count") or 0),
                require_user_verification=False)
        except (WebAuthnException, KeyError, TypeError, ValueError) as e:
            raise refused(f"the passkey's answer did not verify: {e}") from None
        self.r.hset(passkey_key(passkey_id), mapping={"sign_count": verified.new_sign_count,
                                                      "last_used": iso(time.time())})
        return record["pid"], passkey_id

    # -- the player's passkeys -------------------------------------------------------------

    def _records(self, pid: str) -> list[dict]:
        ids = sorted(self.r.hgetall(passkeys_key(pid)).items(), key=lambda item: (item[1], item[0]))
        out = []
        for passkey_id, _created in ids:
            record = self.r.hgetall(passkey_key(passkey_id))
            if record.get("pid") == pid:
                out.append({"passkey_id": passkey_id, **record})
        return out

    def listed(self, pid: str) -> list[dict]:
        """``pid``'s passkeys, the oldest first."""
        return [{"passkey_id": rec["passkey_id"], "name": rec.get("name") or "",
                 "created_at": rec.get("created_at"), "last_used": rec.get("last_used")}
                for rec in self._records(pid)]

    def remove(self, pid: str, passkey_id: str, did: str) -> None:
        """Forget passkey ``passkey_id`` of ``pid``: NotFound ``unknown_passkey`` if it is none of
        its; Conflict ``last_way_back`` when it is the player's last passkey and the player has no
        other device (this device's storage lost, nothing would bring the player back)."""
        if not ID_RE.fullmatch(passkey_id) or self.r.hget(passkey_key(passkey_id), "pid") != pid:
            raise NotFound("no such passkey of this player", code="unknown_passkey")
        if self.r.hlen(passkeys_key(pid)) <= 1 and len(self.devices.listed(pid, did)) <= 1:
            raise Conflict("this is the player's only passkey and it has no other device: if this "
                           "browser's storage is lost, nothing else brings the player back; link "
                           "another device or add another passkey first", code="last_way_back")
        self.r.delete(passkey_key(passkey_id))
        self.r.hdel(passkeys_key(pid), passkey_id)
        self.devices.note(pid, "passkey_removed", passkey=passkey_id, device=did)
