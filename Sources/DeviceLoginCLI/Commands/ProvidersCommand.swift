import DeviceLogin

/// `device-login providers`: the provider presets `login --provider` knows, what each takes and fills in.
enum ProvidersCommand {
    static let spec = CommandSpec(
        name: "providers",
        summary: "List the provider presets of login --provider: what each takes, fills in, and its quirks.",
        options: [.flag("json", "Print the presets as JSON.")],
        discussion: """
            Each preset fills endpoints and quirks from the provider's own documentation; {host} and the like
            stand for the option of that name. A preset with an issuer finds the other endpoints by discovery.
            No preset carries a client ID: device-code phishing campaigns reuse the well-known public client
            IDs of trusted apps, so --client-id is always your own app's registration.
            """,
        exitCodes: [.ioError],
        run: run
    )

    @Sendable static func run(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        if options.flag("json") {
            try context.stdout.line(try TokenOutput.encode(json))
        } else {
            for line in lines { try context.stdout.line(line) }
        }
        return .success
    }

    /// The option a template's `{parameter}` stands for: `{host}` for `--host`.
    private static func placeholder(_ parameter: ProviderPreset.Parameter) -> String {
        "{\(parameter.rawValue)}"
    }

    /// The presets for people: a paragraph each.
    static var lines: [String] {
        var lines: [String] = []
        for preset in ProviderPreset.all {
            if !lines.isEmpty { lines.append("") }
            lines.append("\(preset.name): \(preset.title)")
            func add(_ label: String, _ value: String) {
                lines.append("  " + (label + ":").padding(to: 14) + value)
            }
            for setting in preset.parameters {
                let option = "--" + LoginSettings.option(for: setting.parameter)
                let given = setting.defaultValue.map { "default \($0)" } ?? "required"
                add("takes", "\(option) (\(given)): \(setting.meaning)")
            }
            let when = preset.issuerNeedsTenantID ? " for a tenant ID only, else none" : ""
            add("issuer", preset.issuerTemplate.map { $0 + when + " (the rest by discovery)" } ?? "none (no discovery)")
            let endpoints: [(String, String?)] = [
                ("device", preset.templates.deviceAuthorization), ("token", preset.templates.token),
                ("revocation", preset.templates.revocation), ("userinfo", preset.templates.userinfo),
            ]
            for case (let label, let template?) in endpoints { add(label, template) }
            add("scopes", preset.defaultScopes?.joined(separator: " ") ?? "the default")
            for quirk in preset.quirks { add("quirk", quirk) }
            for link in preset.documentation { add("docs", link) }
        }
        return lines
    }

    /// The presets for programs: `{"v": 1, "providers": [...]}`.
    static var json: JSONObject {
        func strings(_ list: [String]) -> JSONValue { .array(list.map(JSONValue.string)) }
        func string(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
        let providers: [JSONValue] = ProviderPreset.all.map { preset in
            .object([
                "name": .string(preset.name),
                "title": .string(preset.title),
                "settings": .array(
                    preset.parameters.map { setting in
                        .object([
                            "option": .string(LoginSettings.option(for: setting.parameter)),
                            "placeholder": .string(placeholder(setting.parameter)),
                            "default": string(setting.defaultValue),
                            "required": .bool(setting.isRequired),
                            "meaning": .string(setting.meaning),
                        ])
                    }),
                "issuer": string(preset.issuerTemplate),
                "issuer_needs_tenant_id": .bool(preset.issuerNeedsTenantID),
                "device_authorization_endpoint": string(preset.templates.deviceAuthorization),
                "token_endpoint": string(preset.templates.token),
                "revocation_endpoint": string(preset.templates.revocation),
                "userinfo_endpoint": string(preset.templates.userinfo),
                "default_scopes": preset.defaultScopes.map(strings) ?? .null,
                "allowed_scopes": preset.allowedScopes.map(strings) ?? .null,
                "expected_parameters": strings(preset.expectedParameters.keys.sorted()),
                "requires_client_secret": .bool(preset.requiresClientSecret),
                "client_authentication": string(preset.clientAuthentication?.rawValue),
                "quirks": strings(preset.quirks),
                "documentation": strings(preset.documentation),
            ])
        }
        return ["v": .number(1), "providers": .array(providers)]
    }
}
