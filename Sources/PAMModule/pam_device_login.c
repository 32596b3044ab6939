/*
 * pam_device_login.so: signs a person in with the OAuth 2.0 Device Authorization Grant (RFC 8628) through
 * DeviceLogin's helper, `device-login pam-helper`, run in a process (and process group) of its own: no Swift runtime
 * ever lives inside sshd. The helper writes JSON lines on a pipe; this module reads two of them:
 *
 *   {"v":1,"event":"pam_prompt",...,"text":"…"}              the prompt, already worded and sanitised
 *   {"v":1,"event":"pam_decision",...,"decision":"allow|deny|unavailable","reason":"…"}
 *
 * The prompt is shown as the text of a PAM_PROMPT_ECHO_ON that the person answers with Enter once they approved:
 * OpenSSH holds PAM_TEXT_INFO back until the module returns (OpenSSH bug 2876). The module lets the person in only
 * on "allow" from a helper that then exits with status 0; "deny", a deadline passed and a helper that said nothing
 * are PAM_AUTH_ERR, "unavailable" (the server or its configuration) is PAM_AUTHINFO_UNAVAIL. On every way out the
 * helper's process group is killed and the helper reaped. Nothing of a token or a code is ever logged: the helper
 * never writes one, and the reason it gives is logged as printable ASCII.
 *
 * pam_sm_acct_mgmt says PAM_SUCCESS only for the user this module authenticated in the same PAM handle (the name
 * is kept with pam_set_data when pam_sm_authenticate lets the person in, and must still be the handle's PAM_USER);
 * for anyone else, and without a sign-in of ours, PAM_IGNORE: the other account modules decide. So a stack may list
 * it under "account" for users who have no other account module (docs/ssh.md).
 *
 * Arguments: config=FILE (default /etc/device-login/pam.conf), helper=PATH (default: PREFIX/bin/device-login
 * beside PREFIX/lib/security/, else device-login on PATH), deadline=SECONDS (the module's own bound, 5 to 600,
 * default 110: below sshd's LoginGraceTime of 120), debug.
 *
 * Build: Scripts/build-pam.sh (gcc -Wall -Wextra -Werror, libpam0g-dev). See docs/ssh.md.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>

#define DEFAULT_CONFIG "/etc/device-login/pam.conf"
#define DEFAULT_DEADLINE 110
#define MAXIMUM_LINE (64 * 1024)
#define MAXIMUM_TEXT (32 * 1024)
#define MAXIMUM_REASON 300
#define MAXIMUM_USER 256
#define HELPER_NAME "device-login"
#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"
#define AUTHENTICATED_KEY "pam_device_login_authenticated_user"

struct options {
    const char *config;
    const char *helper;
    int deadline;
    int debug;
};

/* The helper's process and the pipe it writes on. */
struct helper {
    pid_t pid;
    int fd;
    char buffer[MAXIMUM_LINE];
    size_t length;
};

static int parse_options(pam_handle_t *pamh, int argc, const char **argv, struct options *options)
{
    options->config = DEFAULT_CONFIG;
    options->helper = NULL;
    options->deadline = DEFAULT_DEADLINE;
    options->debug = 0;
    for (int i = 0; i < argc; i++) {
        const char *argument = argv[i];
        if (strncmp(argument, "config=", 7) == 0 && argument[7] == '/') {
            options->config = argument + 7;
        } else if (strncmp(argument, "helper=", 7) == 0 && argument[7] == '/') {
            options->helper = argument + 7;
        } else if (strncmp(argument, "deadline=", 9) == 0) {
            char *end = NULL;
            long seconds = strtol(argument + 9, &end, 10);
            if (end == argument + 9 || *end != '\0' || seconds < 5 || seconds > 600) {
                pam_syslog(pamh, LOG_ERR, "deadline= must be whole seconds, 5 to 600");
                return -1;
            }
            options->deadline = (int)seconds;
        } else if (strcmp(argument, "debug") == 0) {
            options->debug = 1;
        } else {
            pam_syslog(pamh, LOG_ERR, "unknown or malformed argument (config= and helper= take absolute paths)");
            return -1;
        }
    }
    return 0;
}

static int is_executable(const char *path)
{
    struct stat status;
    return stat(path, &status) == 0 && S_ISREG(status.st_mode) && access(path, X_OK) == 0;
}

/* The helper beside the module's install prefix (PREFIX/lib/security/ or PREFIX/lib/TRIPLET/security/ →
 * PREFIX/bin/device-login), else device-login on PATH. */
static int find_helper(const struct options *options, char *out, size_t size)
{
    if (options->helper != NULL) {
        if (strlen(options->helper) >= size || !is_executable(options->helper)) return -1;
        strcpy(out, options->helper);
        return 0;
    }
    Dl_info info;
    if (dladdr((void *)find_helper, &info) != 0 && info.dli_fname != NULL && strlen(info.dli_fname) < PATH_MAX) {
        char prefix[PATH_MAX];
        strcpy(prefix, info.dli_fname);
        /* Up from the file: its folder (security), then lib or lib/TRIPLET. */
        for (int level = 0; level < 4; level++) {
            char *slash = strrchr(prefix, '/');
            if (slash == NULL) break;
            *slash = '\0';
            const char *last = strrchr(prefix, '/');
            if (level >= 1 && last != NULL && strcmp(last, "/lib") == 0) {
                *strrchr(prefix, '/') = '\0';
                int written = snprintf(out, size, "%s/bin/" HELPER_NAME, prefix);
                if (written > 0 && (size_t)written < size && is_executable(out)) return 0;
                break;
            }
        }
    }
    const char *path = getenv("PATH");
    if (path == NULL || *path == '\0') path = DEFAULT_PATH;
    while (*path != '\0') {
        size_t length = strcspn(path, ":");
        if (length > 0 && path[0] == '/') {
            int written = snprintf(out, size, "%.*s/" HELPER_NAME, (int)length, path);
            if (written > 0 && (size_t)written < size && is_executable(out)) return 0;
        }
        path += length;
        if (*path == ':') path++;
    }
    return -1;
}

static long long monotonic_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static void loggable(const char *text, char *out, size_t size);

/* What PAM says of the person's terminal, for the helper's qr = auto (PAMClientTerminal in the helper): PAM_TTY,
 * TERM (the PAM environment's, else the application's), and whether PAM_RHOST is set. Printable ASCII, bounded. */
struct client_terminal {
    char tty[65];
    char term[65];
    int remote;
};

static void client_terminal_of(pam_handle_t *pamh, struct client_terminal *terminal)
{
    const void *tty = NULL, *rhost = NULL;
    const char *term = pam_getenv(pamh, "TERM");
    if (term == NULL) term = getenv("TERM");
    terminal->tty[0] = terminal->term[0] = '\0';
    if (pam_get_item(pamh, PAM_TTY, &tty) == PAM_SUCCESS && tty != NULL && strlen(tty) < sizeof(terminal->tty))
        loggable(tty, terminal->tty, sizeof(terminal->tty));
    if (term != NULL && strlen(term) < sizeof(terminal->term)) loggable(term, terminal->term, sizeof(terminal->term));
    terminal->remote = pam_get_item(pamh, PAM_RHOST, &rhost) == PAM_SUCCESS && rhost != NULL && *(const char *)rhost;
}

static int spawn_helper(const char *path, const char *config, const char *user,
                        const struct client_terminal *terminal, struct helper *helper)
{
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) return -1;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        return -1;
    }
    if (pid == 0) {
        /* The helper: a process group of its own (killed as a whole), a clean signal state, no descriptor of the
         * application's, and an environment of our own. It dies with the process that runs PAM: when sshd ends that
         * one with SIGTERM (a client gone mid-sign-in), this module gets no chance to kill the group itself. */
        setpgid(0, 0);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(127);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        for (int signal_number = 1; signal_number < NSIG; signal_number++) signal(signal_number, SIG_DFL);
        int null_fd = open("/dev/null", O_RDWR);
        if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(pipe_fds[1], 1) < 0 || dup2(null_fd, 2) < 0) _exit(127);
        long maximum = sysconf(_SC_OPEN_MAX);
        if (maximum < 0 || maximum > 65536) maximum = 65536;
        for (int fd = 3; fd < maximum; fd++) close(fd);
        char *arguments[14] = {
            (char *)HELPER_NAME, (char *)"pam-helper", (char *)"--config", (char *)config, (char *)"--user",
            (char *)user,
        };
        int count = 6;
        if (terminal->tty[0] != '\0') {
            arguments[count++] = (char *)"--client-tty";
            arguments[count++] = (char *)terminal->tty;
        }
        if (terminal->term[0] != '\0') {
            arguments[count++] = (char *)"--client-term";
            arguments[count++] = (char *)terminal->term;
        }
        if (terminal->remote) arguments[count++] = (char *)"--client-remote";
        arguments[count] = NULL;
        char *const environment[] = {(char *)"PATH=" DEFAULT_PATH, (char *)"LANG=C.UTF-8", (char *)"HOME=/",
                                     (char *)"NO_COLOR=1", NULL};
        execve(path, arguments, environment);
        _exit(127);
    }
    setpgid(pid, pid); /* also here: whichever runs first wins, and kill(-pid) must find the group */
    close(pipe_fds[1]);
    helper->pid = pid;
    helper->fd = pipe_fds[0];
    helper->length = 0;
    return 0;
}

/* Reads the next line (without its line feed) into `line`. 1: a line; 0: the end of the pipe; -1: the deadline
 * passed; -2: an error or a line longer than MAXIMUM_LINE. */
static int read_line(struct helper *helper, char *line, long long deadline)
{
    for (;;) {
        char *newline = memchr(helper->buffer, '\n', helper->length);
        if (newline != NULL) {
            size_t length = (size_t)(newline - helper->buffer);
            memcpy(line, helper->buffer, length);
            line[length] = '\0';
            helper->length -= length + 1;
            memmove(helper->buffer, newline + 1, helper->length);
            return 1;
        }
        if (helper->length >= sizeof(helper->buffer)) return -2;
        long long left = deadline - monotonic_ms();
        if (left <= 0) return -1;
        struct pollfd poll_fd = {.fd = helper->fd, .events = POLLIN};
        int ready = poll(&poll_fd, 1, left > 1000 ? 1000 : (int)left);
        if (ready < 0 && errno != EINTR) return -2;
        if (ready <= 0) continue;
        ssize_t count = read(helper->fd, helper->buffer + helper->length, sizeof(helper->buffer) - helper->length);
        if (count < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (count < 0) return -2;
        if (count == 0) return 0;
        helper->length += (size_t)count;
    }
}

static void put_utf8(unsigned long code_point, char *out, size_t size, size_t *at)
{
    /* What must never reach a terminal, whatever the helper sent: controls but the line feed, C1 controls, bidi
     * overrides and isolates, zero-width characters. */
    if ((code_point < 0x20 && code_point != '\n') || (code_point >= 0x7F && code_point < 0xA0) ||
        (code_point >= 0x200B && code_point <= 0x200F) || (code_point >= 0x202A && code_point <= 0x202E) ||
        (code_point >= 0x2066 && code_point <= 0x2069) || code_point == 0xFEFF || code_point > 0x10FFFF ||
        (code_point >= 0xD800 && code_point <= 0xDFFF))
        return;
    unsigned char bytes[4];
    size_t count;
    if (code_point < 0x80) {
        bytes[0] = (unsigned char)code_point;
        count = 1;
    } else if (code_point < 0x800) {
        bytes[0] = (unsigned char)(0xC0 | (code_point >> 6));
        bytes[1] = (unsigned char)(0x80 | (code_point & 0x3F));
        count = 2;
    } else if (code_point < 0x10000) {
        bytes[0] = (unsigned char)(0xE0 | (code_point >> 12));
        bytes[1] = (unsigned char)(0x80 | ((code_point >> 6) & 0x3F));
        bytes[2] = (unsigned char)(0x80 | (code_point & 0x3F));
        count = 3;
    } else {
        bytes[0] = (unsigned char)(0xF0 | (code_point >> 18));
        bytes[1] = (unsigned char)(0x80 | ((code_point >> 12) & 0x3F));
        bytes[2] = (unsigned char)(0x80 | ((code_point >> 6) & 0x3F));
        bytes[3] = (unsigned char)(0x80 | (code_point & 0x3F));
        count = 4;
    }
    if (*at + count >= size) return;
    memcpy(out + *at, bytes, count);
    *at += count;
}

static int hex_value(const char *text, unsigned long *value)
{
    *value = 0;
    for (int i = 0; i < 4; i++) {
        char c = text[i];
        int digit = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                                                     : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
        if (digit < 0) return -1;
        *value = *value * 16 + (unsigned long)digit;
    }
    return 0;
}

/* Decodes one UTF-8 sequence at `text` into a code point; returns its length, or 1 for an invalid byte (U+FFFD). */
static size_t decode_utf8(const unsigned char *text, unsigned long *code_point)
{
    if (text[0] < 0x80) {
        *code_point = text[0];
        return 1;
    }
    size_t count = (text[0] & 0xE0) == 0xC0 ? 2 : (text[0] & 0xF0) == 0xE0 ? 3 : (text[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (count == 0) {
        *code_point = 0xFFFD;
        return 1;
    }
    unsigned long value = text[0] & (0x7F >> count);
    for (size_t i = 1; i < count; i++) {
        if ((text[i] & 0xC0) != 0x80) {
            *code_point = 0xFFFD;
            return 1;
        }
        value = (value << 6) | (text[i] & 0x3F);
    }
    *code_point = value;
    return count;
}

/* The string value of `"key":"…"` in a JSON line of the helper's (compact, as its JSON writer makes it), decoded,
 * with every character that must not reach a terminal dropped. 0 when found. A key cannot be forged inside another
 * string: there every quote is escaped. */
static int json_string(const char *line, const char *key, char *out, size_t size)
{
    char pattern[64];
    snprintf(pattern, sizeof(pattern), "\"%s\":\"", key);
    const char *start = strstr(line, pattern);
    if (start == NULL || size == 0) return -1;
    const unsigned char *p = (const unsigned char *)start + strlen(pattern);
    size_t at = 0;
    while (*p != '\0' && *p != '"') {
        unsigned long code_point;
        if (*p == '\\') {
            p++;
            switch (*p) {
            case 'n': code_point = '\n'; break;
            case '"': code_point = '"'; break;
            case '\\': code_point = '\\'; break;
            case '/': code_point = '/'; break;
            case 't': code_point = ' '; break;
            case 'u':
                if (hex_value((const char *)p + 1, &code_point) != 0) return -1;
                p += 4;
                if (code_point >= 0xD800 && code_point <= 0xDBFF && p[1] == '\\' && p[2] == 'u') {
                    unsigned long low;
                    if (hex_value((const char *)p + 3, &low) == 0 && low >= 0xDC00 && low <= 0xDFFF) {
                        code_point = 0x10000 + ((code_point - 0xD800) << 10) + (low - 0xDC00);
                        p += 6;
                    }
                }
                break;
            case '\0': return -1;
            default: code_point = 0xFFFD; break; /* \b \f \r: controls, dropped below */
            }
            p++;
        } else {
            p += decode_utf8(p, &code_point);
        }
        put_utf8(code_point, out, size, &at);
    }
    if (*p != '"') return -1;
    out[at] = '\0';
    return 0;
}

/* A text as the log may carry it: printable ASCII, others as '?', bounded. */
static void loggable(const char *text, char *out, size_t size)
{
    size_t at = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0' && at + 1 < size; p++) {
        out[at++] = (*p >= 0x20 && *p < 0x7F) ? (char)*p : '?';
    }
    out[at] = '\0';
}

static int converse(pam_handle_t *pamh, int style, const char *text)
{
    const struct pam_conv *conversation = NULL;
    if (pam_get_item(pamh, PAM_CONV, (const void **)&conversation) != PAM_SUCCESS || conversation == NULL ||
        conversation->conv == NULL)
        return PAM_CONV_ERR;
    struct pam_message message = {.msg_style = style, .msg = text};
    const struct pam_message *messages[] = {&message};
    struct pam_response *responses = NULL;
    int result = conversation->conv(1, messages, &responses, conversation->appdata_ptr);
    if (responses != NULL) {
        if (responses[0].resp != NULL) {
            explicit_bzero(responses[0].resp, strlen(responses[0].resp));
            free(responses[0].resp);
        }
        free(responses);
    }
    return result;
}

/* Kills the helper's process group and reaps the helper: on every way out. Returns its wait status. */
static int end_helper(struct helper *helper)
{
    int status = 0;
    kill(-helper->pid, SIGKILL); /* before the reaping: the group's id cannot be reused while the helper is unreaped */
    while (waitpid(helper->pid, &status, 0) < 0 && errno == EINTR) {}
    close(helper->fd);
    return status;
}

static int valid_user(const char *user)
{
    size_t length = strlen(user);
    if (length == 0 || length > MAXIMUM_USER || user[0] == '-') return 0;
    for (const unsigned char *p = (const unsigned char *)user; *p != '\0'; p++) {
        if (*p <= 0x20 || *p == 0x7F) return 0;
    }
    return 1;
}

/* What one call reads and writes: about 100 KiB, on the heap (not on the application's stack) and one per call
 * (PAM may run in several threads at once). */
struct session {
    struct helper helper;
    char line[MAXIMUM_LINE + 1];
    char text[MAXIMUM_TEXT];
};

/* Relays the helper's prompt and waits for its decision; kills and reaps the helper; logs; returns the PAM result. */
static int run_helper(pam_handle_t *pamh, const struct options *options, const char *user, struct session *session)
{
    struct helper *helper = &session->helper;
    char *line = session->line, *text = session->text;
    long long deadline = monotonic_ms() + (long long)options->deadline * 1000;
    char decision[32] = "";
    char reason[MAXIMUM_REASON] = "the helper ended without a decision";
    char message[MAXIMUM_REASON] = "";
    int prompted = 0, result = PAM_AUTHINFO_UNAVAIL, timed_out = 0;
    for (;;) {
        int got = read_line(helper, line, deadline);
        if (got == -1) {
            timed_out = 1;
            break;
        }
        if (got <= 0) break;
        char event[32];
        if (json_string(line, "event", event, sizeof(event)) != 0) continue;
        if (strcmp(event, "pam_prompt") == 0 && !prompted && json_string(line, "text", text, MAXIMUM_TEXT) == 0) {
            prompted = 1;
            size_t length = strlen(text);
            snprintf(text + length, MAXIMUM_TEXT - length, "%sPress Enter once you have approved the sign-in: ",
                     length > 0 && text[length - 1] == '\n' ? "\n" : "\n\n");
            if (converse(pamh, PAM_PROMPT_ECHO_ON, text) != PAM_SUCCESS) {
                snprintf(reason, sizeof(reason), "the conversation ended before the sign-in did");
                strcpy(decision, "conversation");
                break;
            }
        } else if (strcmp(event, "pam_decision") == 0) {
            char said[MAXIMUM_REASON];
            if (json_string(line, "decision", decision, sizeof(decision)) != 0) strcpy(decision, "malformed");
            if (json_string(line, "reason", said, sizeof(said)) == 0) loggable(said, reason, sizeof(reason));
            if (json_string(line, "message", said, sizeof(said)) == 0) loggable(said, message, sizeof(message));
            /* Wait for the helper to end (its exit status must agree), within the deadline. */
            while (read_line(helper, line, deadline) == 1) {}
            break;
        }
    }
    int status = end_helper(helper);
    int exited_cleanly = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    char shown_user[MAXIMUM_USER + 1];
    loggable(user, shown_user, sizeof(shown_user));
    if (timed_out) {
        pam_syslog(pamh, LOG_WARNING, "device sign-in of %s refused: not approved within %d s", shown_user,
                   options->deadline);
        snprintf(message, sizeof(message), "The sign-in was not approved within %d seconds.", options->deadline);
        converse(pamh, PAM_ERROR_MSG, message);
        return PAM_AUTH_ERR;
    }
    if (strcmp(decision, "allow") == 0 && exited_cleanly) {
        pam_syslog(pamh, LOG_NOTICE, "device sign-in of %s allowed: %s", shown_user, reason);
        return PAM_SUCCESS;
    }
    if (strcmp(decision, "deny") == 0 || strcmp(decision, "allow") == 0 || strcmp(decision, "conversation") == 0) {
        result = PAM_AUTH_ERR;
    }
    pam_syslog(pamh, result == PAM_AUTH_ERR ? LOG_WARNING : LOG_ERR, "device sign-in of %s %s: %s", shown_user,
               result == PAM_AUTH_ERR ? "refused" : "unavailable", reason);
    if (strcmp(decision, "conversation") != 0) {
        const char *plain = result == PAM_AUTH_ERR ? "The sign-in was refused." : "The sign-in service is unavailable.";
        converse(pamh, PAM_ERROR_MSG, message[0] != '\0' ? message : plain);
    }
    return result;
}

static int authenticate(pam_handle_t *pamh, const struct options *options, const char *user)
{
    char path[PATH_MAX];
    if (find_helper(options, path, sizeof(path)) != 0) {
        pam_syslog(pamh, LOG_ERR, "the helper %s is not found beside the module nor on PATH", HELPER_NAME);
        return PAM_AUTHINFO_UNAVAIL;
    }
    struct session *session = calloc(1, sizeof(*session));
    if (session == NULL) {
        pam_syslog(pamh, LOG_ERR, "out of memory");
        return PAM_BUF_ERR;
    }
    int result;
    struct client_terminal terminal;
    client_terminal_of(pamh, &terminal);
    if (spawn_helper(path, options->config, user, &terminal, &session->helper) != 0) {
        pam_syslog(pamh, LOG_ERR, "cannot start the helper: %s", strerror(errno));
        result = PAM_AUTHINFO_UNAVAIL;
    } else {
        result = run_helper(pamh, options, user, session);
    }
    explicit_bzero(session, sizeof(*session));
    free(session);
    return result;
}

static void cleanup_user(pam_handle_t *pamh, void *data, int error_status)
{
    (void)pamh;
    (void)error_status;
    free(data);
}

PAM_EXTERN int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    (void)flags;
    struct options options;
    if (parse_options(pamh, argc, argv, &options) != 0) return PAM_AUTHINFO_UNAVAIL;
    const char *user = NULL;
    if (pam_get_user(pamh, &user, NULL) != PAM_SUCCESS || user == NULL || !valid_user(user)) {
        pam_syslog(pamh, LOG_WARNING, "no user name, or one that is not a plain name");
        return PAM_USER_UNKNOWN;
    }
    /* The helper must be reaped by us: an application that ignores SIGCHLD would have it reaped by the kernel. */
    struct sigaction default_action, saved_action;
    memset(&default_action, 0, sizeof(default_action));
    default_action.sa_handler = SIG_DFL;
    sigemptyset(&default_action.sa_mask);
    sigaction(SIGCHLD, &default_action, &saved_action);
    int result = authenticate(pamh, &options, user);
    sigaction(SIGCHLD, &saved_action, NULL);
    if (result == PAM_SUCCESS) {
        /* For pam_sm_acct_mgmt in this handle: who was let in. A copy the handle frees (cleanup_user). */
        char *copy = strdup(user);
        if (copy == NULL || pam_set_data(pamh, AUTHENTICATED_KEY, copy, cleanup_user) != PAM_SUCCESS) {
            free(copy);
            pam_syslog(pamh, LOG_ERR, "cannot remember the authenticated user for the account check");
        }
    } else {
        pam_set_data(pamh, AUTHENTICATED_KEY, NULL, NULL); /* an earlier success of ours counts no more */
    }
    if (options.debug) pam_syslog(pamh, LOG_DEBUG, "pam_sm_authenticate returns %d", result);
    return result;
}

PAM_EXTERN int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    (void)pamh;
    (void)flags;
    (void)argc;
    (void)argv;
    return PAM_SUCCESS; /* no credentials to set: nothing is stored */
}

PAM_EXTERN int pam_sm_acct_mgmt(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    (void)flags;
    struct options options;
    if (parse_options(pamh, argc, argv, &options) != 0) return PAM_IGNORE;
    const void *authenticated = NULL;
    const void *user = NULL;
    int result = PAM_IGNORE;
    if (pam_get_data(pamh, AUTHENTICATED_KEY, &authenticated) == PAM_SUCCESS && authenticated != NULL &&
        pam_get_item(pamh, PAM_USER, &user) == PAM_SUCCESS && user != NULL &&
        strcmp((const char *)authenticated, (const char *)user) == 0)
        result = PAM_SUCCESS;
    if (options.debug) pam_syslog(pamh, LOG_DEBUG, "pam_sm_acct_mgmt returns %d", result);
    return result;
}
