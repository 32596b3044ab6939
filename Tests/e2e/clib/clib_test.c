/*
 * clib_test: drives every function of libdevicelogin against a real server, one scenario per run, for
 * Tests/e2e/test_clib_e2e.py. Built with gcc -Wall -Wextra -Werror from the installed header and
 * `pkg-config --cflags --libs devicelogin`, and run under AddressSanitizer.
 *
 *   clib_test SCENARIO ISSUER CLIENT_ID STORE_DIR
 *
 * Every event line is printed as "EVENT <line>", every outcome as "<NAME> <status> ..." for the test to read. The
 * test approves or denies the code it reads from the authorization line, as a person would. Exits 0 when every
 * check of the scenario held, 1 (with "FAIL ..." on stderr) otherwise.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <device_login.h>

static int failures = 0;

#define CHECK(condition, ...)                                                                                          \
    do {                                                                                                               \
        if (!(condition)) {                                                                                            \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #condition);                                       \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

static char settings[4096];

static dl_client *new_client(const char *issuer, const char *client_id, const char *store) {
    snprintf(settings, sizeof settings,
             "{\"v\":1,\"issuer\":\"%s\",\"client_id\":\"%s\",\"store_directory\":\"%s\","
             "\"scopes\":[\"openid\",\"offline_access\"]}",
             issuer, client_id, store);
    dl_client *client = NULL;
    char *error = NULL;
    int status = dl_client_new(settings, strlen(settings), &client, &error);
    CHECK(status == DL_OK && client != NULL && error == NULL, "dl_client_new: %d %s", status, error ? error : "");
    dl_string_free(error);
    return client;
}

/* Prints the outcome of a call and frees its message. */
static void report(const char *name, int status, char *error) {
    printf("%s %d %s %s\n", name, status, dl_status_name(status), error ? error : "-");
    fflush(stdout);
    dl_string_free(error);
}

/* --- Event callbacks -------------------------------------------------------------------------------------------- */

struct progress {
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    int pending; /* pending lines seen */
    int lines;
    dl_client *client;
    int reentry_checked;
};

static int print_event(void *context, const char *line, size_t length) {
    struct progress *progress = context;
    CHECK(strlen(line) == length, "the length %zu is not the line's %zu", length, strlen(line));
    CHECK(strncmp(line, "{", 1) == 0 && strstr(line, "\"v\":1") != NULL, "not a v1 line: %s", line);
    printf("EVENT %s\n", line);
    fflush(stdout);
    if (progress) {
        pthread_mutex_lock(&progress->mutex);
        progress->lines++;
        if (strstr(line, "\"event\":\"pending\"")) progress->pending++;
        pthread_cond_broadcast(&progress->changed);
        pthread_mutex_unlock(&progress->mutex);
    }
    return 0;
}

static int refuse_event(void *context, const char *line, size_t length) {
    (void)context;
    (void)length;
    printf("EVENT %s\n", line);
    fflush(stdout);
    return 7;
}

/* Calls back into the library from the callback, on the same client. */
static int reenter(void *context, const char *line, size_t length) {
    struct progress *progress = context;
    print_event(NULL, line, length);
    if (progress->reentry_checked) return 0;
    progress->reentry_checked = 1;
    char *error = NULL;
    int status = dl_sign_in(progress->client, print_event, NULL, &error);
    report("REENTER_SIGN_IN", status, error);
    CHECK(status == DL_BUSY, "a second sign-in on the client: %d", status);
    status = dl_client_free(progress->client);
    printf("REENTER_FREE %d %s\n", status, dl_status_name(status));
    CHECK(status == DL_BUSY, "freeing the client during its sign-in: %d", status);
    char *json = NULL;
    error = NULL;
    status = dl_session_status(progress->client, &json, &error);
    CHECK(status == DL_OK && json && strstr(json, "\"signed_in\":false"), "status from the callback: %d", status);
    dl_string_free(json);
    dl_string_free(error);
    char *token = NULL;
    error = NULL;
    status = dl_token(progress->client, 0, &token, &error);
    report("REENTER_TOKEN", status, error);
    CHECK(status == DL_NOT_SIGNED_IN && token == NULL, "a token before signing in: %d", status);
    status = dl_cancel(progress->client);
    CHECK(status == DL_OK, "dl_cancel from the callback: %d", status);
    return 0;
}

/* --- Scenarios -------------------------------------------------------------------------------------------------- */

/* Signs in (the test approves, denies or lets the code expire) and prints the outcome; then the token and status. */
static int sign_in(dl_client *client) {
    char *error = NULL;
    int status = dl_sign_in(client, print_event, NULL, &error);
    report("SIGN_IN", status, error);
    if (status != DL_OK) return status;
    char *token = NULL;
    error = NULL;
    status = dl_token(client, 0, &token, &error);
    CHECK(status == DL_OK && token && *token, "dl_token after signing in: %d", status);
    printf("TOKEN %s\n", token ? token : "-");
    dl_string_free(token);
    dl_string_free(error);
    char *json = NULL;
    status = dl_session_status(client, &json, NULL);
    CHECK(status == DL_OK && json && strstr(json, "\"signed_in\":true"), "status after signing in: %d", status);
    printf("STATUS %s\n", json ? json : "-");
    dl_string_free(json);
    return DL_OK;
}

static void *cancel_when_polling(void *context) {
    struct progress *progress = context;
    pthread_mutex_lock(&progress->mutex);
    while (progress->pending < 1) pthread_cond_wait(&progress->changed, &progress->mutex);
    pthread_mutex_unlock(&progress->mutex);
    int status = dl_cancel(progress->client);
    CHECK(status == DL_OK, "dl_cancel: %d", status);
    return NULL;
}

static double now_seconds(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (double)time.tv_sec + (double)time.tv_nsec / 1e9;
}

static int cancel(dl_client *client) {
    struct progress progress = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, client, 0};
    pthread_t canceller;
    pthread_create(&canceller, NULL, cancel_when_polling, &progress);
    char *error = NULL;
    int status = dl_sign_in(client, print_event, &progress, &error);
    double cancelled_at = now_seconds();
    report("SIGN_IN", status, error);
    pthread_join(canceller, NULL);
    CHECK(status == DL_CANCELLED, "a cancelled sign-in: %d", status);
    CHECK(now_seconds() - cancelled_at < 1.0, "the sign-in did not end at once");
    /* The client is free again: another cancel is a no-op, the client can be freed. */
    CHECK(dl_cancel(client) == DL_OK, "dl_cancel with no sign-in");
    return status;
}

struct token_thread {
    dl_client *client;
    pthread_barrier_t *start;
    char token[4096];
    int status;
};

static void *get_token(void *context) {
    struct token_thread *thread = context;
    pthread_barrier_wait(thread->start);
    char *token = NULL;
    char *error = NULL;
    thread->status = dl_token(thread->client, 0, &token, &error);
    if (token) snprintf(thread->token, sizeof thread->token, "%s", token);
    if (error) fprintf(stderr, "dl_token: %s\n", error);
    dl_string_free(token);
    dl_string_free(error);
    return NULL;
}

/* 16 threads ask at once for the token of a profile whose token is due: exactly one refresh, one new token. */
static int refresh(dl_client *client, const char *old_token) {
    enum { THREADS = 16 };
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, THREADS);
    static struct token_thread threads[THREADS];
    pthread_t ids[THREADS];
    for (int i = 0; i < THREADS; i++) {
        threads[i].client = client;
        threads[i].start = &start;
        threads[i].token[0] = 0;
        pthread_create(&ids[i], NULL, get_token, &threads[i]);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(ids[i], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < THREADS; i++) {
        CHECK(threads[i].status == DL_OK, "thread %d: %d", i, threads[i].status);
        CHECK(strcmp(threads[i].token, threads[0].token) == 0, "thread %d got another token", i);
    }
    CHECK(strcmp(threads[0].token, old_token) != 0, "the token was not refreshed");
    printf("REFRESHED %s\n", threads[0].token);
    return DL_OK;
}

static int sign_out(dl_client *client) {
    char *error = NULL;
    int status = dl_sign_out(client, &error);
    report("SIGN_OUT", status, error);
    CHECK(status == DL_OK, "dl_sign_out: %d", status);
    char *token = NULL;
    error = NULL;
    status = dl_token(client, 0, &token, &error);
    report("TOKEN_AFTER_SIGN_OUT", status, error);
    CHECK(status == DL_NOT_SIGNED_IN && token == NULL, "a token after signing out: %d", status);
    char *json = NULL;
    status = dl_session_status(client, &json, NULL);
    CHECK(status == DL_OK && json && strstr(json, "\"signed_in\":false"), "status after signing out: %d", status);
    dl_string_free(json);
    return DL_OK;
}

/* Creating a client from `text` fails with `expected`, a message, and no client. */
static void refuse_settings(const char *name, const char *text, size_t length, int expected) {
    dl_client *client = (dl_client *)&failures; /* not NULL: the call must clear it */
    char *error = NULL;
    int status = dl_client_new(text, length, &client, &error);
    printf("SETTINGS %s %d %s %s\n", name, status, dl_status_name(status), error ? error : "-");
    CHECK(status == expected, "settings %s: %d, not %d", name, status, expected);
    CHECK(client == NULL, "settings %s: a client was made", name);
    CHECK(error != NULL && *error, "settings %s: no message", name);
    dl_string_free(error);
}

static int bad_input(const char *issuer, const char *client_id, const char *store) {
    CHECK(strcmp(dl_version(), "") != 0, "no version");
    CHECK(strcmp(dl_status_name(DL_DENIED), "DL_DENIED") == 0, "status name");
    CHECK(strcmp(dl_status_name(12345), "DL_UNKNOWN") == 0, "unknown status name");

    dl_client *client = NULL;
    CHECK(dl_client_new(NULL, 10, &client, NULL) == DL_USAGE, "NULL settings");
    CHECK(dl_client_new("{}", 2, NULL, NULL) == DL_USAGE, "NULL client_out");
    refuse_settings("not-utf8", "{\"v\":1,\"client_id\":\"\xff\xfe\",\"issuer\":\"http://127.0.0.1\"}", 45,
                    DL_USAGE);
    size_t big = DL_SETTINGS_MAX_BYTES + 1;
    char *oversized = malloc(big);
    memset(oversized, ' ', big);
    oversized[0] = '{';
    oversized[big - 1] = '}';
    refuse_settings("oversized", oversized, big, DL_USAGE);
    free(oversized);
    refuse_settings("not-json", "{\"v\":1,", 7, DL_USAGE);
    refuse_settings("array", "[1]", 3, DL_USAGE);
    const char *version_2 = "{\"v\":2,\"client_id\":\"x\",\"issuer\":\"http://127.0.0.1\"}";
    refuse_settings("version-2", version_2, strlen(version_2), DL_USAGE);
    const char *unknown = "{\"v\":1,\"client_id\":\"x\",\"issuer\":\"http://127.0.0.1\",\"isuer\":\"x\"}";
    refuse_settings("unknown-key", unknown, strlen(unknown), DL_USAGE);
    const char *mistyped = "{\"v\":1,\"client_id\":\"x\",\"issuer\":\"http://127.0.0.1\",\"scopes\":\"openid\"}";
    refuse_settings("mistyped", mistyped, strlen(mistyped), DL_USAGE);
    const char *relative = "{\"v\":1,\"client_id\":\"x\",\"issuer\":\"http://127.0.0.1\",\"store_directory\":\"x\"}";
    refuse_settings("relative-store", relative, strlen(relative), DL_USAGE);
    const char *nul = "{\"v\":1,\"client_id\":\"a\\u0000b\",\"issuer\":\"http://127.0.0.1\"}";
    refuse_settings("nul", nul, strlen(nul), DL_USAGE);
    const char *no_secret = "{\"v\":1,\"client_id\":\"x\",\"issuer\":\"http://127.0.0.1\","
                            "\"client_secret_file\":\"/nonexistent/secret\"}";
    refuse_settings("no-secret-file", no_secret, strlen(no_secret), DL_CONFIGURATION);

    /* NULL clients and outputs. */
    char *out = NULL;
    CHECK(dl_sign_in(NULL, print_event, NULL, NULL) == DL_USAGE, "dl_sign_in(NULL)");
    CHECK(dl_cancel(NULL) == DL_USAGE, "dl_cancel(NULL)");
    CHECK(dl_token(NULL, 0, &out, NULL) == DL_USAGE && out == NULL, "dl_token(NULL)");
    CHECK(dl_session_status(NULL, &out, NULL) == DL_USAGE, "dl_session_status(NULL)");
    CHECK(dl_sign_out(NULL, NULL) == DL_USAGE, "dl_sign_out(NULL)");
    CHECK(dl_client_free(NULL) == DL_OK, "dl_client_free(NULL)");
    dl_string_free(NULL);

    client = new_client(issuer, client_id, store);
    char *error = NULL;
    CHECK(dl_token(client, 0, NULL, &error) == DL_USAGE && error != NULL, "dl_token with NULL token_out");
    dl_string_free(error);
    CHECK(dl_session_status(client, NULL, NULL) == DL_USAGE, "dl_session_status with NULL json_out");
    error = NULL;
    int status = dl_token(client, 400u * 86400u, &out, &error);
    report("TOKEN_MIN_TTL", status, error);
    CHECK(status == DL_USAGE, "a min_ttl over a year: %d", status);
    status = dl_token(client, 0, &out, &error);
    report("TOKEN_NOT_SIGNED_IN", status, error);
    CHECK(status == DL_NOT_SIGNED_IN, "a token before signing in: %d", status);
    status = dl_sign_out(client, &error);
    report("SIGN_OUT_NOT_SIGNED_IN", status, error);
    CHECK(status == DL_NOT_SIGNED_IN, "signing out before signing in: %d", status);
    CHECK(dl_client_free(client) == DL_OK, "dl_client_free");

    /* Settings without a server make a client that can read the saved profile, but not sign in. */
    snprintf(settings, sizeof settings, "{\"v\":1,\"store_directory\":\"%s\"}", store);
    client = NULL;
    status = dl_client_new(settings, strlen(settings), &client, &error);
    report("CLIENT_WITHOUT_SERVER", status, error);
    CHECK(status == DL_OK && client != NULL, "settings without a server: %d", status);
    status = dl_sign_in(client, print_event, NULL, &error);
    report("SIGN_IN_WITHOUT_SERVER", status, error);
    CHECK(status == DL_CONFIGURATION, "a sign-in without a server: %d", status);
    dl_client_free(client);

    /* The server refuses an unknown client: a protocol error. */
    client = new_client(issuer, "no-such-client", store);
    status = dl_sign_in(client, print_event, NULL, &error);
    report("SIGN_IN_UNKNOWN_CLIENT", status, error);
    CHECK(status == DL_PROTOCOL, "an unknown client: %d", status);
    dl_client_free(client);

    /* Nothing listens there: unavailable. */
    client = new_client("http://127.0.0.1:9", client_id, store);
    status = dl_sign_in(client, print_event, NULL, &error);
    report("SIGN_IN_UNAVAILABLE", status, error);
    CHECK(status == DL_UNAVAILABLE, "no server: %d", status);
    dl_client_free(client);

    /* Plain HTTP to a host that is not loopback: configuration. */
    client = new_client("http://example.invalid", client_id, store);
    status = dl_sign_in(client, print_event, NULL, &error);
    report("SIGN_IN_INSECURE", status, error);
    CHECK(status == DL_CONFIGURATION, "plain http to another host: %d", status);
    dl_client_free(client);

    /* A store that is a file: an I/O error, before any request. */
    char file_store[1024];
    snprintf(file_store, sizeof file_store, "%s/not-a-folder", store);
    FILE *file = fopen(file_store, "w");
    if (file) fclose(file);
    client = new_client(issuer, client_id, file_store);
    status = dl_sign_in(client, print_event, NULL, &error);
    report("SIGN_IN_BAD_STORE", status, error);
    CHECK(status == DL_IO, "a store that is a file: %d", status);
    dl_client_free(client);
    return DL_OK;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: clib_test SCENARIO ISSUER CLIENT_ID STORE_DIR\n");
        return 64;
    }
    const char *scenario = argv[1], *issuer = argv[2], *client_id = argv[3], *store = argv[4];
    printf("VERSION %s\n", dl_version());
    if (strcmp(scenario, "bad-input") == 0) {
        bad_input(issuer, client_id, store);
        return failures ? 1 : 0;
    }
    dl_client *client = new_client(issuer, client_id, store);
    if (!client) return 1;
    if (strcmp(scenario, "sign-in") == 0) {
        /* Approved, then 16 threads refresh the (short-lived) token once, then sign out. */
        if (sign_in(client) == DL_OK) {
            char *token = NULL;
            dl_token(client, 0, &token, NULL);
            sleep(2); /* the server's tokens live 61 s: with the 60 s margin, due after 1 s */
            refresh(client, token ? token : "");
            dl_string_free(token);
            sign_out(client);
        }
    } else if (strcmp(scenario, "outcome") == 0) {
        sign_in(client); /* denied or expired: the test checks the status printed */
    } else if (strcmp(scenario, "cancel") == 0) {
        cancel(client);
    } else if (strcmp(scenario, "callback-error") == 0) {
        char *error = NULL;
        int status = dl_sign_in(client, refuse_event, NULL, &error);
        report("SIGN_IN", status, error);
        CHECK(status == DL_IO, "a callback returning non-zero: %d", status);
    } else if (strcmp(scenario, "reenter") == 0) {
        struct progress progress = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, client, 0};
        char *error = NULL;
        int status = dl_sign_in(client, reenter, &progress, &error);
        report("SIGN_IN", status, error);
        CHECK(status == DL_CANCELLED, "cancelled from its own callback: %d", status);
    } else {
        fprintf(stderr, "unknown scenario %s\n", scenario);
        return 64;
    }
    CHECK(dl_client_free(client) == DL_OK, "dl_client_free");
    return failures ? 1 : 0;
}
