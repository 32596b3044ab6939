#!/usr/bin/env python3
"""Runs a command in a new session keyring of its own, which every process it starts shares.

Scripts/check-budgets.sh and Scripts/benchmark.sh keep their keyring rows' keys in the session keyring
(DEVICE_LOGIN_KEYRING=session), so that no key is left in the user's persistent keyring. A process that has no
session keyring (a CI job, a service) gets a new one of its own from the kernel at its first key, which goes when it
exits: the key `store --to keyring` wrote would be gone before `token` looks. So they run under this, which joins a
new anonymous session keyring (KEYCTL_JOIN_SESSION_KEYRING) and then executes the command. Where the kernel refuses
keyctl (a seccomp profile), it says so and runs the command as it is: the keyring rows then report why they fail.

    python3 Scripts/session-keyring.py COMMAND [ARGUMENT...]
"""
import ctypes
import os
import platform
import sys

# keyctl(2)'s system call number, by architecture.
KEYCTL = {"x86_64": 250, "aarch64": 219, "i686": 288, "armv7l": 311}.get(platform.machine())
KEYCTL_JOIN_SESSION_KEYRING = 1

if len(sys.argv) < 2:
    sys.exit(__doc__.strip().splitlines()[-1].strip())
if KEYCTL is None:
    print(f"session-keyring.py: no keyctl system call number known for {platform.machine()}", file=sys.stderr)
else:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(ctypes.c_long(KEYCTL), ctypes.c_long(KEYCTL_JOIN_SESSION_KEYRING), ctypes.c_void_p(None)) < 0:
        print(f"session-keyring.py: keyctl: {os.strerror(ctypes.get_errno())}", file=sys.stderr)
os.execvp(sys.argv[1], sys.argv[1:])
