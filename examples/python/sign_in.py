#!/usr/bin/env python3
"""Signs in with libdevicelogin through ctypes, as a Python provisioning tool would, then prints a fresh access token.

    python3 sign_in.py ISSUER CLIENT_ID

The library is found as libdevicelogin.so.1 on the loader's path, or at $DEVICELOGIN_LIBRARY. The tokens are saved where
`device-login` keeps them ($DEVICE_LOGIN_HOME, else ~/.local/state/device-login): `device-login token` prints the same
token afterwards. Exits with the library's status (the CLI's exit codes).
"""

import ctypes
import json
import os
import sys

library = ctypes.CDLL(os.environ.get("DEVICELOGIN_LIBRARY", "libdevicelogin.so.1"))

# Every string the library hands out is a char * the caller frees with dl_string_free: declared as c_void_p so that
# ctypes keeps the pointer instead of copying it into a bytes object and losing it.
EVENT_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t)
STRING_OUT = ctypes.POINTER(ctypes.c_void_p)
library.dl_version.restype = ctypes.c_char_p
library.dl_status_name.restype = ctypes.c_char_p
library.dl_status_name.argtypes = [ctypes.c_int]
library.dl_client_new.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p), STRING_OUT]
library.dl_client_free.argtypes = [ctypes.c_void_p]
library.dl_sign_in.argtypes = [ctypes.c_void_p, EVENT_CALLBACK, ctypes.c_void_p, STRING_OUT]
library.dl_token.argtypes = [ctypes.c_void_p, ctypes.c_uint32, STRING_OUT, STRING_OUT]
library.dl_string_free.argtypes = [ctypes.c_void_p]
library.dl_string_free.restype = None


class DeviceLoginError(Exception):
    def __init__(self, status, message):
        super().__init__(f"{message} ({library.dl_status_name(status).decode()})")
        self.status = status


def take(pointer):
    """The text of a string the library handed out, which is then freed (and wiped) by the library."""
    if not pointer.value:
        return None
    try:
        return ctypes.string_at(pointer.value).decode()
    finally:
        library.dl_string_free(pointer)


def check(status, error):
    message = take(error)
    if status != 0:
        raise DeviceLoginError(status, message or "failed")


def sign_in(issuer, client_id, on_event):
    """Signs in, calling on_event(dict) for each event line; returns a fresh access token."""
    settings = json.dumps({"v": 1, "issuer": issuer, "client_id": client_id}).encode()
    client = ctypes.c_void_p()
    error = ctypes.c_void_p()
    check(library.dl_client_new(settings, len(settings), ctypes.byref(client), ctypes.byref(error)), error)
    try:
        def callback(context, line, length):
            try:
                on_event(json.loads(ctypes.string_at(line, length)))
                return 0
            except Exception as problem:  # an exception must not cross the C boundary: stop the sign-in instead
                print(f"sign_in.py: {problem}", file=sys.stderr)
                return 1

        keep = EVENT_CALLBACK(callback)  # referenced until dl_sign_in returns
        check(library.dl_sign_in(client, keep, None, ctypes.byref(error)), error)
        token = ctypes.c_void_p()
        check(library.dl_token(client, 0, ctypes.byref(token), ctypes.byref(error)), error)
        return take(token)
    finally:
        library.dl_client_free(client)


def show(event):
    if event["event"] == "authorization":
        print(f"To sign in, open {event['verification_uri']} and enter the code {event['user_code']}",
              file=sys.stderr, flush=True)
    elif event["event"] == "succeeded":
        print("Signed in.", file=sys.stderr)


def main():
    if len(sys.argv) != 3:
        print(f"usage: {sys.argv[0]} ISSUER CLIENT_ID", file=sys.stderr)
        return 64
    try:
        print(sign_in(sys.argv[1], sys.argv[2], show))
    except DeviceLoginError as error:
        print(f"sign_in.py: {error}", file=sys.stderr)
        return error.status
    return 0


if __name__ == "__main__":
    sys.exit(main())
