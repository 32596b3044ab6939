"""Checks the Authlib test server itself, over HTTP with `requests` only, so the CLI suite stands on tested ground."""

import base64
import json
import re
import time

import pytest
import requests
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from approve import ApprovalError, approve, deny

PUBLIC = "device-login-e2e"
CONFIDENTIAL = "device-login-e2e-confidential"
SECRET = "e2e-confidential-secret"
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
TIMEOUT = 10


def device_authorization(server, scope=None, client_id=PUBLIC, secret=None):
    data = {} if secret else {"client_id": client_id}
    if scope:
        data["scope"] = scope
    auth = (client_id, secret) if secret else None
    return requests.post(server.url("/oauth/device_authorization"), data=data, auth=auth, timeout=TIMEOUT)


def start_flow(server, scope=None, client_id=PUBLIC, secret=None):
    response = device_authorization(server, scope, client_id, secret)
    assert response.status_code == 200, response.text
    return response.json()


def poll(server, device_code, client_id=PUBLIC, secret=None):
    data = {"grant_type": DEVICE_GRANT, "device_code": device_code}
    if not secret:
        data["client_id"] = client_id
    auth = (client_id, secret) if secret else None
    return requests.post(server.url("/oauth/token"), data=data, auth=auth, timeout=TIMEOUT)


def signed_in_tokens(server, scope=None, client_id=PUBLIC, secret=None):
    flow = start_flow(server, scope, client_id, secret)
    approve(server.base_url, flow["user_code"])
    response = poll(server, flow["device_code"], client_id, secret)
    assert response.status_code == 200, response.text
    return response.json()


def refresh(server, refresh_token, client_id=PUBLIC):
    data = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": client_id}
    return requests.post(server.url("/oauth/token"), data=data, timeout=TIMEOUT)


def revoke(server, token, hint=None, client_id=PUBLIC, secret=None):
    data = {"token": token}
    if hint:
        data["token_type_hint"] = hint
    if not secret:
        data["client_id"] = client_id
    auth = (client_id, secret) if secret else None
    return requests.post(server.url("/oauth/revoke"), data=data, auth=auth, timeout=TIMEOUT)


def userinfo(server, access_token):
    headers = {"Authorization": f"Bearer {access_token}"}
    return requests.get(server.url("/userinfo"), headers=headers, timeout=TIMEOUT)


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def error_of(response):
    return response.json().get("error")


def test_discovery_documents_name_every_endpoint(server):
    oidc = requests.get(server.url("/.well-known/openid-configuration"), timeout=TIMEOUT)
    oauth = requests.get(server.url("/.well-known/oauth-authorization-server"), timeout=TIMEOUT)
    assert oidc.status_code == 200 and oauth.status_code == 200
    assert oidc.json() == oauth.json()
    document = oidc.json()
    assert document["issuer"] == server.base_url
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", server.base_url)
    assert document["device_authorization_endpoint"] == server.url("/oauth/device_authorization")
    assert document["token_endpoint"] == server.url("/oauth/token")
    assert document["revocation_endpoint"] == server.url("/oauth/revoke")
    assert document["userinfo_endpoint"] == server.url("/userinfo")
    assert "openid" in document["scopes_supported"]
    assert DEVICE_GRANT in document["grant_types_supported"]


def test_device_authorization_answers_per_rfc_8628_section_3_2(server):
    response = device_authorization(server, scope="openid")
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    body = response.json()
    assert set(body) == {"device_code", "user_code", "verification_uri", "verification_uri_complete",
                         "expires_in", "interval"}
    assert re.fullmatch(r"[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}", body["user_code"])
    assert body["verification_uri"] == server.url("/device")
    assert body["verification_uri_complete"] == server.url("/device?user_code=" + body["user_code"])
    assert body["interval"] == 1
    assert body["expires_in"] == 600


def test_unknown_scope_is_refused(server):
    response = device_authorization(server, scope="openid admin")
    assert response.status_code == 400
    assert error_of(response) == "invalid_scope"


def test_unknown_client_is_refused(server):
    response = device_authorization(server, client_id="nobody")
    assert error_of(response) == "invalid_client"


def test_pending_then_approved_gives_a_bearer_token_once(server):
    flow = start_flow(server)
    pending = poll(server, flow["device_code"])
    assert (pending.status_code, error_of(pending)) == (400, "authorization_pending")

    assert approve(server.base_url, flow["user_code"]) == "approved"
    time.sleep(1.05)  # the interval, so this poll is on time
    granted = poll(server, flow["device_code"])
    assert granted.status_code == 200, granted.text
    assert granted.headers["Cache-Control"] == "no-store"
    token = granted.json()
    assert token["token_type"] == "Bearer"
    assert token["expires_in"] == 3600
    assert token["access_token"] and token["refresh_token"]
    assert "id_token" not in token  # no openid scope asked

    reused = poll(server, flow["device_code"])
    assert (reused.status_code, error_of(reused)) == (400, "invalid_request")  # Authlib's answer to an unknown code

    polls = server.polls(flow["user_code"])["polls"]
    assert [p["answer"] for p in polls] == ["authorization_pending", "token"]
    assert [p["auth_method"] for p in polls] == ["none", "none"]


def test_polling_faster_than_the_interval_gets_slow_down_and_adds_5_seconds_each_time(server):
    flow = start_flow(server)
    answers = [error_of(poll(server, flow["device_code"])) for _ in range(3)]
    assert answers == ["authorization_pending", "slow_down", "slow_down"]
    record = server.polls(flow["user_code"])
    assert [p["interval"] for p in record["polls"]] == [1, 6, 11]
    assert record["interval"] == 11


def test_forced_slow_down_answers_the_next_poll_only(server):
    flow = start_flow(server)
    server.force_slow_down(flow["user_code"])
    assert error_of(poll(server, flow["device_code"])) == "slow_down"
    assert server.polls(flow["user_code"])["interval"] == 6


def test_forced_slow_down_of_an_unknown_code_is_404(server):
    response = requests.post(server.url("/_test/slow_down"), params={"user_code": "XXXX-XXXX"}, timeout=TIMEOUT)
    assert response.status_code == 404


def test_denied_code_answers_access_denied(server):
    flow = start_flow(server)
    assert deny(server.base_url, flow["user_code"]) == "denied"
    response = poll(server, flow["device_code"])
    assert (response.status_code, error_of(response)) == (400, "access_denied")
    with pytest.raises(ApprovalError, match="already been used"):
        approve(server.base_url, flow["user_code"])


def test_expired_code_answers_expired_token_and_cannot_be_approved(server_factory):
    server = server_factory(interval=1, expires_in=1)
    flow = start_flow(server)
    assert flow["expires_in"] == 1
    time.sleep(1.2)
    response = poll(server, flow["device_code"])
    assert (response.status_code, error_of(response)) == (400, "expired_token")
    with pytest.raises(ApprovalError, match="expired"):
        approve(server.base_url, flow["user_code"])


def test_a_client_cannot_poll_another_clients_device_code(server):
    flow = start_flow(server, client_id=CONFIDENTIAL, secret=SECRET)
    response = poll(server, flow["device_code"], client_id=PUBLIC)
    assert error_of(response) == "unauthorized_client"


def test_confidential_client_must_use_basic_auth(server):
    no_secret = device_authorization(server, client_id=CONFIDENTIAL)
    assert (no_secret.status_code, error_of(no_secret)) == (401, "invalid_client")
    wrong_secret = device_authorization(server, client_id=CONFIDENTIAL, secret="wrong")
    assert (wrong_secret.status_code, error_of(wrong_secret)) == (401, "invalid_client")
    in_body = requests.post(server.url("/oauth/device_authorization"),
                            data={"client_id": CONFIDENTIAL, "client_secret": SECRET}, timeout=TIMEOUT)
    assert error_of(in_body) == "invalid_client"

    token = signed_in_tokens(server, client_id=CONFIDENTIAL, secret=SECRET)
    assert token["token_type"] == "Bearer"
    assert revoke(server, token["refresh_token"], "refresh_token", CONFIDENTIAL, SECRET).status_code == 200
    assert userinfo(server, token["access_token"]).status_code == 401


def test_refresh_rotates_the_refresh_token(server):
    first = signed_in_tokens(server, scope="openid")
    response = refresh(server, first["refresh_token"])
    assert response.status_code == 200, response.text
    second = response.json()
    assert second["access_token"] != first["access_token"]
    assert second["refresh_token"] != first["refresh_token"]
    assert second["scope"] == "openid"
    assert "id_token" in second

    replayed = refresh(server, first["refresh_token"])
    assert (replayed.status_code, error_of(replayed)) == (400, "invalid_grant")
    assert userinfo(server, second["access_token"]).status_code == 200
    assert refresh(server, second["refresh_token"]).status_code == 200


def test_refresh_by_another_client_is_refused(server):
    token = signed_in_tokens(server)
    response = requests.post(server.url("/oauth/token"), auth=(CONFIDENTIAL, SECRET), timeout=TIMEOUT,
                             data={"grant_type": "refresh_token", "refresh_token": token["refresh_token"]})
    assert error_of(response) == "invalid_grant"


def test_revoking_the_access_token_ends_it(server):
    token = signed_in_tokens(server, scope="openid")
    assert userinfo(server, token["access_token"]).status_code == 200
    assert revoke(server, token["access_token"], "access_token").status_code == 200
    response = userinfo(server, token["access_token"])
    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["WWW-Authenticate"]
    assert refresh(server, token["refresh_token"]).status_code == 200  # the refresh token lives on


def test_revoking_the_refresh_token_ends_its_access_token_too(server):
    token = signed_in_tokens(server, scope="openid")
    assert revoke(server, token["refresh_token"], "refresh_token").status_code == 200
    assert error_of(refresh(server, token["refresh_token"])) == "invalid_grant"
    assert userinfo(server, token["access_token"]).status_code == 401


def test_revoking_an_unknown_token_is_200(server):
    assert revoke(server, "not-a-token").status_code == 200


def test_userinfo_needs_a_bearer_token_with_openid(server):
    missing = requests.get(server.url("/userinfo"), timeout=TIMEOUT)
    assert missing.status_code == 401
    assert missing.headers["WWW-Authenticate"].lower().startswith("bearer")
    without_openid = signed_in_tokens(server)
    assert userinfo(server, without_openid["access_token"]).status_code == 403

    token = signed_in_tokens(server, scope="openid email")
    response = userinfo(server, token["access_token"])
    assert response.status_code == 200
    assert response.json() == {"sub": "alice", "name": "Alice Liddell", "email": "alice@example.com",
                               "preferred_username": "alice"}


def test_id_token_is_an_rs256_jwt_signed_by_the_published_key(server):
    token = signed_in_tokens(server, scope="openid")
    header_part, claims_part, signature_part = token["id_token"].split(".")
    header = json.loads(b64url_decode(header_part))
    claims = json.loads(b64url_decode(claims_part))
    assert header["alg"] == "RS256"

    jwks = requests.get(server.url("/jwks.json"), timeout=TIMEOUT).json()
    (key,) = [k for k in jwks["keys"] if k["kid"] == header["kid"]]
    assert "d" not in key  # public part only
    public_key = rsa.RSAPublicNumbers(
        int.from_bytes(b64url_decode(key["e"]), "big"), int.from_bytes(b64url_decode(key["n"]), "big")
    ).public_key()
    public_key.verify(b64url_decode(signature_part), f"{header_part}.{claims_part}".encode(),
                      padding.PKCS1v15(), hashes.SHA256())

    now = time.time()
    assert claims["iss"] == server.base_url
    assert claims["sub"] == "alice"
    assert claims["aud"] == [PUBLIC]
    assert claims["iat"] <= now + 5 and claims["exp"] > now
    assert claims["name"] == "Alice Liddell" and claims["email"] == "alice@example.com"


def test_device_page_sends_a_stranger_to_sign_in_first(server):
    response = requests.get(server.url("/device?user_code=BCDF-GHJK"), allow_redirects=False, timeout=TIMEOUT)
    assert response.status_code == 302
    assert response.headers["Location"] == "/login?next=%2Fdevice%3Fuser_code%3DBCDF-GHJK"


def test_device_page_prefills_the_code_from_the_verification_uri_complete(server):
    flow = start_flow(server)
    with requests.Session() as browser:
        login_page = browser.get(server.url("/login"), timeout=TIMEOUT)
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', login_page.text).group(1)
        signed_in = browser.post(server.url("/login"), timeout=TIMEOUT, data={
            "csrf_token": csrf, "next": "/device?user_code=" + flow["user_code"],
            "username": "alice", "password": "wonderland"})
        assert signed_in.url == flow["verification_uri_complete"]
        assert f'name="user_code" value="{flow["user_code"]}"' in signed_in.text


def test_web_forms_refuse_a_missing_csrf_token(server):
    with requests.Session() as browser:
        browser.get(server.url("/login"), timeout=TIMEOUT)
        response = browser.post(server.url("/login"), data={"username": "alice", "password": "wonderland"},
                                timeout=TIMEOUT)
        assert response.status_code == 400


def test_wrong_password_and_unknown_code_are_reported(server):
    flow = start_flow(server)
    with pytest.raises(ApprovalError, match="Wrong username or password"):
        approve(server.base_url, flow["user_code"], password="looking-glass")
    with pytest.raises(ApprovalError, match="Unknown code"):
        approve(server.base_url, "BCDF-GHJK")


def test_user_code_is_matched_ignoring_case_and_dashes(server):
    flow = start_flow(server)
    typed = flow["user_code"].replace("-", " ").lower()
    assert approve(server.base_url, typed) == "approved"
    assert poll(server, flow["device_code"]).status_code == 200
