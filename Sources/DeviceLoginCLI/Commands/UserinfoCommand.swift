import DeviceLogin

/// `device-login userinfo`: the OpenID Connect userinfo of the signed-in user.
enum UserinfoCommand {
    static let spec = CommandSpec(
        name: "userinfo",
        summary: "Show the signed-in user's claims from the userinfo endpoint (OpenID Connect).",
        options: SessionContext.commonOptions + [.flag("json", "Print the claims as JSON, as received.")],
        discussion: "Refreshes the access token first when needed; a rejected token is refreshed once and retried.",
        exitCodes: ExitCode.session,
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
        for line in lines(object) { try context.stdout.line(line) }
        return .success
    }

    /// The claims as `name: value` lines sorted by name, one line per claim whatever the server sent: values are
    /// cleaned for the terminal (a line break in one becomes a space), names are shown by ``displayName(_:)``.
    static func lines(_ claims: JSONObject) -> [String] {
        claims.keys.sorted().compactMap { name in
            guard let value = claims[name] else { return nil }
            let text = value.stringValue ?? TokenOutput.compact(value)
            return displayName(name) + ": " + TerminalText.clean(text)
        }
    }

    /// A claim's name as shown: as it is when it is printable ASCII without spaces, quotes or backslashes
    /// (`email`, `https://example.com/groups`); otherwise as a JSON string literal in ASCII (`"email\u202E"`,
    /// `""`, `"\u0435mail"`). Cleaning such a name would make it pass for another (`email` with a bidi override,
    /// a zero-width space or a Cyrillic `е`) or leave nothing; the literal shows exactly what it is, and no plain
    /// name starts with a quote, so no two claims are ever shown under the same name.
    static func displayName(_ name: String) -> String {
        let plain =
            !name.isEmpty
            && name.unicodeScalars.allSatisfy { scalar in
                ("!"..."~").contains(scalar) && scalar != "\"" && scalar != "\\"
            }
        return plain ? name : JSONWriter.literal(name, asciiOnly: true)
    }
}
