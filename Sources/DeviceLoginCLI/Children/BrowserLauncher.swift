import CExec
import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opens a link in the person's browser for `login --flow browser`: `$BROWSER` when set (its first entry of a
/// colon-separated list; `%s` stands for the link, else the link is its last argument), else `xdg-open`, or `open`
/// on macOS.
///
/// The link reaches the command as an argument of `/bin/sh -c`, never inside the command text, so no character
/// of it is interpreted by the shell. The command gets `/dev/null` for its standard descriptors (a browser's chatter
/// would break the prompt), no other descriptor, and the environment every child gets (``ChildEnvironment``); it is
/// not waited for, and is reaped on a thread of its own. Whether it opened anything cannot be known: the caller
/// always prints the link too.
enum BrowserLauncher {
    /// The shell command that opens `$1`.
    static func command(environment: [String: String]) -> String {
        let browser = environment["BROWSER"]?.split(separator: ":").first.map(String.init) ?? ""
        if browser.allSatisfy({ $0 == " " || $0 == "\t" }) {
            #if os(macOS)
            return #"open "$1""#
            #else
            return #"xdg-open "$1""#
            #endif
        }
        if browser.contains("%s") {
            return browser.split(separator: "%s", omittingEmptySubsequences: false).joined(separator: #""$1""#)
        }
        return browser + #" "$1""#
    }

    /// Starts the command for `link`.
    /// - Returns: Whether it started (not whether a browser opened).
    static func open(_ link: String, environment: [String: String]) -> Bool {
        let arguments = ["/bin/sh", "-c", command(environment: environment), "sh", link]
        guard
            let strings = ChildLauncher.CStrings(
                arguments: arguments, environment: ChildEnvironment.forChild(environment))
        else { return false }
        var actions = posix_spawn_file_actions_t()
        guard posix_spawn_file_actions_init(&actions) == 0 else { return false }
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
            let mode = descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY
            guard posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", mode, 0) == 0 else {
                return false
            }
        }
        guard ChildLauncher.closeDescriptors(from: 3, in: &actions) == 0 else { return false }
        var pid = pid_t(0)
        guard posix_spawn(&pid, "/bin/sh", &actions, nil, strings.arguments, strings.environment) == 0 else {
            return false
        }
        let child = pid
        _ = DedicatedThread.start {
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0, errno == EINTR {}
        }
        return true
    }
}
