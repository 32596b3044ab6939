"""Scripts/install.sh and Scripts/package.sh, run as a user runs them: into a temporary prefix, with the built binary
(`--bin`, so the test does not spend minutes on a release build), then the installed files used by their real
consumers — the binary and its Docker link run, `man -l` renders the page, bash's completion function completes —
and `--uninstall` removes exactly what was installed."""

import hashlib
import os
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from test_device_login_e2e import REPO_ROOT, binary_path

INSTALL = REPO_ROOT / "Scripts" / "install.sh"
PACKAGE = REPO_ROOT / "Scripts" / "package.sh"

INSTALLED = [
    "bin/device-login",
    "bin/docker-credential-device-login",
    "share/man/man1/device-login.1",
    "share/bash-completion/completions/device-login",
    "share/zsh/site-functions/_device-login",
    "share/fish/vendor_completions.d/device-login.fish",
    "share/device-login/installed",
]


def run(arguments, **kwargs):
    return subprocess.run(arguments, capture_output=True, text=True, timeout=120, **kwargs)


def files_below(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() or p.is_symlink())


def folders_below(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_dir() and not p.is_symlink())


def install(prefix, *extra, script=INSTALL):
    result = run(["bash", str(script), "--prefix", str(prefix), *extra])
    assert result.returncode == 0, result.stderr
    return result


def test_install_puts_every_file_in_place_and_they_work(tmp_path):
    prefix = tmp_path / "prefix"
    # Something of the user's in the prefix already: the install adds beside it and the uninstall leaves it.
    (prefix / "bin").mkdir(parents=True)
    (prefix / "bin" / "mine").write_text("#!/bin/sh\n")
    result = install(prefix, "--bin", str(binary_path()))

    assert files_below(prefix) == sorted(INSTALLED + ["bin/mine"])
    # It says what it put where.
    for relative in INSTALLED:
        assert str(prefix / relative) in result.stdout, relative

    program = prefix / "bin" / "device-login"
    assert os.access(program, os.X_OK)
    assert run([str(program), "--version"]).stdout.startswith("device-login ")
    link = prefix / "bin" / "docker-credential-device-login"
    assert link.is_symlink() and os.readlink(link) == "device-login"
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    # Docker's helper protocol through the link: no profile is bound to anything, so `list` answers {}.
    listed = run([str(link), "list"], env={**os.environ, "DEVICE_LOGIN_HOME": str(home)})
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.strip() == "{}"

    # The man page renders with man itself, without warnings.
    if shutil.which("man"):
        page = run(["man", "-l", str(prefix / "share/man/man1/device-login.1")],
                   env={**os.environ, "MANPAGER": "cat", "MANWIDTH": "80"})
        assert page.returncode == 0, page.stderr
        text = re.sub(".\b", "", page.stdout)  # without the overstrikes a pager would show as bold
        assert "SYNOPSIS" in text and "device-login completion" in text
        assert page.stderr == ""
    elif os.environ.get("CI"):
        pytest.fail("man is not installed (apt-get install man-db); CI must check the installed page")

    # bash's completion function, from the installed file, completes the command's names.
    script = (f"source {prefix}/share/bash-completion/completions/device-login; "
              "COMP_WORDS=(device-login lo); COMP_CWORD=1; COMP_LINE='device-login lo'; COMP_POINT=15; "
              "fn=$(complete -p device-login | sed -E 's/.* -F ([^ ]+) .*/\\1/'); $fn device-login lo device-login; "
              "printf '%s\\n' \"${COMPREPLY[@]}\"")
    completed = run(["bash", "--norc", "--noprofile", "-c", script])
    assert completed.returncode == 0, completed.stderr
    assert set(completed.stdout.split()) >= {"login", "logout"}

    # Uninstall: exactly what was installed goes, and the folders it made; the user's file and folder stay.
    removed = run(["bash", str(INSTALL), "--prefix", str(prefix), "--uninstall"])
    assert removed.returncode == 0, removed.stderr
    assert files_below(prefix) == ["bin/mine"]
    assert folders_below(prefix) == ["bin"]
    for relative in INSTALLED[:-1]:
        assert f"removed {prefix}/{relative}" in removed.stdout
    again = run(["bash", str(INSTALL), "--prefix", str(prefix), "--uninstall"])
    assert again.returncode != 0 and "nothing to uninstall" in again.stderr


def test_uninstall_removes_every_folder_the_install_created_and_only_those(tmp_path):
    # A prefix that does not exist yet: the install makes it and every folder below it, the uninstall all of them.
    fresh = tmp_path / "fresh"
    install(fresh, "--bin", str(binary_path()))
    listed = (fresh / "share" / "device-login" / "installed").read_text().splitlines()
    assert "./" in listed and "share/man/man1/" in listed
    removed = run(["bash", str(INSTALL), "--prefix", str(fresh), "--uninstall"])
    assert removed.returncode == 0, removed.stderr
    assert not fresh.exists(), folders_below(fresh)

    # A prefix with folders of its own: they stay, empty or not, and so does a folder the user filled meanwhile.
    prefix = tmp_path / "prefix"
    (prefix / "share" / "man").mkdir(parents=True)
    (prefix / "bin").mkdir()
    install(prefix, "--bin", str(binary_path()))
    (prefix / "share" / "zsh" / "site-functions" / "_mine").write_text("#compdef mine\n")
    install(prefix, "--bin", str(binary_path()))  # again, over itself: the first install's folders stay listed
    removed = run(["bash", str(INSTALL), "--prefix", str(prefix), "--uninstall"])
    assert removed.returncode == 0, removed.stderr
    assert files_below(prefix) == ["share/zsh/site-functions/_mine"]
    assert folders_below(prefix) == ["bin", "share", "share/man", "share/zsh", "share/zsh/site-functions"]


def test_a_listed_folder_outside_the_prefix_or_a_standard_one_is_never_removed(tmp_path):
    prefix = tmp_path / "prefix"
    (prefix / "share" / "device-login").mkdir(parents=True)
    (prefix / "share" / "device-login" / "installed").write_text("../\n")
    result = run(["bash", str(INSTALL), "--prefix", str(prefix), "--uninstall"])
    assert result.returncode != 0 and "refusing a strange entry" in result.stderr
    assert (prefix / "share").is_dir()
    # A prefix in the home folder: ~/.local/bin is the user's even when the install made it and left it empty.
    home = tmp_path / "home"
    local = home / ".local"
    (local / "share" / "device-login").mkdir(parents=True)
    (local / "bin").mkdir()
    (local / "share" / "device-login" / "installed").write_text("bin/\nshare/device-login/\nshare/\n./\n")
    result = run(["bash", str(INSTALL), "--prefix", str(local), "--uninstall"], env={**os.environ, "HOME": str(home)})
    assert result.returncode == 0, result.stderr
    assert (local / "bin").is_dir() and (local / "share").is_dir() and local.is_dir()


def test_install_says_when_bash_completion_needs_its_package(tmp_path):
    missing = run(["bash", str(INSTALL), "--prefix", str(tmp_path / "a"), "--bin", str(binary_path())],
                  env={**os.environ, "DEVICE_LOGIN_BASH_COMPLETION": str(tmp_path / "no-such-loader")})
    assert missing.returncode == 0, missing.stderr
    assert "only with the bash-completion package" in missing.stdout
    assert "apt-get install bash-completion" in missing.stdout
    loader = tmp_path / "bash_completion"
    loader.write_text("# the package's loader\n")
    present = run(["bash", str(INSTALL), "--prefix", str(tmp_path / "b"), "--bin", str(binary_path())],
                  env={**os.environ, "DEVICE_LOGIN_BASH_COMPLETION": str(loader)})
    assert present.returncode == 0, present.stderr
    assert "bash-completion package" not in present.stdout


def test_install_refuses_what_would_not_run_and_leaves_the_prefix_alone(tmp_path):
    prefix = tmp_path / "prefix"
    not_a_program = tmp_path / "device-login"
    not_a_program.write_text("not a program\n")
    not_a_program.chmod(0o755)
    result = run(["bash", str(INSTALL), "--prefix", str(prefix), "--bin", str(not_a_program)])
    assert result.returncode != 0
    assert "does not run here" in result.stderr
    assert not prefix.exists() or files_below(prefix) == []
    unknown = run(["bash", str(INSTALL), "--frobnicate"])
    assert unknown.returncode == 64 and "unknown option --frobnicate" in unknown.stderr


def test_a_tampered_list_of_installed_files_removes_nothing_outside_the_prefix(tmp_path):
    prefix = tmp_path / "prefix"
    outside = tmp_path / "precious"
    outside.write_text("keep me\n")
    (prefix / "share" / "device-login").mkdir(parents=True)
    (prefix / "share" / "device-login" / "installed").write_text("../precious\n")
    result = run(["bash", str(INSTALL), "--prefix", str(prefix), "--uninstall"])
    assert result.returncode != 0 and "refusing a strange entry" in result.stderr
    assert outside.read_text() == "keep me\n"


def test_package_makes_an_archive_whose_checksum_verifies_and_whose_install_script_works(tmp_path):
    output = tmp_path / "out"
    result = run(["bash", str(PACKAGE), "--output", str(output), "--bin", str(binary_path())], cwd=REPO_ROOT)
    assert result.returncode == 0, result.stderr
    version = run([str(binary_path()), "--version"]).stdout.split()[-1]
    name = f"device-login-{version}-linux-{os.uname().machine}"
    archive = output / f"{name}.tar.gz"
    checksum = output / f"{name}.tar.gz.sha256"
    assert result.stdout.split() == [str(archive), str(checksum)]

    # The .sha256 file is what `sha256sum -c` reads, and it verifies.
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    assert checksum.read_text() == f"{digest}  {name}.tar.gz\n"
    assert run(["sha256sum", "-c", checksum.name], cwd=output).returncode == 0

    with tarfile.open(archive) as tar:
        names = sorted(tar.getnames())
        assert names == [name, f"{name}/README", f"{name}/device-login", f"{name}/install.sh"]
        assert all(member.uid == 0 and member.gid == 0 for member in tar.getmembers())
        tar.extractall(tmp_path / "unpacked", filter="data")

    # The packaged install.sh takes the binary beside it, without --bin.
    prefix = tmp_path / "prefix"
    install(prefix, script=tmp_path / "unpacked" / name / "install.sh")
    assert (prefix / "bin" / "device-login").read_bytes() == binary_path().read_bytes()
    assert files_below(prefix) == sorted(INSTALLED)


def system_pam_folder():
    """Where Debian keeps PAM modules: /lib/TRIPLET/security, as install.sh finds it."""
    triplet = run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"]).stdout.strip() if shutil.which(
        "dpkg-architecture") else run(["gcc", "-print-multiarch"]).stdout.strip()
    folder = f"/lib/{triplet}/security"
    if not triplet or not Path(folder).is_dir():
        pytest.skip("no multiarch PAM folder on this system")
    return folder


def test_install_pam_without_a_prefix_uses_the_systems_pam_folder_below_destdir(tmp_path):
    """--pam without --prefix: the module goes to the system's multiarch PAM folder (here below DESTDIR, so the real
    one is never touched), its stack line names the helper; --uninstall with the same DESTDIR removes it."""
    folder = system_pam_folder()
    dest, home = tmp_path / "dest", tmp_path / "home"
    home.mkdir()
    environment = dict(os.environ, DESTDIR=str(dest), HOME=str(home))
    result = run(["bash", str(INSTALL), "--bin", str(binary_path()), "--pam"], env=environment)
    assert result.returncode == 0, result.stderr
    prefix = "/usr/local" if os.getuid() == 0 else str(home / ".local")
    module = Path(str(dest) + folder) / "pam_device_login.so"
    assert module.is_file()
    assert Path(str(dest) + prefix + "/bin/device-login").is_file()
    assert not Path(str(dest) + prefix + "/lib/security/pam_device_login.so").exists()
    assert f"auth required pam_device_login.so helper={prefix}/bin/device-login" in result.stdout
    removed = run(["bash", str(INSTALL), "--uninstall"], env=environment)
    assert removed.returncode == 0, removed.stderr
    assert not module.exists() and f"removed {module}" in removed.stdout
    # With --prefix the module stays below it.
    with_prefix = run(["bash", str(INSTALL), "--prefix", str(tmp_path / "p"), "--bin", str(binary_path()), "--pam"])
    assert with_prefix.returncode == 0, with_prefix.stderr
    assert (tmp_path / "p" / "lib" / "security" / "pam_device_login.so").is_file()
