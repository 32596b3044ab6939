"""Scripts/fuzz.sh as a fresh clone runs it: no .build folder yet. The build itself is not the point (it takes
minutes with the sanitizers), so `swift` is a stand-in that fails, and the test checks the script got as far as
building and reported the build's own failure, not a missing log folder."""

import os
import shutil
import subprocess

from test_device_login_e2e import REPO_ROOT

FUZZ = REPO_ROOT / "Scripts" / "fuzz.sh"


def test_fuzz_script_on_a_fresh_clone_reaches_the_build_and_shows_its_log(tmp_path):
    clone = tmp_path / "clone"
    (clone / "Scripts").mkdir(parents=True)
    shutil.copy(FUZZ, clone / "Scripts" / "fuzz.sh")
    tools = tmp_path / "tools"
    tools.mkdir()
    swift = tools / "swift"
    swift.write_text("#!/bin/sh\necho 'stand-in swift: build failed' >&2\nexit 1\n")
    swift.chmod(0o755)
    result = subprocess.run(
        ["bash", str(clone / "Scripts" / "fuzz.sh"), "1", "jwt"], capture_output=True, text=True, timeout=60,
        env={**os.environ, "PATH": f"{tools}:{os.environ['PATH']}"})
    assert result.returncode == 1
    assert "No such file or directory" not in result.stderr
    assert "stand-in swift: build failed" in result.stderr  # the tail of the build log
    assert "fuzz.sh: building CLibraryLoader failed" in result.stderr
    assert (clone / ".build" / "fuzz" / "build.log").is_file()
