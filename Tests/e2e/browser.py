#!/usr/bin/env python3
"""A scripted browser for `login --flow browser`: $BROWSER runs it with the authorization link.

It opens the link, signs in as alice on the server's /login page, presses Approve (or Deny) on /oauth/authorize,
and follows the server's redirect to the loopback listener of `device-login`, as a person's browser would. Every
form is read from the page (approve.py's helpers), so a change in the pages fails clearly.

    BROWSER="python3 Tests/e2e/browser.py" device-login login --flow browser ...
    from browser import authorize; location = authorize(link, follow=False)   # the redirect, not followed
"""

import sys
from urllib.parse import urlsplit

import requests

from approve import USERNAME, PASSWORD, ApprovalError, only_form, read_page, submit


def authorize(link, approve=True, follow=True, timeout=10):
    """Signs in and answers the consent page of `link`. With `follow`, the redirect to the client is followed and
    the client's answer returned; without, the redirect's Location is returned."""
    with requests.Session() as session:
        response = session.get(link, timeout=timeout)
        if urlsplit(response.url).path == "/login":
            form = only_form(response, "sign-in page", having="password")
            response = submit(session, response, form, {"username": USERNAME, "password": PASSWORD}, timeout)
        if not response.ok or urlsplit(response.url).path != "/oauth/authorize":
            errors = "; ".join(read_page(response).errors) or f"HTTP {response.status_code} at {response.url}"
            raise ApprovalError(f"no consent page: {errors}")
        form = only_form(response, "consent page", having="csrf_token")
        name, value = form.button("approve" if approve else "deny")
        data = dict(form.fields)
        data[name] = value
        answer = session.post(response.url, data=data, timeout=timeout, allow_redirects=False)
        location = answer.headers.get("Location")
        if answer.status_code != 302 or not location:
            raise ApprovalError(f"the consent page answered HTTP {answer.status_code} without a redirect")
        if not follow:
            return location
        return session.get(location, timeout=timeout)


def main(argv):
    try:
        response = authorize(argv[1])
    except (ApprovalError, requests.RequestException) as error:
        print(f"browser.py: {error}", file=sys.stderr)
        return 1
    return 0 if response.ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
