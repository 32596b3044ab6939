#include "CQRencode.h"

#include <CLibraryLoader.h>
#include <errno.h>

// The libqrencode functions the wrappers call, in the order of `symbols`.
struct dl_qrencode_functions {
    QRcode *(*encode_string)(const char *string, int version, QRecLevel level, QRencodeMode hint,
                             int case_sensitive);
    void (*free)(QRcode *code);
};

#if __has_include(<qrencode.h>)
// Built against libqrencode's header: each field must have the type of the function it holds.
_Static_assert(__builtin_types_compatible_p(__typeof__(&QRcode_encodeString),
                                            __typeof__(((struct dl_qrencode_functions *)0)->encode_string)),
               "QRcode_encodeString's type");
_Static_assert(__builtin_types_compatible_p(__typeof__(&QRcode_free),
                                            __typeof__(((struct dl_qrencode_functions *)0)->free)),
               "QRcode_free's type");
#endif

static const char *const symbols[] = {"QRcode_encodeString", "QRcode_free"};
_Static_assert(sizeof(struct dl_qrencode_functions) == sizeof symbols / sizeof symbols[0] * sizeof(void *),
               "one function pointer per symbol");

// Written once by dl_library_load, before `library.loaded` is set (release); read only after it is seen (acquire).
static struct dl_qrencode_functions qrencode;
static struct dl_library library = DL_LIBRARY_INIT;

int dl_qrencode_load(const char *name, char *error, size_t error_size) {
    return dl_library_load(&library, name, symbols, sizeof symbols / sizeof symbols[0], &qrencode, sizeof qrencode,
                           error, error_size);
}

int dl_qrencode_is_loaded(void) {
    return dl_library_is_loaded(&library);
}

QRcode *dl_qrencode_encode_string(const char *string, int version, QRecLevel level, QRencodeMode hint,
                                  int case_sensitive) {
    if (!dl_qrencode_is_loaded()) {
        errno = ENOSYS;
        return NULL;
    }
    return qrencode.encode_string(string, version, level, hint, case_sensitive);
}

void dl_qrencode_free(QRcode *code) {
    if (dl_qrencode_is_loaded() && code != NULL) {
        qrencode.free(code);
    }
}
