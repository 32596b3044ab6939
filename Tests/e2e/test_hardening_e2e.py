"""The process hardening refused: a seccomp filter makes prctl(PR_SET_DUMPABLE) fail with EPERM, as a sandbox might,
so device-login cannot keep its memory out of core files. It must say so, skip the fast lane (whose answer has no
room for the warning) and still answer through the full path — never crash, never print a secret on stderr.
"""

import json
import platform
import subprocess

import pytest

from integration_support import cli_environment, sign_in
from test_device_login_e2e import binary_path

# Installs a filter under which prctl(PR_SET_DUMPABLE, ...) fails with EPERM and every other call is allowed, then
# runs its arguments. x86_64 only: the filter checks the architecture and allows everything elsewhere.
REFUSE_DUMPABLE = r"""
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv) {
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_prctl, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_DUMPABLE, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = {sizeof filter / sizeof filter[0], filter};
    if (argc < 2) return 64;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
        perror("refuse-dumpable: seccomp");
        return 70;
    }
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0 || errno != EPERM) {
        fputs("refuse-dumpable: the filter did not refuse PR_SET_DUMPABLE\n", stderr);
        return 70;
    }
    execv(argv[1], argv + 1);
    perror("refuse-dumpable: execv");
    return 127;
}
"""

WARNING = "device-login: warning: could not keep the process's memory out of core files (core file limit 0/0, dumpable yes)"


@pytest.fixture(scope="module")
def refuse_dumpable(tmp_path_factory):
    if platform.machine() != "x86_64":
        pytest.skip("the seccomp filter is written for x86_64")
    folder = tmp_path_factory.mktemp("refuse-dumpable")
    (folder / "refuse-dumpable.c").write_text(REFUSE_DUMPABLE)
    built = subprocess.run(["gcc", "-Wall", "-Wextra", "-Werror", "-o", str(folder / "refuse-dumpable"),
                            str(folder / "refuse-dumpable.c")], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    return folder / "refuse-dumpable"


def test_refused_hardening_warns_and_the_full_path_answers(server, tmp_path, refuse_dumpable):
    home = tmp_path / "home"
    sign_in(server, home, bindings=["https://git.example.test"])
    token = json.loads((home / "default.json").read_text())["tokens"]["access_token"]
    environment = cli_environment(home)

    plain = subprocess.run([str(binary_path()), "token"], capture_output=True, text=True, env=environment,
                           timeout=30)
    assert plain.returncode == 0 and plain.stderr == "", plain.stderr

    refused = subprocess.run([str(refuse_dumpable), str(binary_path()), "token"], capture_output=True, text=True,
                             env=environment, timeout=30)
    assert refused.returncode == 0, refused.stderr
    assert refused.stdout == token + "\n"
    assert refused.stderr == WARNING + "\n"

    git = subprocess.run([str(refuse_dumpable), str(binary_path()), "git-credential", "get"], capture_output=True,
                         text=True, env=environment, input="protocol=https\nhost=git.example.test\n\n", timeout=30)
    assert git.returncode == 0, git.stderr
    assert f"password={token}\n" in git.stdout
    assert git.stderr == WARNING + "\n" and token not in git.stderr
