#!/usr/bin/env python3
"""Approve or deny a device's user code through the authorization server's web pages, as a person would.

It signs in on /login, opens /device, types the user code, and presses Approve or Deny on the confirm page. Every
form is read from the HTML the server sends (action, method, hidden fields such as the CSRF token, the buttons), so
a change in the pages shows up here as a clear failure rather than as a silently skipped step.

    from approve import approve, deny
    approve("http://127.0.0.1:8628", "BCDF-GHJK")

or from a shell:  python3 Tests/e2e/approve.py http://127.0.0.1:8628 BCDF-GHJK [--deny]
"""

import argparse
import sys
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import requests

USERNAME = "alice"
PASSWORD = "wonderland"


class ApprovalError(Exception):
    """A step of the web flow did not go as a person would expect; the message says which and why."""


class Form:
    def __init__(self, action, method):
        self.action = action
        self.method = method
        self.fields = {}  # name -> value of every input that is sent as it is (hidden, text, password)
        self.buttons = []  # (name, value, label) of each submit button

    def button(self, value):
        for name, button_value, label in self.buttons:
            if button_value == value:
                return name, button_value
        labels = [label for _, _, label in self.buttons]
        raise ApprovalError(f"the form at {self.action} has no {value!r} button (buttons: {labels})")


class PageParser(HTMLParser):
    """Collects the forms of a page, its error messages and its result marker."""

    def __init__(self):
        super().__init__()
        self.forms = []
        self.errors = []
        self.result = None
        self._form = None
        self._button = None  # [name, value, label] while inside <button>
        self._error_depth = 0

    def handle_starttag(self, tag, attrs):
        attributes = {name: value or "" for name, value in attrs}
        if "data-result" in attributes:
            self.result = attributes["data-result"]
        if tag == "p" and "error" in attributes.get("class", "").split():
            self._error_depth = 1
            self.errors.append("")
        elif tag == "form":
            self._form = Form(attributes.get("action", ""), attributes.get("method", "get").lower())
            self.forms.append(self._form)
        elif tag == "input" and self._form is not None and attributes.get("name"):
            kind = attributes.get("type", "text").lower()
            if kind == "submit":
                self._form.buttons.append((attributes["name"], attributes.get("value", ""), attributes.get("value")))
            elif kind not in ("checkbox", "radio", "file", "button", "reset", "image"):
                self._form.fields[attributes["name"]] = attributes.get("value", "")
        elif tag == "button" and self._form is not None:
            if attributes.get("type", "submit").lower() == "submit":
                self._button = [attributes.get("name", ""), attributes.get("value", ""), ""]

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None
        elif tag == "button" and self._button is not None:
            name, value, label = self._button
            self._form.buttons.append((name, value, label.strip()))
            self._button = None
        elif tag == "p" and self._error_depth:
            self._error_depth = 0

    def handle_data(self, data):
        if self._button is not None:
            self._button[2] += data
        if self._error_depth:
            self.errors[-1] += data


def read_page(response):
    parser = PageParser()
    parser.feed(response.text)
    parser.close()
    return parser


def only_form(response, step, having=None):
    """The one form of the page that has the field `having` (or the only form), else a clear error."""
    page = read_page(response)
    forms = [form for form in page.forms if having is None or having in form.fields]
    if len(forms) != 1:
        detail = "; ".join(page.errors) or f"HTTP {response.status_code} at {response.url}"
        raise ApprovalError(f"{step}: expected one form{f' with {having!r}' if having else ''}, found "
                            f"{len(forms)} ({detail})")
    return forms[0]


def submit(session, response, form, values, timeout):
    data = dict(form.fields)
    data.update(values)
    url = urljoin(response.url, form.action)
    if form.method == "post":
        return session.post(url, data=data, timeout=timeout)
    return session.get(url, params=data, timeout=timeout)


def path_of(response):
    return urlsplit(response.url).path


def decide(base_url, user_code, approve, username=USERNAME, password=PASSWORD, timeout=10):
    """Sign in and answer the device's request for `user_code`; returns "approved" or "denied".

    Raises ApprovalError naming the step that failed (wrong password, unknown or expired code, missing button...).
    """
    base_url = base_url.rstrip("/")
    with requests.Session() as session:
        response = session.get(base_url + "/login", timeout=timeout)
        form = only_form(response, "sign-in page", having="password")
        response = submit(session, response, form, {"username": username, "password": password}, timeout)
        if not response.ok or path_of(response) == "/login":
            errors = "; ".join(read_page(response).errors) or f"HTTP {response.status_code}"
            raise ApprovalError(f"sign-in failed: {errors}")

        response = session.get(base_url + "/device", timeout=timeout)
        form = only_form(response, "device page", having="user_code")
        response = submit(session, response, form, {"user_code": user_code}, timeout)
        if not response.ok or path_of(response) != "/device/confirm":
            errors = "; ".join(read_page(response).errors) or f"HTTP {response.status_code}"
            raise ApprovalError(f"code {user_code!r} was not accepted: {errors}")

        form = only_form(response, "confirm page", having="user_code")
        name, value = form.button("approve" if approve else "deny")
        response = submit(session, response, form, {name: value}, timeout)
        page = read_page(response)
        if not response.ok or page.result is None:
            errors = "; ".join(page.errors) or f"HTTP {response.status_code}"
            raise ApprovalError(f"answering the confirm page failed: {errors}")
        return page.result


def approve(base_url, user_code, **options):
    """Approve `user_code` as alice (or `username`/`password` in options)."""
    result = decide(base_url, user_code, True, **options)
    if result != "approved":
        raise ApprovalError(f"the server answered {result!r} to Approve")
    return result


def deny(base_url, user_code, **options):
    """Deny `user_code` as alice (or `username`/`password` in options)."""
    result = decide(base_url, user_code, False, **options)
    if result != "denied":
        raise ApprovalError(f"the server answered {result!r} to Deny")
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description="Approve or deny a device user code through the web pages.")
    parser.add_argument("base_url", help="the server's base URL, e.g. http://127.0.0.1:8628")
    parser.add_argument("user_code")
    parser.add_argument("--deny", action="store_true", help="press Deny instead of Approve")
    parser.add_argument("--username", default=USERNAME)
    parser.add_argument("--password", default=PASSWORD)
    args = parser.parse_args(argv)
    try:
        result = decide(args.base_url, args.user_code, not args.deny, args.username, args.password)
    except (ApprovalError, requests.RequestException) as error:
        print(f"approve.py: {error}", file=sys.stderr)
        return 1
    print(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
