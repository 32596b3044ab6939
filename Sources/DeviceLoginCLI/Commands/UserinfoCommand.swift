import DeviceLogin

/// `device-login userinfo`: the OpenID Connect userinfo of the signed-in user.
enum UserinfoCommand {
    static let spec = CommandSpec(
        name: "userinfo",
        summary: "Show the signed-in user's claims from the userinfo endpoint (OpenID Connect).",
        options: SessionContext.commonOptions + [.flag("json", "Print the claims as JSON, as received.")],
        discussion: "Refreshes the access token first when needed; a rejected token is refreshed once and retried.",
        run: run
    )

    @Sendable static func run(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        let session = try await SessionContext.open(options, command: "userinfo", context: context)
        let info = try await session.state.userInfo()
        let object = info.jsonObject
        if options.flag("json") {
            try context.stdout.line(try TokenOutput.encode(object))
            return .success
        }
        for key in object.keys.sorted() {
            guard let value = object[key] else { continue }
            let text = value.stringValue ?? TokenOutput.compact(value)
            try context.stdout.line(TerminalText.clean(key) + ": " + TerminalText.clean(text))
        }
        return .success
    }
}
