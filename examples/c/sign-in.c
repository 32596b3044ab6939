/*
 * sign-in: a firmware-tool-shaped use of libdevicelogin. Signs in with the device flow (the code and link shown by
 * the event callback, as an appliance would show them on its screen), saves the tokens where `device-login` keeps
 * them ($DEVICE_LOGIN_HOME, else ~/.local/state/device-login), then prints a fresh access token on stdout.
 *
 *   cc -o sign-in sign-in.c $(pkg-config --cflags --libs devicelogin)
 *   ./sign-in https://auth.example.com my-device-app
 *
 * Afterwards `device-login token` prints the same token. Exits with the library's status (the CLI's exit codes).
 */
#include <stdio.h>
#include <string.h>

#include <device_login.h>

/* Copies the string value of "key" from a one-line JSON object into out; returns 0 when there is none. The event
 * lines are sanitised and their user code and URI hold no quote or backslash, so a plain search is enough here. */
static int json_string(const char *line, const char *key, char *out, size_t size) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *start = strstr(line, pattern);
    if (!start) return 0;
    start += strlen(pattern);
    const char *end = strchr(start, '"');
    if (!end || (size_t)(end - start) >= size) return 0;
    memcpy(out, start, (size_t)(end - start));
    out[end - start] = '\0';
    return 1;
}

/* Shows the code; says when the server asked to slow down. Runs on the thread that called dl_sign_in. */
static int on_event(void *context, const char *line, size_t length) {
    (void)context;
    (void)length;
    char code[64], uri[2048];
    if (strstr(line, "\"event\":\"authorization\"") && json_string(line, "user_code", code, sizeof code)
        && json_string(line, "verification_uri", uri, sizeof uri)) {
        fprintf(stderr, "To sign in, open %s and enter the code %s\n", uri, code);
    } else if (strstr(line, "\"event\":\"slow_down\"")) {
        fprintf(stderr, "The server asked to poll more slowly.\n");
    } else if (strstr(line, "\"event\":\"succeeded\"")) {
        fprintf(stderr, "Signed in.\n");
    }
    return 0; /* go on; any other value stops the sign-in */
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s ISSUER CLIENT_ID\n", argv[0]);
        return DL_USAGE;
    }
    char settings[4096];
    int length = snprintf(settings, sizeof settings, "{\"v\":1,\"issuer\":\"%s\",\"client_id\":\"%s\"}", argv[1],
                          argv[2]);
    if (length < 0 || (size_t)length >= sizeof settings || strpbrk(argv[1], "\"\\") || strpbrk(argv[2], "\"\\")) {
        fprintf(stderr, "sign-in: the issuer and client ID must be short and hold no quote or backslash\n");
        return DL_USAGE;
    }
    dl_client *client = NULL;
    char *error = NULL;
    int status = dl_client_new(settings, (size_t)length, &client, &error);
    if (status == DL_OK) status = dl_sign_in(client, on_event, NULL, &error);
    char *token = NULL;
    if (status == DL_OK) status = dl_token(client, 0, &token, &error);
    if (status == DL_OK) {
        printf("%s\n", token);
    } else {
        fprintf(stderr, "sign-in: %s (%s)\n", error ? error : "failed", dl_status_name(status));
    }
    dl_string_free(token);
    dl_string_free(error);
    dl_client_free(client);
    return status;
}
