#!/usr/bin/env bash
# Builds the PAM module pam_device_login.so from Sources/PAMModule/ with gcc (Debian: gcc, libpam0g-dev), every
# warning an error. Usage: Scripts/build-pam.sh [OUTPUT_DIR] (default .build/pam); prints the module's path.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-.build/pam}"
mkdir -p "$out"
${CC:-gcc} -std=c11 -O2 -fPIC -shared -Wall -Wextra -Werror -Wformat=2 -Wshadow -fvisibility=default \
    -D_FORTIFY_SOURCE=2 -fstack-protector-strong -Wl,-z,relro,-z,now \
    -o "$out/pam_device_login.so" Sources/PAMModule/pam_device_login.c -lpam
echo "$out/pam_device_login.so"
