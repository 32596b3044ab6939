#ifndef DEVICELOGIN_CCRYPTO_H
#define DEVICELOGIN_CCRYPTO_H

// OpenSSL 3's libcrypto, loaded at run time: the binary does not link it, so a command that verifies and signs
// nothing (`token` with a valid stored token, the credential helpers) never loads it.
//
// This header names no OpenSSL type, so Swift sees only what is below. The loader (CryptoLoader.c) is compiled
// against OpenSSL 3's headers (Debian: libssl-dev) with every deprecated API hidden, and each function pointer it
// holds has the type of the OpenSSL function it stands for (`__typeof__`), so a signature that changes fails the
// build.
//
// Every function but dl_crypto_load expects dl_crypto_load to have succeeded; before that, each fails cleanly
// (NULL, -1 or 0, with "libcrypto is not loaded" in `error`) and never crashes. Every length is checked against
// the capacity given; every OpenSSL object is freed on every path. A function that fails writes why into `error`
// (NUL-terminated, cut to `error_size` bytes; `error` may be NULL), never key material.

#include <stddef.h>
#include <stdint.h>

/// A key: OpenSSL's EVP_PKEY and what kind of key it is. Immutable once made, so one key may be used from many
/// threads at once. Free with dl_crypto_key_free.
typedef struct dl_crypto_key dl_crypto_key;

/// The kinds of key: RSA, the NIST curves P-256 and P-384, Ed25519.
enum {
    DL_CRYPTO_KEY_RSA = 1,
    DL_CRYPTO_KEY_EC_P256 = 2,
    DL_CRYPTO_KEY_EC_P384 = 3,
    DL_CRYPTO_KEY_ED25519 = 4,
};

/// The JWS algorithms (RFC 7518 §3, RFC 8037 §3.1): RS256 (RSASSA-PKCS1-v1_5 with SHA-256), PS256 (RSASSA-PSS with
/// SHA-256, MGF1 with SHA-256, a 32-byte salt), ES256 and ES384 (ECDSA with P-256/SHA-256 and P-384/SHA-384,
/// signatures as the raw 64 or 96 bytes r || s), EdDSA (Ed25519).
enum {
    DL_CRYPTO_RS256 = 1,
    DL_CRYPTO_PS256 = 2,
    DL_CRYPTO_ES256 = 3,
    DL_CRYPTO_ES384 = 4,
    DL_CRYPTO_EDDSA = 5,
};

/// The smallest and largest RSA moduli accepted, in bits.
enum { DL_CRYPTO_RSA_MIN_BITS = 2048, DL_CRYPTO_RSA_MAX_BITS = 8192 };

/// The longest signature any algorithm makes: an RSA signature as long as the largest modulus.
enum { DL_CRYPTO_MAX_SIGNATURE = DL_CRYPTO_RSA_MAX_BITS / 8 };

/// Loads libcrypto from `name` (dlopen with RTLD_LAZY | RTLD_LOCAL, then dlsym of every function the wrappers call).
///
/// Thread-safe. The first library that loads stays in use for the life of the process; a later successful call
/// changes nothing. A failed call changes nothing. Returns 1 on success; 0 on failure, with the dynamic loader's
/// message in `error`.
int dl_crypto_load(const char *name, char *error, size_t error_size);

/// Whether dl_crypto_load has succeeded.
int dl_crypto_is_loaded(void);

/// An RSA public key from its modulus and public exponent, unsigned big-endian (JWK `n`, `e`). The modulus must
/// have DL_CRYPTO_RSA_MIN_BITS to DL_CRYPTO_RSA_MAX_BITS bits; the exponent 1 to 8 bytes, odd, at least 3.
dl_crypto_key *dl_crypto_rsa_public(const uint8_t *n, size_t n_length, const uint8_t *e, size_t e_length,
                                    char *error, size_t error_size);

/// An EC public key on `key_type` (DL_CRYPTO_KEY_EC_P256 or _P384) from its affine coordinates, each exactly the
/// coordinate size (32 or 48 bytes; JWK `x`, `y`). A point that is not on the curve is refused.
dl_crypto_key *dl_crypto_ec_public(int key_type, const uint8_t *x, size_t x_length, const uint8_t *y,
                                   size_t y_length, char *error, size_t error_size);

/// An EC key pair on `key_type` from its private scalar `d` and public coordinates (JWK `d`, `x`, `y`), each exactly
/// the coordinate size. Refused unless `d` and the point belong together.
dl_crypto_key *dl_crypto_ec_private(int key_type, const uint8_t *d, size_t d_length, const uint8_t *x,
                                    size_t x_length, const uint8_t *y, size_t y_length, char *error,
                                    size_t error_size);

/// An Ed25519 public key from its 32 bytes (JWK `x`, RFC 8037 §2).
dl_crypto_key *dl_crypto_ed25519_public(const uint8_t *x, size_t x_length, char *error, size_t error_size);

/// A new key pair of `key_type`; `rsa_bits` is the modulus size for RSA (in the accepted range) and ignored
/// otherwise.
dl_crypto_key *dl_crypto_generate(int key_type, int rsa_bits, char *error, size_t error_size);

/// Frees a key; NULL is allowed.
void dl_crypto_key_free(dl_crypto_key *key);

/// The kind of key (a DL_CRYPTO_KEY_ value), or 0 for NULL.
int dl_crypto_key_type(const dl_crypto_key *key);

/// Whether the key holds a private part (it was generated or made by dl_crypto_ec_private).
int dl_crypto_key_is_private(const dl_crypto_key *key);

/// The public components: RSA `n` into `first` and `e` into `second` (unsigned big-endian, minimal); EC `x` into
/// `first` and `y` into `second` (each the coordinate size); Ed25519's 32 bytes into `first` (`second` unused, its
/// length set to 0). Returns 1, or 0 when a capacity is too small or OpenSSL fails.
int dl_crypto_public_components(const dl_crypto_key *key, uint8_t *first, size_t first_capacity,
                                size_t *first_length, uint8_t *second, size_t second_capacity,
                                size_t *second_length, char *error, size_t error_size);

/// The private scalar `d` of an EC key pair, left-padded to the coordinate size. Returns 1, or 0 for a key without
/// a private part, another kind of key, or too small a capacity. The caller must wipe `d` after use.
int dl_crypto_ec_private_scalar(const dl_crypto_key *key, uint8_t *d, size_t capacity, size_t *length,
                                char *error, size_t error_size);

/// Verifies `signature` over `message` with `algorithm` (a DL_CRYPTO_ algorithm) and a key of the kind the
/// algorithm needs. Returns 1 when it verifies, 0 when it does not (a wrong length included), -1 when the key does
/// not suit the algorithm or OpenSSL fails (with `error`).
int dl_crypto_verify(const dl_crypto_key *key, int algorithm, const uint8_t *message, size_t message_length,
                     const uint8_t *signature, size_t signature_length, char *error, size_t error_size);

/// Signs `message` with `algorithm` and a private key of the kind the algorithm needs, writing the JWS form of the
/// signature (raw r || s for ECDSA) into `signature`. Returns 1, or 0 with `error`.
int dl_crypto_sign(const dl_crypto_key *key, int algorithm, const uint8_t *message, size_t message_length,
                   uint8_t *signature, size_t capacity, size_t *signature_length, char *error, size_t error_size);

/// SHA-256 of `data` into the 32 bytes at `digest`. Returns 1, or 0 with `error`.
int dl_crypto_sha256(const uint8_t *data, size_t length, uint8_t *digest, char *error, size_t error_size);

/// HMAC-SHA-256 (RFC 2104) of `data` under `key` into the 32 bytes at `mac`. Returns 1, or 0 with `error` (a key
/// longer than INT_MAX bytes included).
int dl_crypto_hmac_sha256(const uint8_t *key, size_t key_length, const uint8_t *data, size_t length, uint8_t *mac,
                          char *error, size_t error_size);

#endif
