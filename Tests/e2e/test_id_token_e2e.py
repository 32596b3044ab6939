"""Verified ID tokens against a real OpenID provider: the Authlib server signs RS256 ID tokens and serves its key at
/jwks.json. `status` shows an identity only when the ID token's signature verifies with that key and its claims
fit; `status --json` says so in `id_token_verified`.
"""

import base64
import json

from integration_support import run_cli, sign_in


def status_json(home):
    result = run_cli(home, "status", "--json")
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    document = json.loads(result.stdout)
    assert document["v"] == 1
    # status --json v1: the profile shown is an entry of the list of every saved profile.
    return next(entry for entry in document["profiles"] if entry["name"] == document["profile"])


def profile_file(home):
    return home / "default.json"


def read_profile(home):
    return json.loads(profile_file(home).read_text())


def write_profile(home, record):
    path = profile_file(home)
    path.write_text(json.dumps(record))
    path.chmod(0o600)


def unpadded(text):
    return text + "=" * (-len(text) % 4)


def forge_email(id_token, email):
    """The ID token with its payload's email changed and its signature kept: what a file edited by hand holds."""
    header, payload, signature = id_token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(unpadded(payload)))
    claims["email"] = email
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    return ".".join([header, forged, signature])


def test_signing_in_with_openid_verifies_the_id_token(server, tmp_path):
    home = tmp_path / "home"
    run = sign_in(server, home, scopes="openid")
    assert " as " in run.stdout, run.stdout  # login names the user only from a verified ID token

    status = status_json(home)
    assert status["id_token_verified"] is True, status
    assert "id_token_problem" not in status
    assert status["user"]["sub"] == "alice"
    kid = server.jwks()["keys"][0]["kid"]
    verdict = read_profile(home)["tokens"]["id_token_verification"]
    assert verdict["outcome"] == "verified" and verdict["alg"] == "RS256" and verdict["kid"] == kid

    text = run_cli(home, "status").stdout.decode()
    assert text.startswith("Signed in as "), text
    assert f"  ID token:       verified (RS256, key {kid})\n" in text


def test_an_id_token_tampered_with_on_disk_is_not_verified(server, tmp_path):
    home = tmp_path / "home"
    sign_in(server, home, scopes="openid")
    record = read_profile(home)
    record["tokens"]["id_token"] = forge_email(record["tokens"]["id_token"], "mallory@example.test")
    write_profile(home, record)

    status = status_json(home)
    assert status["id_token_verified"] is False, status
    assert "signature does not verify" in status["id_token_problem"]
    assert "user" not in status
    text = run_cli(home, "status").stdout.decode()
    assert text.startswith("Signed in.\n"), text
    assert "mallory" not in text


def test_after_the_server_rotates_its_key(server, tmp_path):
    """A new key: the stored verdict still stands; an ID token judged afresh under the old key is refused (its kid
    is no longer in the key set, even fetched again); a refresh brings one under the new key, which verifies."""
    home = tmp_path / "home"
    sign_in(server, home, scopes="openid offline_access")
    new_kid = server.rotate_key()
    assert status_json(home)["id_token_verified"] is True  # judged at sign-in, kept

    record = read_profile(home)
    del record["tokens"]["id_token_verification"]
    write_profile(home, record)
    stale = status_json(home)
    assert stale["id_token_verified"] is False, stale
    assert "has no key" in stale["id_token_problem"] and "even fetched again" in stale["id_token_problem"]

    refresh = run_cli(home, "token", "--min-ttl", "7200")
    assert refresh.returncode == 0, refresh.stderr.decode(errors="replace")
    fresh = status_json(home)
    assert fresh["id_token_verified"] is True, fresh
    assert read_profile(home)["tokens"]["id_token_verification"]["kid"] == new_kid
