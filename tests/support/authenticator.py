"""A WebAuthn authenticator in Python (an ES256 key, 'none' attestation), answering options as a
browser's ``PublicKeyCredential.toJSON()`` would: the API tests' passkey (the browser tests use
Chromium's virtual authenticator)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class Authenticator:
    """One passkey; ``counts``: whether its signature counter moves (a synced passkey's stays 0)."""

    def __init__(self, origin: str, counts: bool = True) -> None:
        self.origin = origin
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(32)
        self.counter = 0
        self.counts = counts
        self.user_handle = b""

    def _cose(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        return cbor2.dumps({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})

    def _client_data(self, kind: str, challenge: str, origin: str | None) -> bytes:
        return json.dumps({"type": kind, "challenge": challenge, "origin": origin or self.origin,
                           "crossOrigin": False}).encode()

    def _auth_data(self, rp_id: str, flags: int, attested: bytes = b"") -> bytes:
        if self.counts:
            self.counter += 1
        return hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", self.counter) + attested

    def create(self, options: dict, origin: str | None = None) -> dict:
        """The registration JSON answering creation ``options``."""
        self.user_handle = base64.urlsafe_b64decode(options["user"]["id"] + "==")
        attested = bytes(16) + struct.pack(">H", len(self.credential_id)) + self.credential_id + self._cose()
        auth_data = self._auth_data(options["rp"]["id"], 0x45, attested)  # UP, UV, AT
        client_data = self._client_data("webauthn.create", options["challenge"], origin)
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        return {"id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": b64url(client_data), "attestationObject": b64url(attestation),
                             "transports": ["internal"]},
                "clientExtensionResults": {}, "authenticatorAttachment": "platform"}

    def get(self, options: dict, origin: str | None = None, counter: int | None = None) -> dict:
        """The authentication JSON answering request ``options`` (``counter``: sign with this count)."""
        if counter is not None:
            self.counter = counter - 1 if self.counts else counter
        auth_data = self._auth_data(options["rpId"], 0x05)  # UP, UV
        client_data = self._client_data("webauthn.get", options["challenge"], origin)
        signature = self.key.sign(auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        return {"id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": b64url(client_data), "authenticatorData": b64url(auth_data),
                             "signature": b64url(signature), "userHandle": b64url(self.user_handle)},
                "clientExtensionResults": {}, "authenticatorAttachment": "platform"}
