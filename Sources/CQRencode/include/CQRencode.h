#ifndef DEVICELOGIN_CQRENCODE_H
#define DEVICELOGIN_CQRENCODE_H

// libqrencode, loaded at run time on the first QR code: the binary does not link it, so it starts (and `token` and
// the credential helpers answer) on a box without libqrencode, and only the QR code is missing there.
//
// Built against libqrencode's own header where it is installed (Debian: libqrencode-dev), so a type that changes
// fails the build; elsewhere (a macOS SDK without Homebrew's include folder) against the few declarations below,
// which are libqrencode 3 and 4's stable ABI. The Swift side calls only the dl_qrencode_ functions.

#include <stddef.h>

#if __has_include(<qrencode.h>)
#include <qrencode.h>
#else
typedef enum { QR_MODE_NUL = -1, QR_MODE_NUM = 0, QR_MODE_AN, QR_MODE_8, QR_MODE_KANJI } QRencodeMode;
typedef enum { QR_ECLEVEL_L = 0, QR_ECLEVEL_M, QR_ECLEVEL_Q, QR_ECLEVEL_H } QRecLevel;
typedef struct {
    int version;
    int width;
    unsigned char *data;
} QRcode;
#endif

/// Loads libqrencode from `name` (dlopen, then dlsym of the two functions below).
///
/// Thread-safe; the first library that loads stays for the life of the process (see dl_library_load). Returns 1 on
/// success; 0 on failure, with the dynamic loader's message in `error`, NUL-terminated and truncated to
/// `error_size` bytes.
int dl_qrencode_load(const char *name, char *error, size_t error_size);

/// Whether dl_qrencode_load has succeeded.
int dl_qrencode_is_loaded(void);

/// QRcode_encodeString; NULL with errno ENOSYS while no library is loaded.
QRcode *dl_qrencode_encode_string(const char *string, int version, QRecLevel level, QRencodeMode hint,
                                  int case_sensitive);

/// QRcode_free; does nothing while no library is loaded (nothing can have been encoded then).
void dl_qrencode_free(QRcode *code);

#endif
