"""A player's devices, device links and passkeys: /api/v1/players/me/devices, …/links, …/passkeys."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from .common import StrictSchema

CREDENTIAL = ("the credential's JSON as the browser's PublicKeyCredential.toJSON() writes it "
              "(id, rawId, type, response with base64url fields); 422 invalid_credential for one that "
              "does not verify")


class LinkSchema(ma.Schema):
    code = fields.String(required=True, metadata={"description": "10 characters (50 bits), shown XXXXX-XXXXX; "
                                                                 "single use"})
    url = fields.String(required=True, metadata={"description": "the page /link/{code}, to open on the other device"})
    expires_at = fields.String(required=True, metadata={"description": "ISO 8601, 10 minutes after it was made"})
    qr_svg = fields.String(required=True, metadata={"description": "the url as a QR code, an SVG document"})


class JoinedSchema(ma.Schema):
    player_token = fields.String(required=True, metadata={
        "description": "this device's own new token (X-Player-Token from now on), given once"})
    device_id = fields.String(required=True)
    nickname = fields.String(allow_none=True, metadata={"description": "the player's nickname, null before one"})


class DeviceSchema(ma.Schema):
    device_id = fields.String(required=True)
    label = fields.String(required=True, metadata={"description": "from its user agent: \"Firefox on Android\""})
    joined_at = fields.String(allow_none=True)
    last_seen = fields.String(allow_none=True, metadata={"description": "ISO 8601, to within 5 minutes"})
    current = fields.Boolean(required=True, metadata={"description": "the device asking"})


class PasskeySchema(ma.Schema):
    passkey_id = fields.String(required=True)
    name = fields.String(required=True)
    created_at = fields.String(allow_none=True)
    last_used = fields.String(allow_none=True)


class DeviceListSchema(ma.Schema):
    devices = fields.List(fields.Nested(DeviceSchema), required=True)
    passkeys = fields.List(fields.Nested(PasskeySchema), required=True)


class PasskeyCreateSchema(StrictSchema):
    credential = fields.Dict(required=True, metadata={"description": "a registration: " + CREDENTIAL})
    name = fields.String(load_default=None, validate=validate.Length(min=1, max=40), metadata={
        "description": "1 to 40 characters; default: the device's label"})


class PasskeySignInSchema(StrictSchema):
    credential = fields.Dict(required=True, metadata={"description": "an authentication: " + CREDENTIAL})


class CreationOptionsSchema(ma.Schema):
    """PublicKeyCredentialCreationOptionsJSON (WebAuthn Level 3)."""

    rp = fields.Dict(required=True)
    user = fields.Dict(required=True)
    challenge = fields.String(required=True)
    pubKeyCredParams = fields.List(fields.Dict(), required=True)
    timeout = fields.Integer()
    excludeCredentials = fields.List(fields.Dict())
    authenticatorSelection = fields.Dict()
    attestation = fields.String()


class RequestOptionsSchema(ma.Schema):
    """PublicKeyCredentialRequestOptionsJSON (WebAuthn Level 3), with no allowCredentials."""

    challenge = fields.String(required=True)
    timeout = fields.Integer()
    rpId = fields.String(required=True)
    allowCredentials = fields.List(fields.Dict())
    userVerification = fields.String()
