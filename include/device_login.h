/*
 * device_login.h: the C API of libdevicelogin (DeviceLogin's OAuth 2.0 Device Authorization Grant, RFC 8628).
 *
 * C99. Link with `pkg-config --cflags --libs devicelogin`. The shared library's soname is libdevicelogin.so.1; the
 * ABI promise (docs/embedding.md): within soname 1 no function is removed or changes its signature or meaning, no
 * status changes its number; new functions, new statuses, new settings keys and new event fields may be added.
 *
 * Ownership: every `char *` the library hands out (through a `char **` argument) belongs to the caller, who frees it
 * with dl_string_free() and never with free(). Every `const char *` the library returns is static: never free it.
 * Strings the caller passes stay the caller's; the library copies what it keeps.
 *
 * Statuses: every call that can fail returns a status, the numbers `device-login` exits with (docs/cli.md), and, when
 * `error_out` is not NULL, stores a message there (NUL-terminated UTF-8, sanitised, never a token or secret) that the
 * caller frees with dl_string_free(); on success *error_out is set to NULL.
 *
 * Thread-safety: every function may be called from any thread. Calls on one client may run at once from many
 * threads (dl_token from 16 threads refreshes once), except dl_client_free(), which must not run at the same time
 * as any other call on that client. All text in and out is UTF-8; text that is not is refused with DL_USAGE.
 */
#ifndef DEVICE_LOGIN_H
#define DEVICE_LOGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this ABI: the soname's number. */
#define DL_ABI_VERSION 1
/* The version of the settings object dl_client_new() reads (its "v"). */
#define DL_SETTINGS_VERSION 1
/* The most bytes of settings dl_client_new() reads. */
#define DL_SETTINGS_MAX_BYTES 65536

/* Statuses: the meanings of device-login's exit codes. */
#define DL_OK 0             /* success */
#define DL_FAILURE 1        /* another failure (out of memory) */
#define DL_USAGE 64         /* bad input: a NULL pointer, text that is not UTF-8, settings too long or wrong */
#define DL_DENIED 65        /* the user denied the sign-in request */
#define DL_EXPIRED 66       /* the code expired before it was approved */
#define DL_UNAVAILABLE 69   /* the network or the server failed */
#define DL_IO 74            /* token storage failed, or the event callback returned non-zero */
#define DL_BUSY 75          /* a sign-in is already running on this client */
#define DL_PROTOCOL 76      /* the server answered with an error or something that is not OAuth */
#define DL_NOT_SIGNED_IN 77 /* not signed in, or the session ended: sign in again */
#define DL_CONFIGURATION 78 /* the configuration is wrong: issuer, endpoints, HTTPS policy, secret file */
#define DL_CANCELLED 130    /* the sign-in was cancelled with dl_cancel() */

/* A client: settings, a token store and a connection pool. Opaque; made by dl_client_new(). */
typedef struct dl_client dl_client;

/*
 * Receives one event line of a sign-in: `line` is one JSON object, version 1 of docs/events.md (the lines
 * `device-login login --events` prints: authorization, polling, pending, slow_down, retrying, succeeded, failed),
 * `length` bytes long, NUL-terminated, without a line feed, sanitised, never holding a token or the device code.
 * `line` is valid only during the call: copy what you keep. `context` is the pointer given to dl_sign_in().
 * Called on the thread that called dl_sign_in(), one line at a time, in order. It may call any function of the
 * library, including on the same client (dl_sign_in() on it returns DL_BUSY, dl_client_free() on it returns
 * DL_BUSY). Return 0 to go on; any other value stops the sign-in, which then returns DL_IO.
 */
typedef int (*dl_event_callback)(void *context, const char *line, size_t length);

/*
 * The library's version, e.g. "0.1.0". Static: never free it. Thread-safe; never fails.
 */
const char *dl_version(void);

/*
 * The name of a status ("DL_DENIED"), or "DL_UNKNOWN". Static: never free it. Thread-safe; never fails.
 */
const char *dl_status_name(int status);

/*
 * Creates a client from settings: a JSON object of `settings_length` bytes (at most DL_SETTINGS_MAX_BYTES, no NUL
 * needed), with "v": 1; to sign in, also "client_id", and "issuer" or both "device_authorization_endpoint" and
 * "token_endpoint" (dl_token, dl_session_status and dl_sign_out use the saved profile's); optional:
 * "revocation_endpoint", "client_secret_file", "scopes" and "resources" (arrays of strings), "profile"
 * (default "default"), "store_directory" (absolute; default the CLI's: $DEVICE_LOGIN_HOME, else
 * $XDG_STATE_HOME/device-login, else ~/.local/state/device-login), "allow_insecure_http", "ca_file". An unknown key
 * is refused. No request is sent. On success *client_out is the new client, owned by the caller, who frees it with
 * dl_client_free(); on failure it is NULL.
 * Returns DL_OK, DL_USAGE (NULL, too long, not UTF-8 or JSON, unknown or mistyped key), DL_CONFIGURATION (the
 * secret file cannot be read) or DL_IO (no store folder can be named: neither DEVICE_LOGIN_HOME nor HOME is set).
 * Thread-safe.
 */
int dl_client_new(const char *settings_json, size_t settings_length, dl_client **client_out, char **error_out);

/*
 * Frees a client. NULL is allowed (DL_OK). Returns DL_BUSY, freeing nothing, while a sign-in runs on it (from the
 * event callback too). Must not run at the same time as another call on the same client.
 */
int dl_client_free(dl_client *client);

/*
 * Signs in with the device flow and saves the tokens as the client's profile, in the store `device-login` uses: on
 * return with DL_OK, `device-login token --profile NAME` prints the same token. Blocks the calling thread until the
 * sign-in succeeds, fails, expires or is cancelled; `callback` (may be NULL) receives every event line on this
 * thread, the `authorization` line (user code, verification URI) first. `context` is passed to it as is.
 * Returns DL_OK, DL_USAGE, DL_DENIED, DL_EXPIRED, DL_UNAVAILABLE, DL_IO (store, or the callback returned non-zero),
 * DL_BUSY (a sign-in already runs on this client), DL_PROTOCOL, DL_CONFIGURATION (no client ID, no issuer or
 * endpoints, plain HTTP to a host that is not loopback) or DL_CANCELLED.
 * Thread-safe; one sign-in per client at a time.
 */
int dl_sign_in(dl_client *client, dl_event_callback callback, void *context, char **error_out);

/*
 * Cancels the sign-in running on `client` at once, from any thread (or the event callback): dl_sign_in() then
 * returns DL_CANCELLED after a last `failed` event line. Does nothing when no sign-in runs.
 * Returns DL_OK, or DL_USAGE for NULL. Thread-safe and async-signal-unsafe.
 */
int dl_cancel(dl_client *client);

/*
 * Gets a fresh access token for the client's profile, refreshing it first when it expires within
 * `min_ttl_seconds` (at most a year) plus a 60 s margin, as `device-login token --min-ttl` does: a valid stored
 * token costs one file read and no request; when many threads or processes ask at once, exactly one refreshes
 * (a lock on the profile) and all get the same token. On DL_OK *token_out is the token, owned by the caller, freed
 * with dl_string_free() (which wipes it); otherwise NULL.
 * Returns DL_OK, DL_USAGE, DL_UNAVAILABLE, DL_IO, DL_PROTOCOL, DL_NOT_SIGNED_IN or DL_CONFIGURATION. Thread-safe.
 */
int dl_token(dl_client *client, uint32_t min_ttl_seconds, char **token_out, char **error_out);

/*
 * The profile's status as one JSON object, version 1: {"v":1,"profile":…,"signed_in":true|false} and, when known,
 * "issuer", "expires_at" (RFC 3339), "scopes", "has_refresh_token"; never a token. Sends no request. On DL_OK
 * *json_out is owned by the caller, freed with dl_string_free(); otherwise NULL.
 * Returns DL_OK, DL_USAGE or DL_IO. Thread-safe.
 */
int dl_session_status(dl_client *client, char **json_out, char **error_out);

/*
 * Signs out as `device-login logout` does: revokes the tokens at the server (RFC 7009), then removes them from the
 * store (also when the server could not revoke them).
 * Returns DL_OK, DL_USAGE, DL_IO, DL_NOT_SIGNED_IN (no saved profile) or DL_CONFIGURATION. Thread-safe.
 */
int dl_sign_out(dl_client *client, char **error_out);

/*
 * Frees (and first wipes) a string the library handed out. NULL is allowed. Thread-safe.
 */
void dl_string_free(char *string);

#ifdef __cplusplus
}
#endif

#endif /* DEVICE_LOGIN_H */
