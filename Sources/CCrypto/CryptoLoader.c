// Only OpenSSL 3's own API: every deprecated declaration (RSA_*, EC_KEY_*, ECDSA_sign...) is hidden, so using one
// fails the build.
#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED

#include "CCrypto.h"

#include <CLibraryLoader.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/param_build.h>
#include <openssl/params.h>
#include <openssl/rsa.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Every libcrypto function the wrappers call: the field that holds it, and its symbol.
#define DL_CRYPTO_FUNCTIONS(X)                                \
    X(ctx_new_from_name, EVP_PKEY_CTX_new_from_name)          \
    X(ctx_new_from_pkey, EVP_PKEY_CTX_new_from_pkey)          \
    X(ctx_free, EVP_PKEY_CTX_free)                            \
    X(fromdata_init, EVP_PKEY_fromdata_init)                  \
    X(fromdata, EVP_PKEY_fromdata)                            \
    X(pkey_free, EVP_PKEY_free)                               \
    X(new_raw_public_key_ex, EVP_PKEY_new_raw_public_key_ex)  \
    X(get_raw_public_key, EVP_PKEY_get_raw_public_key)        \
    X(get_bits, EVP_PKEY_get_bits)                            \
    X(get_bn_param, EVP_PKEY_get_bn_param)                    \
    X(public_check, EVP_PKEY_public_check)                    \
    X(pairwise_check, EVP_PKEY_pairwise_check)                \
    X(keygen_init, EVP_PKEY_keygen_init)                      \
    X(generate, EVP_PKEY_generate)                            \
    X(set_rsa_keygen_bits, EVP_PKEY_CTX_set_rsa_keygen_bits)  \
    X(set_group_name, EVP_PKEY_CTX_set_group_name)            \
    X(set_rsa_padding, EVP_PKEY_CTX_set_rsa_padding)          \
    X(set_rsa_pss_saltlen, EVP_PKEY_CTX_set_rsa_pss_saltlen)  \
    X(set_rsa_mgf1_md, EVP_PKEY_CTX_set_rsa_mgf1_md)          \
    X(md_ctx_new, EVP_MD_CTX_new)                             \
    X(md_ctx_free, EVP_MD_CTX_free)                           \
    X(digest_verify_init, EVP_DigestVerifyInit)               \
    X(digest_verify, EVP_DigestVerify)                        \
    X(digest_sign_init, EVP_DigestSignInit)                   \
    X(digest_sign, EVP_DigestSign)                            \
    X(digest, EVP_Digest)                                     \
    X(sha256, EVP_sha256)                                     \
    X(hmac, HMAC)                                             \
    X(sha384, EVP_sha384)                                     \
    X(bld_new, OSSL_PARAM_BLD_new)                            \
    X(bld_free, OSSL_PARAM_BLD_free)                          \
    X(bld_push_bn, OSSL_PARAM_BLD_push_BN)                    \
    X(bld_push_utf8, OSSL_PARAM_BLD_push_utf8_string)         \
    X(bld_push_octets, OSSL_PARAM_BLD_push_octet_string)      \
    X(bld_to_param, OSSL_PARAM_BLD_to_param)                  \
    X(param_free, OSSL_PARAM_free)                            \
    X(bn_bin2bn, BN_bin2bn)                                   \
    X(bn_bn2binpad, BN_bn2binpad)                             \
    X(bn_num_bits, BN_num_bits)                               \
    X(bn_free, BN_free)                                       \
    X(bn_clear_free, BN_clear_free)                           \
    X(sig_new, ECDSA_SIG_new)                                 \
    X(sig_free, ECDSA_SIG_free)                               \
    X(sig_set0, ECDSA_SIG_set0)                               \
    X(sig_get0, ECDSA_SIG_get0)                               \
    X(d2i_sig, d2i_ECDSA_SIG)                                 \
    X(i2d_sig, i2d_ECDSA_SIG)                                 \
    X(err_get_error, ERR_get_error)                           \
    X(err_error_string_n, ERR_error_string_n)                 \
    X(err_clear_error, ERR_clear_error)                       \
    X(cleanse, OPENSSL_cleanse)

// Each field has the type of the libcrypto function it holds, as OpenSSL's headers declare it.
struct dl_crypto_functions {
#define DL_CRYPTO_FIELD(field, symbol) __typeof__(symbol) *field;
    DL_CRYPTO_FUNCTIONS(DL_CRYPTO_FIELD)
#undef DL_CRYPTO_FIELD
};

// The symbols, in the order of the struct's fields.
static const char *const crypto_symbols[] = {
#define DL_CRYPTO_SYMBOL(field, symbol) #symbol,
    DL_CRYPTO_FUNCTIONS(DL_CRYPTO_SYMBOL)
#undef DL_CRYPTO_SYMBOL
};
_Static_assert(sizeof(struct dl_crypto_functions) ==
                   sizeof crypto_symbols / sizeof crypto_symbols[0] * sizeof(void *),
               "one function pointer per symbol");

// Written once by dl_library_load, before `library.loaded` is set (release); read only after it is seen (acquire),
// and never written again.
static struct dl_crypto_functions ssl;
static struct dl_library library = DL_LIBRARY_INIT;

struct dl_crypto_key {
    EVP_PKEY *pkey;
    int type;
    int has_private;
};

static void copy_message(char *error, size_t error_size, const char *message) {
    if (error != NULL && error_size > 0) {
        snprintf(error, error_size, "%s", message != NULL ? message : "unknown error");
    }
}

// Writes `what`, and OpenSSL's first queued reason when there is one, then empties this thread's error queue.
static void fail(char *error, size_t error_size, const char *what) {
    char reason[256] = "";
    unsigned long code = ssl.err_get_error();
    if (code != 0) {
        ssl.err_error_string_n(code, reason, sizeof reason);
    }
    ssl.err_clear_error();
    if (error != NULL && error_size > 0) {
        if (reason[0] != '\0') {
            snprintf(error, error_size, "%s (%s)", what, reason);
        } else {
            snprintf(error, error_size, "%s", what);
        }
    }
}

int dl_crypto_is_loaded(void) {
    return dl_library_is_loaded(&library);
}

int dl_crypto_load(const char *name, char *error, size_t error_size) {
    return dl_library_load(&library, name, crypto_symbols, sizeof crypto_symbols / sizeof crypto_symbols[0], &ssl,
                           sizeof ssl, error, error_size);
}

#define DL_CRYPTO_READY(failure)                                        \
    if (!dl_crypto_is_loaded()) {                                       \
        copy_message(error, error_size, "libcrypto is not loaded");     \
        return failure;                                                 \
    }

// MARK: - Kinds of key and algorithm

// The coordinate size of an EC key type in bytes, or 0 for another type.
static size_t coordinate_size(int key_type) {
    switch (key_type) {
    case DL_CRYPTO_KEY_EC_P256: return 32;
    case DL_CRYPTO_KEY_EC_P384: return 48;
    default: return 0;
    }
}

static const char *group_name(int key_type) {
    return key_type == DL_CRYPTO_KEY_EC_P256 ? "prime256v1" : "secp384r1";
}

// The key type an algorithm needs, or 0 for an unknown algorithm.
static int key_type_for(int algorithm) {
    switch (algorithm) {
    case DL_CRYPTO_RS256:
    case DL_CRYPTO_PS256: return DL_CRYPTO_KEY_RSA;
    case DL_CRYPTO_ES256: return DL_CRYPTO_KEY_EC_P256;
    case DL_CRYPTO_ES384: return DL_CRYPTO_KEY_EC_P384;
    case DL_CRYPTO_EDDSA: return DL_CRYPTO_KEY_ED25519;
    default: return 0;
    }
}

// The digest an algorithm hashes with; NULL for EdDSA, which hashes inside.
static const EVP_MD *digest_for(int algorithm) {
    switch (algorithm) {
    case DL_CRYPTO_ES384: return ssl.sha384();
    case DL_CRYPTO_EDDSA: return NULL;
    default: return ssl.sha256();
    }
}

static dl_crypto_key *wrap(EVP_PKEY *pkey, int type, int has_private, char *error, size_t error_size) {
    dl_crypto_key *key = malloc(sizeof *key);
    if (key == NULL) {
        ssl.pkey_free(pkey);
        copy_message(error, error_size, "out of memory");
        return NULL;
    }
    key->pkey = pkey;
    key->type = type;
    key->has_private = has_private;
    return key;
}

void dl_crypto_key_free(dl_crypto_key *key) {
    if (key == NULL) {
        return;
    }
    if (dl_crypto_is_loaded()) {
        ssl.pkey_free(key->pkey);
    }
    free(key);
}

int dl_crypto_key_type(const dl_crypto_key *key) {
    return key != NULL ? key->type : 0;
}

int dl_crypto_key_is_private(const dl_crypto_key *key) {
    return key != NULL && key->has_private;
}

// MARK: - Building keys from their components

// Makes an EVP_PKEY of `type_name` from `params` (EVP_PKEY_fromdata), with `selection`.
static EVP_PKEY *from_params(const char *type_name, int selection, OSSL_PARAM_BLD *builder, char *error,
                             size_t error_size) {
    OSSL_PARAM *params = ssl.bld_to_param(builder);
    if (params == NULL) {
        fail(error, error_size, "could not build the key's parameters");
        return NULL;
    }
    EVP_PKEY *pkey = NULL;
    EVP_PKEY_CTX *ctx = ssl.ctx_new_from_name(NULL, type_name, NULL);
    if (ctx == NULL || ssl.fromdata_init(ctx) != 1 || ssl.fromdata(ctx, &pkey, selection, params) != 1) {
        fail(error, error_size, "OpenSSL refused the key");
        pkey = NULL;
    }
    ssl.ctx_free(ctx);
    ssl.param_free(params);
    return pkey;
}

// Whether `check` (a public or pairwise check) passes for `pkey`.
static int passes(EVP_PKEY *pkey, int (*check)(EVP_PKEY_CTX *)) {
    EVP_PKEY_CTX *ctx = ssl.ctx_new_from_pkey(NULL, pkey, NULL);
    int result = ctx != NULL && check(ctx) == 1;
    ssl.ctx_free(ctx);
    ssl.err_clear_error();
    return result;
}

dl_crypto_key *dl_crypto_rsa_public(const uint8_t *n, size_t n_length, const uint8_t *e, size_t e_length,
                                    char *error, size_t error_size) {
    DL_CRYPTO_READY(NULL)
    if (n == NULL || e == NULL || n_length == 0 || n_length > DL_CRYPTO_RSA_MAX_BITS / 8 || e_length == 0 ||
        e_length > 8) {
        copy_message(error, error_size, "the RSA modulus or exponent has a length out of range");
        return NULL;
    }
    if ((e[e_length - 1] & 1) == 0 || (e_length == 1 && e[0] < 3)) {
        copy_message(error, error_size, "the RSA exponent is not an odd number of at least 3");
        return NULL;
    }
    BIGNUM *modulus = ssl.bn_bin2bn(n, (int)n_length, NULL);
    BIGNUM *exponent = ssl.bn_bin2bn(e, (int)e_length, NULL);
    OSSL_PARAM_BLD *builder = ssl.bld_new();
    EVP_PKEY *pkey = NULL;
    if (modulus == NULL || exponent == NULL || builder == NULL) {
        fail(error, error_size, "out of memory");
    } else if (ssl.bn_num_bits(modulus) < DL_CRYPTO_RSA_MIN_BITS) {
        copy_message(error, error_size, "the RSA modulus is shorter than 2048 bits");
    } else if (ssl.bld_push_bn(builder, OSSL_PKEY_PARAM_RSA_N, modulus) != 1 ||
               ssl.bld_push_bn(builder, OSSL_PKEY_PARAM_RSA_E, exponent) != 1) {
        fail(error, error_size, "could not build the RSA key's parameters");
    } else {
        pkey = from_params("RSA", EVP_PKEY_PUBLIC_KEY, builder, error, error_size);
    }
    ssl.bld_free(builder);
    ssl.bn_free(modulus);
    ssl.bn_free(exponent);
    return pkey != NULL ? wrap(pkey, DL_CRYPTO_KEY_RSA, 0, error, error_size) : NULL;
}

// Builds an EC key on `key_type` from the point (x, y) and, when `d` is not NULL, the private scalar; refuses a
// point off the curve, or a scalar that does not belong to the point.
static dl_crypto_key *ec_key(int key_type, const uint8_t *d, size_t d_length, const uint8_t *x, size_t x_length,
                             const uint8_t *y, size_t y_length, char *error, size_t error_size) {
    size_t size = coordinate_size(key_type);
    if (size == 0) {
        copy_message(error, error_size, "not an EC key type");
        return NULL;
    }
    if (x == NULL || y == NULL || x_length != size || y_length != size || (d != NULL && d_length != size)) {
        copy_message(error, error_size, "an EC key component is not the curve's coordinate size");
        return NULL;
    }
    uint8_t point[1 + 2 * 48];
    point[0] = 0x04;  // uncompressed: 04 || x || y (SEC 1 §2.3.3)
    memcpy(point + 1, x, size);
    memcpy(point + 1 + size, y, size);
    BIGNUM *scalar = d != NULL ? ssl.bn_bin2bn(d, (int)d_length, NULL) : NULL;
    OSSL_PARAM_BLD *builder = ssl.bld_new();
    EVP_PKEY *pkey = NULL;
    if (builder == NULL || (d != NULL && scalar == NULL)) {
        fail(error, error_size, "out of memory");
    } else if (ssl.bld_push_utf8(builder, OSSL_PKEY_PARAM_GROUP_NAME, group_name(key_type), 0) != 1 ||
               ssl.bld_push_octets(builder, OSSL_PKEY_PARAM_PUB_KEY, point, 1 + 2 * size) != 1 ||
               (scalar != NULL && ssl.bld_push_bn(builder, OSSL_PKEY_PARAM_PRIV_KEY, scalar) != 1)) {
        fail(error, error_size, "could not build the EC key's parameters");
    } else {
        pkey = from_params("EC", d != NULL ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, builder, error, error_size);
    }
    ssl.bld_free(builder);
    ssl.bn_clear_free(scalar);
    if (pkey != NULL && !passes(pkey, d != NULL ? ssl.pairwise_check : ssl.public_check)) {
        copy_message(error, error_size,
                     d != NULL ? "the EC private key does not belong to its public point"
                               : "the EC point is not on the curve");
        ssl.pkey_free(pkey);
        pkey = NULL;
    }
    return pkey != NULL ? wrap(pkey, key_type, d != NULL, error, error_size) : NULL;
}

dl_crypto_key *dl_crypto_ec_public(int key_type, const uint8_t *x, size_t x_length, const uint8_t *y,
                                   size_t y_length, char *error, size_t error_size) {
    DL_CRYPTO_READY(NULL)
    return ec_key(key_type, NULL, 0, x, x_length, y, y_length, error, error_size);
}

dl_crypto_key *dl_crypto_ec_private(int key_type, const uint8_t *d, size_t d_length, const uint8_t *x,
                                    size_t x_length, const uint8_t *y, size_t y_length, char *error,
                                    size_t error_size) {
    DL_CRYPTO_READY(NULL)
    if (d == NULL) {
        copy_message(error, error_size, "no private scalar");
        return NULL;
    }
    return ec_key(key_type, d, d_length, x, x_length, y, y_length, error, error_size);
}

dl_crypto_key *dl_crypto_ed25519_public(const uint8_t *x, size_t x_length, char *error, size_t error_size) {
    DL_CRYPTO_READY(NULL)
    if (x == NULL || x_length != 32) {
        copy_message(error, error_size, "an Ed25519 public key is not 32 bytes");
        return NULL;
    }
    EVP_PKEY *pkey = ssl.new_raw_public_key_ex(NULL, "ED25519", NULL, x, x_length);
    if (pkey == NULL) {
        fail(error, error_size, "OpenSSL refused the Ed25519 key");
        return NULL;
    }
    return wrap(pkey, DL_CRYPTO_KEY_ED25519, 0, error, error_size);
}

dl_crypto_key *dl_crypto_generate(int key_type, int rsa_bits, char *error, size_t error_size) {
    DL_CRYPTO_READY(NULL)
    const char *name;
    switch (key_type) {
    case DL_CRYPTO_KEY_RSA: name = "RSA"; break;
    case DL_CRYPTO_KEY_EC_P256:
    case DL_CRYPTO_KEY_EC_P384: name = "EC"; break;
    case DL_CRYPTO_KEY_ED25519: name = "ED25519"; break;
    default: copy_message(error, error_size, "unknown key type"); return NULL;
    }
    if (key_type == DL_CRYPTO_KEY_RSA && (rsa_bits < DL_CRYPTO_RSA_MIN_BITS || rsa_bits > DL_CRYPTO_RSA_MAX_BITS)) {
        copy_message(error, error_size, "the RSA key size is out of range");
        return NULL;
    }
    EVP_PKEY *pkey = NULL;
    EVP_PKEY_CTX *ctx = ssl.ctx_new_from_name(NULL, name, NULL);
    int ready = ctx != NULL && ssl.keygen_init(ctx) == 1;
    if (ready && key_type == DL_CRYPTO_KEY_RSA) {
        ready = ssl.set_rsa_keygen_bits(ctx, rsa_bits) == 1;
    } else if (ready && coordinate_size(key_type) != 0) {
        ready = ssl.set_group_name(ctx, group_name(key_type)) == 1;
    }
    if (!ready || ssl.generate(ctx, &pkey) != 1) {
        fail(error, error_size, "could not generate a key");
        pkey = NULL;
    }
    ssl.ctx_free(ctx);
    return pkey != NULL ? wrap(pkey, key_type, 1, error, error_size) : NULL;
}

// MARK: - Reading components back

// Writes the BIGNUM parameter `name` of `pkey` into `out`, left-padded to `width` bytes (0: as few as it needs).
static int bn_param(EVP_PKEY *pkey, const char *name, size_t width, uint8_t *out, size_t capacity,
                    size_t *length, char *error, size_t error_size) {
    BIGNUM *value = NULL;
    if (ssl.get_bn_param(pkey, name, &value) != 1 || value == NULL) {
        fail(error, error_size, "could not read a key component");
        return 0;
    }
    size_t needed = width != 0 ? width : (size_t)(ssl.bn_num_bits(value) + 7) / 8;
    int ok = out != NULL && needed <= capacity && ssl.bn_bn2binpad(value, out, (int)needed) == (int)needed;
    ssl.bn_clear_free(value);
    if (!ok) {
        copy_message(error, error_size, "a key component does not fit");
        return 0;
    }
    *length = needed;
    return 1;
}

int dl_crypto_public_components(const dl_crypto_key *key, uint8_t *first, size_t first_capacity,
                                size_t *first_length, uint8_t *second, size_t second_capacity,
                                size_t *second_length, char *error, size_t error_size) {
    DL_CRYPTO_READY(0)
    if (key == NULL || first_length == NULL || second_length == NULL) {
        copy_message(error, error_size, "no key");
        return 0;
    }
    *second_length = 0;
    switch (key->type) {
    case DL_CRYPTO_KEY_RSA:
        return bn_param(key->pkey, OSSL_PKEY_PARAM_RSA_N, 0, first, first_capacity, first_length, error,
                        error_size) &&
               bn_param(key->pkey, OSSL_PKEY_PARAM_RSA_E, 0, second, second_capacity, second_length, error,
                        error_size);
    case DL_CRYPTO_KEY_EC_P256:
    case DL_CRYPTO_KEY_EC_P384: {
        size_t size = coordinate_size(key->type);
        return bn_param(key->pkey, OSSL_PKEY_PARAM_EC_PUB_X, size, first, first_capacity, first_length, error,
                        error_size) &&
               bn_param(key->pkey, OSSL_PKEY_PARAM_EC_PUB_Y, size, second, second_capacity, second_length, error,
                        error_size);
    }
    case DL_CRYPTO_KEY_ED25519: {
        size_t length = first_capacity;
        if (first == NULL || first_capacity < 32 || ssl.get_raw_public_key(key->pkey, first, &length) != 1 ||
            length != 32) {
            fail(error, error_size, "could not read the Ed25519 public key");
            return 0;
        }
        *first_length = length;
        return 1;
    }
    default:
        copy_message(error, error_size, "unknown key type");
        return 0;
    }
}

int dl_crypto_ec_private_scalar(const dl_crypto_key *key, uint8_t *d, size_t capacity, size_t *length,
                                char *error, size_t error_size) {
    DL_CRYPTO_READY(0)
    if (key == NULL || length == NULL || coordinate_size(key->type) == 0 || !key->has_private) {
        copy_message(error, error_size, "not an EC key pair");
        return 0;
    }
    return bn_param(key->pkey, OSSL_PKEY_PARAM_PRIV_KEY, coordinate_size(key->type), d, capacity, length, error,
                    error_size);
}

// MARK: - Signatures

// The largest DER ECDSA-Sig-Value for P-384: SEQUENCE { INTEGER r, INTEGER s }, each up to 49 bytes with its sign
// octet, plus tags and lengths.
enum { DER_SIGNATURE_CAPACITY = 128 };

// Converts a JWS ECDSA signature (r || s, each `half` bytes; RFC 7518 §3.4) to the DER form OpenSSL verifies.
static int raw_to_der(const uint8_t *raw, size_t half, uint8_t *der, size_t *der_length) {
    ECDSA_SIG *sig = ssl.sig_new();
    BIGNUM *r = ssl.bn_bin2bn(raw, (int)half, NULL);
    BIGNUM *s = ssl.bn_bin2bn(raw + half, (int)half, NULL);
    if (sig == NULL || r == NULL || s == NULL || ssl.sig_set0(sig, r, s) != 1) {
        ssl.bn_free(r);
        ssl.bn_free(s);
        ssl.sig_free(sig);
        return 0;
    }
    // sig owns r and s from here.
    int length = ssl.i2d_sig(sig, NULL);
    int ok = length > 0 && length <= DER_SIGNATURE_CAPACITY;
    if (ok) {
        uint8_t *cursor = der;
        ok = ssl.i2d_sig(sig, &cursor) == length;
        *der_length = (size_t)length;
    }
    ssl.sig_free(sig);
    return ok;
}

// Converts OpenSSL's DER ECDSA signature to the JWS form: r || s, each left-padded to `half` bytes.
static int der_to_raw(const uint8_t *der, size_t der_length, size_t half, uint8_t *raw) {
    const unsigned char *cursor = der;
    ECDSA_SIG *sig = ssl.d2i_sig(NULL, &cursor, (long)der_length);
    if (sig == NULL) {
        return 0;
    }
    const BIGNUM *r = NULL;
    const BIGNUM *s = NULL;
    ssl.sig_get0(sig, &r, &s);
    int ok = r != NULL && s != NULL && ssl.bn_bn2binpad(r, raw, (int)half) == (int)half &&
             ssl.bn_bn2binpad(s, raw + half, (int)half) == (int)half;
    ssl.sig_free(sig);
    return ok;
}

// Starts a sign or verify operation of `algorithm` with `key` on `ctx`: the digest, and for PS256 the PSS
// parameters of RFC 7518 §3.5 (MGF1 with SHA-256, a salt as long as the hash).
static int start(EVP_MD_CTX *ctx, const dl_crypto_key *key, int algorithm, int signing) {
    EVP_PKEY_CTX *pctx = NULL;
    const EVP_MD *md = digest_for(algorithm);
    int ok = signing ? ssl.digest_sign_init(ctx, &pctx, md, NULL, key->pkey)
                     : ssl.digest_verify_init(ctx, &pctx, md, NULL, key->pkey);
    if (ok != 1) {
        return 0;
    }
    if (algorithm == DL_CRYPTO_PS256) {
        return ssl.set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
               ssl.set_rsa_mgf1_md(pctx, ssl.sha256()) == 1 && ssl.set_rsa_pss_saltlen(pctx, 32) == 1;
    }
    return 1;
}

static const uint8_t empty[1];

int dl_crypto_verify(const dl_crypto_key *key, int algorithm, const uint8_t *message, size_t message_length,
                     const uint8_t *signature, size_t signature_length, char *error, size_t error_size) {
    DL_CRYPTO_READY(-1)
    if (key == NULL || key_type_for(algorithm) == 0 || key->type != key_type_for(algorithm)) {
        copy_message(error, error_size, "the key does not suit the algorithm");
        return -1;
    }
    if (message == NULL) {
        if (message_length != 0) {
            copy_message(error, error_size, "no message");
            return -1;
        }
        message = empty;
    }
    if (signature == NULL || signature_length == 0 || signature_length > DL_CRYPTO_MAX_SIGNATURE) {
        return 0;
    }
    uint8_t der[DER_SIGNATURE_CAPACITY];
    size_t half = coordinate_size(key->type);
    if (half != 0) {
        // RFC 7518 §3.4: the signature is exactly r || s; anything else does not verify.
        if (signature_length != 2 * half) {
            return 0;
        }
        if (!raw_to_der(signature, half, der, &signature_length)) {
            fail(error, error_size, "could not encode the ECDSA signature");
            return -1;
        }
        signature = der;
    } else if (key->type == DL_CRYPTO_KEY_RSA) {
        int bits = ssl.get_bits(key->pkey);
        if (bits <= 0 || signature_length != (size_t)(bits + 7) / 8) {
            return 0;
        }
    }
    EVP_MD_CTX *ctx = ssl.md_ctx_new();
    if (ctx == NULL || !start(ctx, key, algorithm, 0)) {
        ssl.md_ctx_free(ctx);
        fail(error, error_size, "could not start verifying");
        return -1;
    }
    int result = ssl.digest_verify(ctx, signature, signature_length, message, message_length);
    ssl.md_ctx_free(ctx);
    ssl.err_clear_error();
    return result == 1 ? 1 : 0;
}

int dl_crypto_sign(const dl_crypto_key *key, int algorithm, const uint8_t *message, size_t message_length,
                   uint8_t *signature, size_t capacity, size_t *signature_length, char *error, size_t error_size) {
    DL_CRYPTO_READY(0)
    if (key == NULL || key_type_for(algorithm) == 0 || key->type != key_type_for(algorithm) || !key->has_private) {
        copy_message(error, error_size, "the key is not a private key that suits the algorithm");
        return 0;
    }
    if (signature == NULL || signature_length == NULL) {
        copy_message(error, error_size, "no room for the signature");
        return 0;
    }
    if (message == NULL) {
        if (message_length != 0) {
            copy_message(error, error_size, "no message");
            return 0;
        }
        message = empty;
    }
    uint8_t produced[DL_CRYPTO_MAX_SIGNATURE];
    size_t produced_length = sizeof produced;
    EVP_MD_CTX *ctx = ssl.md_ctx_new();
    int ok = ctx != NULL && start(ctx, key, algorithm, 1) &&
             ssl.digest_sign(ctx, produced, &produced_length, message, message_length) == 1;
    ssl.md_ctx_free(ctx);
    if (!ok) {
        fail(error, error_size, "could not sign");
        return 0;
    }
    size_t half = coordinate_size(key->type);
    if (half != 0) {
        if (capacity < 2 * half || !der_to_raw(produced, produced_length, half, signature)) {
            copy_message(error, error_size, "the ECDSA signature does not fit");
            return 0;
        }
        *signature_length = 2 * half;
        return 1;
    }
    if (produced_length > capacity) {
        copy_message(error, error_size, "the signature does not fit");
        return 0;
    }
    memcpy(signature, produced, produced_length);
    *signature_length = produced_length;
    return 1;
}

int dl_crypto_sha256(const uint8_t *data, size_t length, uint8_t *digest, char *error, size_t error_size) {
    DL_CRYPTO_READY(0)
    if (digest == NULL || (data == NULL && length != 0)) {
        copy_message(error, error_size, "no data or no room for the digest");
        return 0;
    }
    unsigned int digest_length = 0;
    if (ssl.digest(data != NULL ? data : empty, length, digest, &digest_length, ssl.sha256(), NULL) != 1 ||
        digest_length != 32) {
        fail(error, error_size, "could not compute SHA-256");
        return 0;
    }
    return 1;
}

int dl_crypto_hmac_sha256(const uint8_t *key, size_t key_length, const uint8_t *data, size_t length, uint8_t *mac,
                          char *error, size_t error_size) {
    DL_CRYPTO_READY(0)
    if (mac == NULL || (key == NULL && key_length != 0) || (data == NULL && length != 0)) {
        copy_message(error, error_size, "no key, no data or no room for the MAC");
        return 0;
    }
    if (key_length > INT_MAX) {
        copy_message(error, error_size, "the key is too long");
        return 0;
    }
    unsigned int mac_length = 0;
    if (ssl.hmac(ssl.sha256(), key != NULL ? key : empty, (int)key_length, data != NULL ? data : empty, length, mac,
                 &mac_length) == NULL ||
        mac_length != 32) {
        fail(error, error_size, "could not compute HMAC-SHA-256");
        return 0;
    }
    return 1;
}
