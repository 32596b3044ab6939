import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension LoginSettings {
    /// The `login` options of provider presets (``ProviderPreset``): the preset and the settings presets take.
    static let providerOptions: [OptionSpec] = [
        .value(
            "provider", "NAME",
            "Fill the endpoints and quirks of a known provider: "
                + ProviderPreset.names.joined(separator: ", ") + " (see `device-login providers`).",
            choices: ProviderPreset.names),
        .value(
            "host", "URL", "With --provider github, gitlab or keycloak: the server (default github.com, gitlab.com)."),
        .value("tenant", "TENANT", "With --provider microsoft: the tenant (default organizations)."),
        .value("domain", "DOMAIN", "With --provider auth0 or okta: the tenant's or org's domain."),
        .value("realm", "REALM", "With --provider keycloak: the realm."),
        .value("auth-server", "ID", "With --provider okta: the authorization server (default default)."),
    ]

    /// The option of each preset setting.
    static let providerSettingOptions: [(parameter: ProviderPreset.Parameter, option: String)] = [
        (.host, "host"), (.tenant, "tenant"), (.domain, "domain"), (.realm, "realm"),
        (.authorizationServer, "auth-server"),
    ]

    /// The preset `--provider` names, with the settings given to it; nil without `--provider`.
    /// - Throws: ``UsageError`` for an unknown preset, a setting given without `--provider` or to a preset that
    ///   does not take it, a required setting missing, or a value that cannot be one.
    static func provider(_ options: ParsedOptions, command: String) throws -> ResolvedProvider? {
        let given = providerSettingOptions.filter { options.has($0.option) }
        guard let name = options.value("provider") else {
            if let first = given.first {
                let source =
                    options.isFromEnvironment(first.option)
                    ? " (from \(OptionSpec.environmentVariable(first.option)))" : ""
                throw UsageError("--\(first.option)\(source) is only used with --provider", command: command)
            }
            return nil
        }
        guard let preset = ProviderPreset.named(name) else {
            throw UsageError(
                "unknown provider '\(name)': choose one of " + ProviderPreset.names.joined(separator: ", "),
                command: command)
        }
        for (parameter, option) in given where preset.setting(parameter) == nil {
            throw UsageError("--provider \(preset.name) takes no --\(option)", command: command)
        }
        for setting in preset.parameters where setting.isRequired {
            let option = Self.option(for: setting.parameter)
            guard options.has(option) else {
                throw UsageError(
                    "--provider \(preset.name) needs --\(option): \(setting.meaning)", command: command)
            }
        }
        var values: [ProviderPreset.Parameter: String] = [:]
        for (parameter, option) in given { values[parameter] = options.value(option) }
        let resolved: ResolvedProvider
        do {
            resolved = try preset.resolve(values)
        } catch let error as DeviceLoginError {
            let option = error.reason?.providerParameter.map { "--" + Self.option(for: $0) + ": " } ?? ""
            throw UsageError(option + error.message, command: command)
        }
        // A server given as plain http:// off loopback is refused here, naming its option, as the HTTPS policy
        // would refuse the sign-in's first request: a dry run says so too.
        for (parameter, option) in given where parameter == .host || parameter == .domain {
            guard let text = values[parameter], let url = URL(string: try parameter.normalize(text)) else { continue }
            try insecureHTTPCheck(url, option: option, allowed: options.flag("allow-insecure-http"))
        }
        return resolved
    }

    /// The option that gives `parameter`.
    static func option(for parameter: ProviderPreset.Parameter) -> String {
        providerSettingOptions.first { $0.parameter == parameter }?.option ?? parameter.rawValue
    }

    /// What to tell the user about a sign-in with `provider`: scopes its device flow refuses, parameters the usual
    /// use needs, a client secret it requires.
    static func providerWarnings(
        _ provider: ResolvedProvider, scopes: [String], parameters: [FormParameter], hasSecret: Bool
    ) -> [String] {
        var warnings: [String] = []
        let unsupported = provider.unsupportedScopes(scopes)
        if !unsupported.isEmpty, let allowed = provider.allowedScopes {
            warnings.append(
                "\(provider.title)'s device flow accepts only the scopes " + allowed.joined(separator: " ")
                    + "; it will refuse " + unsupported.joined(separator: " "))
        }
        for name in provider.missingParameters(parameters.map(\.name)) {
            warnings.append("no --param \(name)=...: " + (provider.expectedParameters[name] ?? "expected"))
        }
        if provider.requiresClientSecret, !hasSecret {
            warnings.append(
                "\(provider.title)'s token endpoint requires the client secret: give --client-secret-file "
                    + "(or --client-secret -)")
        }
        return warnings
    }
}
