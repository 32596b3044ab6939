#!/usr/bin/env python3
"""A small, real RFC 8628 authorization server for DeviceLogin's end-to-end tests.

The OAuth work is Authlib's: the device authorization endpoint and device code grant (RFC 8628), the refresh token
grant (RFC 6749 §6, here with rotation), the revocation endpoint (RFC 7009), bearer token checks (RFC 6750), the
UserInfo endpoint and ID tokens (OpenID Connect Core). This file supplies only what Authlib leaves to its user:
in-memory storage, two clients, one user, the pages a person uses to approve a code, and discovery documents.

What Authlib does NOT do by itself (checked in Authlib 1.9.10, authlib/oauth2/rfc8628/device_code.py):
`DeviceCodeGrant.should_slow_down` raises NotImplementedError, so the polling interval is not enforced unless the
server implements that hook. `DeviceGrant.should_slow_down` below does it: a poll that arrives sooner than the
interval in force after the previous poll of the same device code is answered `slow_down`, and, as RFC 8628 §3.5
says, the interval grows by 5 seconds for that and every later poll. The first poll is not checked against the
time of the device authorization request.

Test-only routes, for the test suites (this server is a test fixture, never a product):
    GET  /_test/polls?user_code=CODE      every poll of that code: monotonic time, answer, interval after it
    POST /_test/slow_down?user_code=CODE  the next pending poll of that code is answered slow_down
    POST /_test/rotate_key                ID tokens are signed with a new RSA key from now on; /jwks.json serves
                                          only the new key (a rotation without overlap)

With --code-grant it also serves Authlib's authorization code grant (RFC 6749 §4.1) with PKCE required
(RFC 7636, CodeChallenge(required=True), S256 only) and OpenID Connect's nonce in the ID token (OpenIDCode):
GET /oauth/authorize asks the signed-in person to approve, and redirects to the public client's loopback
redirect URI (http://127.0.0.1:ANY-PORT/callback, RFC 8252 §7.3). With --block-device the device authorization
endpoint refuses every request as Microsoft Entra ID's Conditional Access does (AADSTS53003).

Run:  python3 Tests/e2e/authlib_server.py --port 0 --interval 1 [--scopes "openid profile email"]
It binds 127.0.0.1 only and prints `LISTENING http://127.0.0.1:PORT` on stdout once it accepts connections.
"""

import argparse
import html
import secrets
import sys
import threading
import time
from functools import wraps
from urllib.parse import urlencode, urlsplit

from authlib.integrations.flask_oauth2 import AuthorizationServer, ResourceProtector
from authlib.oauth2 import OAuth2Error
from authlib.oauth2.rfc6749 import AuthorizationCodeMixin, ClientMixin, InvalidRequestError, TokenMixin, grants
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oauth2.rfc6750 import BearerTokenValidator
from authlib.oauth2.rfc7009 import RevocationEndpoint
from authlib.oauth2.rfc8628 import (
    DEVICE_CODE_GRANT_TYPE,
    DeviceAuthorizationEndpoint,
    DeviceCodeGrant,
    DeviceCredentialDict,
)
from authlib.oidc.core import OpenIDCode, OpenIDToken, UserInfo, UserInfoEndpoint
from flask import Flask, current_app, jsonify, redirect, request, session
from joserfc.jwk import RSAKey
from werkzeug.serving import make_server

PUBLIC_CLIENT_ID = "device-login-e2e"
CONFIDENTIAL_CLIENT_ID = "device-login-e2e-confidential"
CONFIDENTIAL_CLIENT_SECRET = "e2e-confidential-secret"
USERNAME = "alice"
PASSWORD = "wonderland"
# The scopes this server lists in discovery and grants; others are refused with invalid_scope (Authlib checks the
# request against OAUTH2_SCOPES_SUPPORTED). `--scopes` replaces them: `--scopes "openid profile email"` is a server
# set up as Authlib's documentation shows, with no offline_access (a refresh token is issued without it).
SCOPES_SUPPORTED = ["openid", "profile", "email", "offline_access"]
SLOW_DOWN_STEP = 5  # RFC 8628 §3.5: "the interval MUST be increased by 5 seconds"


class User:
    def __init__(self, username, password, name, email):
        self.username = username
        self.password = password
        self.name = name
        self.email = email

    def get_user_id(self):
        return self.username

    def claims(self):
        return UserInfo(sub=self.username, name=self.name, email=self.email, preferred_username=self.username)


class Client(ClientMixin):
    """A registered client. `auth_method` is the only way it may authenticate, at every endpoint."""

    def __init__(self, client_id, client_secret, auth_method, name):
        self.client_id = client_id
        self.client_secret = client_secret
        self.auth_method = auth_method
        self.client_metadata = {"client_name": name}

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        return None

    def get_allowed_scope(self, scope):
        if not scope:
            return ""
        supported = current_app.config["OAUTH2_SCOPES_SUPPORTED"]
        return " ".join(s for s in scope.split() if s in supported)

    def check_redirect_uri(self, redirect_uri):
        # RFC 8252 §7.3: a loopback redirect URI is registered without its port; any port is accepted. Only the
        # public client may use the code grant.
        if self.auth_method != "none" or not current_app.config.get("CODE_GRANT"):
            return False
        parts = urlsplit(redirect_uri)
        return parts.scheme == "http" and parts.hostname in ("127.0.0.1", "::1") and parts.path == "/callback" \
            and not parts.query and not parts.fragment

    def check_client_secret(self, client_secret):
        return self.client_secret is not None and secrets.compare_digest(self.client_secret, client_secret)

    def check_endpoint_auth_method(self, method, endpoint):
        return method == self.auth_method

    def check_response_type(self, response_type):
        return response_type == "code" and bool(current_app.config.get("CODE_GRANT"))

    def check_grant_type(self, grant_type):
        if grant_type == "authorization_code":
            return bool(current_app.config.get("CODE_GRANT"))
        return grant_type in (DEVICE_CODE_GRANT_TYPE, "refresh_token")


class Token(TokenMixin):
    def __init__(self, client, user, fields):
        self.client = client
        self.user = user
        self.access_token = fields["access_token"]
        self.refresh_token = fields.get("refresh_token")
        self.scope = fields.get("scope", "")
        self.expires_in = fields.get("expires_in", 0)
        self.issued_at = time.time()
        self.access_token_revoked = False
        self.refresh_token_revoked = False

    def check_client(self, client):
        return client.get_client_id() == self.client.get_client_id()

    def get_scope(self):
        return self.scope

    def get_expires_in(self):
        return self.expires_in

    def is_expired(self):
        return bool(self.expires_in) and self.issued_at + self.expires_in < time.time()

    def is_revoked(self):
        return self.access_token_revoked

    def get_user(self):
        return self.user

    def get_client(self):
        return self.client


class DeviceCredential(DeviceCredentialDict):
    """Authlib's device credential plus what this server tracks: the person's decision and every poll."""

    def __init__(self, data, interval):
        super().__init__(data)
        self.interval = interval
        self.polls = []
        self.force_slow_down = False
        self.decision = None  # (user, approved) once the person has answered
        self.used = False

    def start_poll(self, auth_method):
        poll = {"at": time.monotonic(), "auth_method": auth_method, "answer": None, "interval": None}
        self.polls.append(poll)
        return poll


def normalize_user_code(user_code):
    """RFC 8628 §6.1: user codes are compared case-insensitively, ignoring dashes, spaces and other punctuation."""
    return "".join(ch for ch in (user_code or "").upper() if ch.isalnum())


class Store:
    """Everything the server knows, in memory. Requests are serialized by `lock` (see `create_app`)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.users = {USERNAME: User(USERNAME, PASSWORD, "Alice Liddell", "alice@example.com")}
        self.clients = {
            PUBLIC_CLIENT_ID: Client(PUBLIC_CLIENT_ID, None, "none", "DeviceLogin e2e (public)"),
            CONFIDENTIAL_CLIENT_ID: Client(
                CONFIDENTIAL_CLIENT_ID,
                CONFIDENTIAL_CLIENT_SECRET,
                "client_secret_basic",
                "DeviceLogin e2e (confidential)",
            ),
        }
        self.credentials = {}  # device_code -> DeviceCredential
        self.codes = {}  # authorization code -> AuthorizationCode (--code-grant)
        self.by_user_code = {}  # normalized user_code -> DeviceCredential
        self.tokens = []

    def add_credential(self, credential):
        self.credentials[credential["device_code"]] = credential
        self.by_user_code[normalize_user_code(credential["user_code"])] = credential

    def credential_for_user_code(self, user_code):
        return self.by_user_code.get(normalize_user_code(user_code))

    def token_for(self, value, kind):
        for token in self.tokens:
            if getattr(token, kind) == value:
                return token
        return None


def store():
    return current_app.config["STORE"]


def issuer():
    return current_app.config["ISSUER"]


class DeviceAuthorization(DeviceAuthorizationEndpoint):
    def __init__(self, server, interval, expires_in):
        super().__init__(server)
        self.INTERVAL = interval
        self.EXPIRES_IN = expires_in

    def get_verification_uri(self):
        return issuer() + "/device"

    def save_device_credential(self, client_id, scope, data):
        data = dict(data, client_id=client_id, scope=scope, expires_at=time.time() + data["expires_in"])
        store().add_credential(DeviceCredential(data, self.INTERVAL))


class DeviceGrant(DeviceCodeGrant):
    def query_device_credential(self, device_code):
        credential = store().credentials.get(device_code)
        if credential is None or credential.used:
            return None
        return credential

    def query_user_grant(self, user_code):
        return store().credential_for_user_code(user_code).decision

    def validate_device_credential(self, credential):
        # Authlib calls this once per poll, after the client is authenticated and owns the device code:
        # the place to record the poll and the answer it gets.
        poll = credential.start_poll(self.request.auth_method)
        try:
            user = super().validate_device_credential(credential)
        except OAuth2Error as error:
            poll["answer"] = error.error
            raise
        finally:
            poll["interval"] = credential.interval
        poll["answer"] = "token"
        return user

    def should_slow_down(self, credential):
        # The hook Authlib leaves unimplemented. RFC 8628 §3.5: on slow_down "the interval MUST be increased
        # by 5 seconds for this and all subsequent requests".
        polls = credential.polls
        too_soon = len(polls) >= 2 and polls[-1]["at"] - polls[-2]["at"] < credential.interval
        if too_soon or credential.force_slow_down:
            credential.force_slow_down = False
            credential.interval += SLOW_DOWN_STEP
            return True
        return False

    def create_token_response(self):
        response = super().create_token_response()
        self.request.credential.used = True  # a device code yields one token response
        return response


class RefreshGrant(grants.RefreshTokenGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "none"]
    INCLUDE_NEW_REFRESH_TOKEN = True  # rotation: every refresh answers with a new refresh token

    def authenticate_refresh_token(self, refresh_token):
        token = store().token_for(refresh_token, "refresh_token")
        if token is not None and not token.refresh_token_revoked:
            return token
        return None

    def authenticate_user(self, refresh_token):
        return refresh_token.user

    def revoke_old_credential(self, refresh_token):
        refresh_token.refresh_token_revoked = True


class Revocation(RevocationEndpoint):
    CLIENT_AUTH_METHODS = ["client_secret_basic", "none"]

    def query_token(self, token_string, token_type_hint):
        kinds = ["access_token", "refresh_token"]
        if token_type_hint == "refresh_token":
            kinds.reverse()
        for kind in kinds:
            token = store().token_for(token_string, kind)
            if token is not None:
                return token
        return None

    def revoke_token(self, token, request):
        token.access_token_revoked = True
        if request.form["token"] == token.refresh_token:
            # RFC 7009 §2.1: revoking a refresh token should also invalidate the access tokens of that grant.
            token.refresh_token_revoked = True


class AuthorizationCode(AuthorizationCodeMixin):
    """One issued code, with what PKCE and OpenID Connect check when it is redeemed."""

    def __init__(self, code, client_id, redirect_uri, scope, user, nonce, challenge, method):
        self.code = code
        self.client_id = client_id
        self.redirect_uri = redirect_uri
        self.scope = scope
        self.user = user
        self.nonce = nonce
        self.code_challenge = challenge
        self.code_challenge_method = method
        self.auth_time = int(time.time())
        self.expires_at = time.time() + 60

    def get_redirect_uri(self):
        return self.redirect_uri

    def get_scope(self):
        return self.scope

    def get_nonce(self):
        return self.nonce

    def get_auth_time(self):
        return self.auth_time

    def get_acr(self):
        return None

    def get_amr(self):
        return None


class CodeGrant(grants.AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["none"]

    def save_authorization_code(self, code, request):
        store().codes[code] = AuthorizationCode(
            code, request.client.get_client_id(), request.payload.redirect_uri, request.payload.scope, request.user,
            request.payload.data.get("nonce"), request.payload.data.get("code_challenge"),
            request.payload.data.get("code_challenge_method"),
        )

    def query_authorization_code(self, code, client):
        found = store().codes.get(code)
        if found and found.client_id == client.get_client_id() and time.time() < found.expires_at:
            return found
        return None

    def delete_authorization_code(self, authorization_code):
        store().codes.pop(authorization_code.code, None)

    def authenticate_user(self, authorization_code):
        return authorization_code.user


class S256Only(CodeChallenge):
    """PKCE required, and only S256 (RFC 9700 §2.1.1)."""

    SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]

    def validate_code_challenge(self, grant, redirect_uri):
        if not grant.request.payload.data.get("code_challenge"):
            raise InvalidRequestError("Missing 'code_challenge'")
        return super().validate_code_challenge(grant, redirect_uri)


class IDToken(OpenIDToken):
    def get_client_algorithm(self, client):
        return "RS256"

    def resolve_client_private_key(self, client):
        return current_app.config["SIGNING_KEY"]

    def get_encode_header(self, client):
        return {"alg": "RS256", "kid": current_app.config["SIGNING_KEY"].kid}

    def get_client_claims(self, client):
        return {"iss": issuer(), "aud": [client.get_client_id()]}

    def generate_user_info(self, user, scope):
        return user.claims()


class IDCode(OpenIDCode):
    get_client_algorithm = IDToken.get_client_algorithm
    resolve_client_private_key = IDToken.resolve_client_private_key
    get_encode_header = IDToken.get_encode_header
    get_client_claims = IDToken.get_client_claims
    generate_user_info = IDToken.generate_user_info

    def exists_nonce(self, nonce, request):
        return any(code.nonce == nonce for code in store().codes.values() if code.code != request.payload.data.get("code"))


class UserInfoRoute(UserInfoEndpoint):
    def generate_user_info(self, user, scope):
        return user.claims()

    def get_issuer(self):
        return issuer()


class AccessTokens(BearerTokenValidator):
    def authenticate_token(self, token_string):
        return store().token_for(token_string, "access_token")


def page(title, body, status=200):
    document = (
        '<!doctype html>\n<html><head><meta charset="utf-8"><title>{0}</title></head>\n'
        "<body><h1>{0}</h1>\n{1}\n</body></html>\n"
    ).format(html.escape(title), body)
    return document, status, {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"}


def csrf_token():
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)
    return session["csrf"]


def csrf_field():
    return f'<input type="hidden" name="csrf_token" value="{csrf_token()}">'


def csrf_ok():
    sent = request.form.get("csrf_token", "")
    return "csrf" in session and secrets.compare_digest(session["csrf"], sent)


def bad_form():
    return page("Form expired", '<p class="error">The form has expired. <a href="/device">Start again</a>.</p>', 400)


def signed_in(view):
    @wraps(view)
    def wrapper(*args, **kwargs):
        if session.get("user") not in store().users:
            return redirect("/login?" + urlencode({"next": request.full_path.rstrip("?")}))
        return view(*args, **kwargs)

    return wrapper


def login_page(next_path, error=None, status=200):
    message = f'<p class="error">{html.escape(error)}</p>' if error else ""
    return page(
        "Sign in",
        f"""{message}<form method="post" action="/login">
{csrf_field()}
<input type="hidden" name="next" value="{html.escape(next_path)}">
<label>Username <input type="text" name="username" autocomplete="username"></label>
<label>Password <input type="password" name="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button>
</form>""",
        status,
    )


def device_page(user_code="", error=None, status=200):
    message = f'<p class="error">{html.escape(error)}</p>' if error else ""
    return page(
        "Connect a device",
        f"""{message}<form method="post" action="/device">
{csrf_field()}
<label>Code shown on your device <input type="text" name="user_code" value="{html.escape(user_code)}"></label>
<button type="submit">Continue</button>
</form>""",
        status,
    )


def pending_credential(user_code):
    """The credential a person may still answer, or the reason they cannot."""
    credential = store().credential_for_user_code(user_code)
    if credential is None:
        return None, "Unknown code. Check the code shown on your device."
    if credential.is_expired():
        return None, "This code has expired. Start again on your device."
    if credential.decision is not None or credential.used:
        return None, "This code has already been used."
    return credential, None


def safe_next(next_path):
    parts = urlsplit(next_path or "")
    if parts.scheme or parts.netloc or not next_path.startswith("/"):
        return "/device"
    return next_path


def create_app(interval=5, expires_in=1800, token_expires_in=3600, scopes=None, code_grant=False,
               block_device=False, no_device=False):
    app = Flask(__name__)
    app.secret_key = secrets.token_bytes(32)
    app.config.update(
        STORE=Store(),
        ISSUER="http://127.0.0.1",  # replaced by main() once the port is known
        SIGNING_KEY=RSAKey.generate_key(2048, parameters={"use": "sig", "alg": "RS256"}, auto_kid=True),
        OAUTH2_REFRESH_TOKEN_GENERATOR=True,
        OAUTH2_TOKEN_EXPIRES_IN={DEVICE_CODE_GRANT_TYPE: token_expires_in, "refresh_token": token_expires_in,
                                 "authorization_code": token_expires_in},
        CODE_GRANT=code_grant,
        BLOCK_DEVICE=block_device,
        NO_DEVICE=no_device,
        OAUTH2_SCOPES_SUPPORTED=list(scopes if scopes is not None else SCOPES_SUPPORTED),
    )

    def query_client(client_id):
        return store().clients.get(client_id)

    def save_token(fields, oauth_request):
        store().tokens.append(Token(oauth_request.client, oauth_request.user, fields))

    server = AuthorizationServer(app, query_client=query_client, save_token=save_token)
    server.register_grant(DeviceGrant, [IDToken()])
    server.register_grant(RefreshGrant, [IDToken()])
    if code_grant:
        server.register_grant(CodeGrant, [S256Only(required=True), IDCode(require_nonce=False)])
    server.register_endpoint(DeviceAuthorization(server, interval, expires_in))
    server.register_endpoint(Revocation)
    protector = ResourceProtector()
    protector.register_token_validator(AccessTokens())
    server.register_endpoint(UserInfoRoute(resource_protector=protector))

    # One request at a time: the store is plain dictionaries and lists. Connections are still accepted on
    # threads, so a slow client never blocks the listener.
    @app.before_request
    def take_lock():
        store().lock.acquire()

    @app.teardown_request
    def release_lock(_error):
        store().lock.release()

    def metadata():
        base = issuer()
        code = current_app.config["CODE_GRANT"]
        extra = dict(
            authorization_endpoint=base + "/oauth/authorize",
            code_challenge_methods_supported=["S256"],
            response_modes_supported=["query"],
        ) if code else {}
        if not current_app.config["NO_DEVICE"]:
            extra["device_authorization_endpoint"] = base + "/oauth/device_authorization"
        return jsonify(
            **extra,
            issuer=base,
            token_endpoint=base + "/oauth/token",
            revocation_endpoint=base + "/oauth/revoke",
            userinfo_endpoint=base + "/userinfo",
            jwks_uri=base + "/jwks.json",
            scopes_supported=current_app.config["OAUTH2_SCOPES_SUPPORTED"],
            response_types_supported=["code"] if code else [],
            grant_types_supported=[DEVICE_CODE_GRANT_TYPE, "refresh_token"] + (["authorization_code"] if code else []),
            token_endpoint_auth_methods_supported=["none", "client_secret_basic"],
            revocation_endpoint_auth_methods_supported=["none", "client_secret_basic"],
            subject_types_supported=["public"],
            id_token_signing_alg_values_supported=["RS256"],
            claims_supported=["sub", "iss", "aud", "exp", "iat", "auth_time", "name", "email", "preferred_username"],
        )

    app.add_url_rule("/.well-known/openid-configuration", "openid_configuration", metadata)
    app.add_url_rule("/.well-known/oauth-authorization-server", "oauth_authorization_server", metadata)

    @app.get("/jwks.json")
    def jwks():
        return jsonify(keys=[current_app.config["SIGNING_KEY"].as_dict(private=False)])

    @app.post("/oauth/device_authorization")
    def device_authorization():
        if current_app.config["NO_DEVICE"]:
            return jsonify(error="not_found"), 404
        if current_app.config["BLOCK_DEVICE"]:
            # Microsoft Entra ID's answer when Conditional Access blocks the device code flow.
            return jsonify(
                error="invalid_grant", error_codes=[53003],
                error_description="AADSTS53003: Access has been blocked by Conditional Access policies.",
            ), 400
        return server.create_endpoint_response("device_authorization")

    @app.route("/oauth/authorize", methods=["GET", "POST"])
    @signed_in
    def authorize():
        user = store().users[session["user"]]
        if request.method == "GET":
            try:
                grant = server.get_consent_grant(end_user=user)
            except OAuth2Error as error:
                return page("Sign-in refused", f'<p class="error">{html.escape(error.error or "")}</p>', 400)
            client = grant.client.client_metadata["client_name"]
            return page(
                "Allow this app?",
                f"""<p><strong>{html.escape(client)}</strong> asks to sign in as
<strong>{html.escape(user.username)}</strong>.</p>
<form method="post" action="{html.escape(request.full_path)}">
{csrf_field()}
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>""",
            )
        if not csrf_ok():
            return bad_form()
        return server.create_authorization_response(grant_user=user if request.form.get("decision") == "approve" else None)

    @app.post("/oauth/token")
    def token():
        response = server.create_token_response()
        if request.form.get("grant_type") == DEVICE_CODE_GRANT_TYPE:
            body = response.get_json(silent=True) or {}
            print(f"poll -> {response.status_code} {body.get('error', 'token')}", file=sys.stderr, flush=True)
        elif request.form.get("grant_type") == "refresh_token":
            print(f"refresh -> {response.status_code}", file=sys.stderr, flush=True)
        return response

    @app.post("/oauth/revoke")
    def revoke():
        return server.create_endpoint_response("revocation")

    @app.route("/userinfo", methods=["GET", "POST"])
    def userinfo():
        return server.create_endpoint_response("userinfo")

    @app.route("/login", methods=["GET", "POST"])
    def login():
        next_path = safe_next(request.values.get("next", "/device"))
        if request.method == "GET":
            return login_page(next_path)
        if not csrf_ok():
            return bad_form()
        user = store().users.get(request.form.get("username", ""))
        if user is None or not secrets.compare_digest(user.password, request.form.get("password", "")):
            return login_page(next_path, "Wrong username or password.", 401)
        session["user"] = user.username
        return redirect(next_path)

    @app.get("/device")
    @signed_in
    def device():
        return device_page(request.args.get("user_code", ""))

    @app.post("/device")
    @signed_in
    def device_submit():
        if not csrf_ok():
            return bad_form()
        user_code = request.form.get("user_code", "")
        credential, error = pending_credential(user_code)
        if credential is None:
            return device_page(user_code, error, 400)
        return redirect("/device/confirm?" + urlencode({"user_code": credential["user_code"]}))

    @app.get("/device/confirm")
    @signed_in
    def confirm():
        credential, error = pending_credential(request.args.get("user_code", ""))
        if credential is None:
            return device_page(request.args.get("user_code", ""), error, 400)
        client = store().clients[credential.get_client_id()]
        scope = credential.get_scope() or "(none)"
        return page(
            "Approve this device?",
            f"""<p><strong>{html.escape(client.client_metadata["client_name"])}</strong> asks to sign in as
<strong>{html.escape(session["user"])}</strong> with the scopes <code>{html.escape(scope)}</code>.</p>
<p>Check that your device shows this code: <code class="user-code">{html.escape(credential["user_code"])}</code></p>
<form method="post" action="/device/confirm">
{csrf_field()}
<input type="hidden" name="user_code" value="{html.escape(credential["user_code"])}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>""",
        )

    @app.post("/device/confirm")
    @signed_in
    def confirm_submit():
        if not csrf_ok():
            return bad_form()
        credential, error = pending_credential(request.form.get("user_code", ""))
        if credential is None:
            return device_page(request.form.get("user_code", ""), error, 400)
        decision = request.form.get("decision")
        if decision not in ("approve", "deny"):
            return page("Approve this device?", '<p class="error">Choose Approve or Deny.</p>', 400)
        approved = decision == "approve"
        credential.decision = (store().users[session["user"]], approved)
        if approved:
            return page("Device approved", '<p data-result="approved">You can return to your device.</p>')
        return page("Access denied", '<p data-result="denied">The device was not given access.</p>')

    def credential_or_404():
        credential = store().credential_for_user_code(request.args.get("user_code", ""))
        if credential is None:
            return None, (jsonify(error="unknown user_code"), 404)
        return credential, None

    @app.get("/_test/polls")
    def test_polls():
        credential, failure = credential_or_404()
        if failure:
            return failure
        return jsonify(
            user_code=credential["user_code"],
            device_code=credential["device_code"],
            interval=credential.interval,
            polls=credential.polls,
        )

    @app.post("/_test/slow_down")
    def test_slow_down():
        credential, failure = credential_or_404()
        if failure:
            return failure
        credential.force_slow_down = True
        return jsonify(user_code=credential["user_code"], force_slow_down=True)

    @app.post("/_test/rotate_key")
    def test_rotate_key():
        key = RSAKey.generate_key(2048, parameters={"use": "sig", "alg": "RS256"}, auto_kid=True)
        current_app.config["SIGNING_KEY"] = key
        return jsonify(kid=key.kid)

    return app


def positive(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(description="RFC 8628 test authorization server (Authlib, Flask) on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=0, help="TCP port; 0 picks a free one (default 0)")
    parser.add_argument("--interval", type=int, default=5, help="polling interval in seconds (default 5)")
    parser.add_argument("--expires-in", type=positive, default=1800, help="device code lifetime in seconds")
    parser.add_argument("--token-expires-in", type=positive, default=3600, help="access token lifetime in seconds")
    parser.add_argument("--code-grant", action="store_true", help="also serve the authorization code grant (PKCE)")
    parser.add_argument("--block-device", action="store_true", help="refuse device authorizations (AADSTS53003)")
    parser.add_argument("--no-device", action="store_true", help="no device endpoint: the code grant only")
    parser.add_argument("--scopes", help="the scopes listed and granted, space-separated (default: "
                        + " ".join(SCOPES_SUPPORTED) + ")")
    args = parser.parse_args(argv)
    if args.interval < 0:
        parser.error("--interval must not be negative")

    scopes = args.scopes.split() if args.scopes is not None else None
    app = create_app(args.interval, args.expires_in, args.token_expires_in, scopes, args.code_grant, args.block_device,
                     args.no_device)
    httpd = make_server("127.0.0.1", args.port, app, threaded=True)
    base_url = f"http://127.0.0.1:{httpd.server_port}"
    app.config["ISSUER"] = base_url
    print(f"LISTENING {base_url}", flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()


if __name__ == "__main__":
    main()
