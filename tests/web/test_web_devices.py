"""One player on two devices, in two Chromium contexts: the phone shows a code, the computer types
it and goes on with the phone's unfinished game of the day at the same turn, then removes the
phone, whose next request is 401; a passkey made in one context with Chromium's virtual
authenticator signs another context in, as a synced passkey would."""

from __future__ import annotations

import re

import requests
from playwright.sync_api import expect

from support.live_stack import PHONE
from support.web_helpers import Game, axe_serious, hand_state, is_run_answer, open_ranked, play_one, wait_hand_matches, watch_play_requests

TOKEN_KEY = "manille.token"


def _token(page) -> str:
    return page.evaluate("k => localStorage.getItem(k)", TOKEN_KEY)


def _me(site: str, token: str) -> requests.Response:
    return requests.get(f"{site}/api/v1/players/me", headers={"X-Player-Token": token}, timeout=10)


def test_the_computer_types_the_phones_code_and_goes_on_with_its_game(visitor, site, shot):
    phone = visitor(viewport=PHONE, has_touch=True, is_mobile=True)
    run = open_ranked(phone)
    game = Game()
    watch_play_requests(phone, game)
    for _ in range(3):
        play_one(phone, game, "mouse")
    assert game.last["status"] == "playing" and game.last["turn"] == 3
    phone_token = _token(phone)

    phone.goto("/devices?lang=en")
    phone.get_by_role("button", name="Show a code").click()
    code_el = phone.locator("#link-code")
    expect(code_el).to_be_focused()
    code = code_el.inner_text()
    assert re.fullmatch(r"[0-9A-Z]{5}-[0-9A-Z]{5}", code), code
    expect(phone.get_by_role("img", name="QR code of the link for the other device")).to_be_visible()
    shot(phone, "devices-phone-code")

    computer = visitor()
    computer.goto("/devices?lang=en")
    box = computer.get_by_label("Code", exact=True)
    box.fill(code.lower())  # typed as a person may
    box.press("Enter")
    expect(computer.locator("#devices-status")).to_have_text("This device is now a device of the same player.")
    computer_token = _token(computer)
    assert computer_token and computer_token != phone_token
    listed = computer.locator("#device-items li")
    expect(listed).to_have_count(2)
    expect(listed.filter(has_text="this device")).to_have_count(1)

    # the computer opens the table: the phone's run, at the phone's turn, the same hand
    with computer.expect_response(lambda r: is_run_answer(r) and r.request.method == "GET") as info:
        computer.goto("/?lang=en&speed=instant")
    resumed = info.value.json()
    assert resumed["run_id"] == run["run_id"] and resumed["turn"] == game.last["turn"]
    wait_hand_matches(computer, game.last["view"])
    before = hand_state(computer)["cards"]
    on_computer = Game()
    watch_play_requests(computer, on_computer)
    answer = play_one(computer, on_computer, "mouse")
    assert answer["turn"] == 4 and answer["run_id"] == run["run_id"]
    assert len(hand_state(computer)["cards"]) < len(before)

    # the computer removes the phone: the phone's next request is refused
    computer.goto("/devices?lang=en")
    other = computer.locator("#device-items li").filter(has_not_text="this device")
    other.get_by_role("button", name=re.compile("^Remove ")).click()
    expect(computer.locator("#device-items li")).to_have_count(1)
    expect(computer.locator("#devices-status")).to_contain_text("removed")
    assert _me(site, phone_token).status_code == 401
    assert _me(site, computer_token).status_code == 200
    phone.watch.allow(r"HTTP 401: GET \S+/api/v1/players/me$")
    phone.watch.allow(r"console error: Failed to load resource: the server responded with a status of 401")
    phone.goto("/devices?lang=en")
    expect(phone.get_by_role("button", name="Join")).to_be_visible()
    expect(phone.locator("#device-link")).to_be_hidden()
    assert _token(phone) is None  # the page forgot the refused token


def _authenticator(page) -> tuple[object, str]:
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    made = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
        "isUserVerified": True, "automaticPresenceSimulation": True}})
    return cdp, made["authenticatorId"]


def test_a_passkey_made_in_one_browser_signs_another_in(visitor, site, live):
    # WebAuthn needs a secure context: http://localhost is one, http://127.0.0.1 is no relying party
    local = site.replace("127.0.0.1", "localhost")
    first = visitor(base_url=local)
    token = requests.post(f"{site}/api/v1/runs", json={}, timeout=20).json()["player_token"]
    first.goto("/devices?lang=en")
    first.evaluate("([k, v]) => localStorage.setItem(k, v)", [TOKEN_KEY, token])
    first.reload()
    cdp, authenticator = _authenticator(first)
    first.get_by_label("Name of the passkey").fill("Laptop")
    first.get_by_role("button", name="Make a passkey").click()
    expect(first.locator("#device-passkey-make [role=status]")).to_have_text("Passkey \u201cLaptop\u201d kept.")
    expect(first.locator("#device-list")).to_contain_text("Laptop")
    credentials = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
    assert len(credentials) == 1 and credentials[0]["isResidentCredential"] and credentials[0]["rpId"] == "localhost"

    # the last passkey of a player with one device is refused, with the reason
    first.watch.allow(r"HTTP 409: DELETE \S+/api/v1/players/me/passkeys/")
    first.watch.allow(r"console error: Failed to load resource: the server responded with a status of 409")
    first.locator("#passkey-items li").filter(has_text="Laptop").get_by_role("button").click()
    expect(first.locator("#device-list [role=alert]")).to_contain_text("only passkey")

    second = visitor(base_url=local)
    second.goto("/devices?lang=en")
    cdp2, authenticator2 = _authenticator(second)
    cdp2.send("WebAuthn.addCredential", {"authenticatorId": authenticator2, "credential": credentials[0]})
    second.get_by_role("button", name="Use my passkey").click()
    expect(second.locator("#devices-status")).to_have_text("This device is now a device of the same player.")
    signed_in = _token(second)
    assert signed_in and signed_in != token
    assert _me(site, signed_in).json()["player"] == _me(site, token).json()["player"]
    expect(second.locator("#device-items li")).to_have_count(2)
    expect(second.locator("#passkey-items li")).to_have_count(1)
    # with a second device, the passkey may go
    second.locator("#passkey-items li").get_by_role("button", name="Remove Laptop").click()
    expect(second.locator("#passkey-items li")).to_have_count(0)
    expect(second.locator("#devices-status")).to_have_text("Laptop removed.")


def test_a_device_that_is_another_player_is_asked_first_by_keyboard(visitor, site):
    owner = requests.post(f"{site}/api/v1/runs", json={}, timeout=20).json()["player_token"]
    link = requests.post(f"{site}/api/v1/players/me/links", headers={"X-Player-Token": owner}, timeout=10).json()
    mine = requests.post(f"{site}/api/v1/runs", json={}, timeout=20).json()["player_token"]
    page = visitor(viewport=PHONE, locale="fr-BE")
    page.goto("/devices?lang=fr")
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [TOKEN_KEY, mine])
    page.goto(f"/link/{link['code']}?lang=fr")
    join = page.get_by_role("button", name="Rejoindre")
    expect(join).to_be_focused()
    expect(page.get_by_label("Code", exact=True)).to_have_value(f"{link['code'][:5]}-{link['code'][5:]}")
    assert axe_serious(page, "link page") == []
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Ce navigateur est déjà un joueur")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("button", name="Rester tel quel")).to_be_focused()
    assert axe_serious(page, "switch dialog") == []
    page.keyboard.press("Escape")  # stays as it is: nothing sent, the code still good
    expect(dialog).to_have_count(0)
    assert _token(page) == mine
    join.press("Enter")
    dialog.get_by_role("button", name="Rejoindre l'autre joueur").press("Enter")
    expect(page.locator("#devices-status")).to_have_text("Cet appareil est maintenant un appareil du même joueur.")
    assert page.url.endswith("/devices")
    joined = _token(page)
    assert joined not in (mine, owner)
    assert _me(site, joined).json()["player"] == _me(site, owner).json()["player"]
    assert _me(site, mine).status_code == 200  # the player it was lives on, with its games
