extension ProviderPreset {
    /// Every preset, in the order they are listed.
    public static let all: [ProviderPreset] = [github, gitlab, google, microsoft, auth0, okta, keycloak]

    /// GitHub and GitHub Enterprise Server: no discovery, the documented paths on the host.
    public static let github = ProviderPreset(
        name: "github",
        title: "GitHub (and GitHub Enterprise Server)",
        parameters: [
            Setting(
                parameter: .host, defaultValue: "https://github.com",
                meaning: "the GitHub Enterprise Server host, for one other than github.com")
        ],
        issuerTemplate: nil,
        templates: Templates(
            deviceAuthorization: "{host}/login/device/code", token: "{host}/login/oauth/access_token",
            authorization: "{host}/login/oauth/authorize"),
        defaultScopes: nil, allowedScopes: nil, expectedParameters: [:], requiresClientSecret: false,
        clientAuthentication: nil,
        quirks: [
            "No discovery: the endpoints are GitHub's documented paths, the same on GitHub Enterprise Server.",
            "Answers form-encoded unless asked for JSON; device-login asks for JSON and reads either.",
            "Refusals come with HTTP 200, and slow_down carries the new interval, which is honoured.",
            "Device Flow must be enabled in the app's settings, or GitHub answers device_flow_disabled.",
            "No scopes by default: a GitHub App acts with its permissions; an OAuth app asks for scopes (repo).",
            "An OAuth app's tokens do not expire; a GitHub App's user tokens expire after 8 hours and come with a "
                + "refresh token that each refresh replaces.",
            "No revocation or userinfo endpoint in the OAuth sense.",
        ],
        documentation: [
            "https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps#device-flow",
            "https://docs.github.com/en/apps/creating-github-apps/authenticating-with-a-github-app/"
                + "refreshing-user-access-tokens",
        ],
        issuerNeedsTenantID: false
    )

    /// GitLab.com or a self-managed GitLab: discovery, but the device endpoint given, since discovery omits it.
    public static let gitlab = ProviderPreset(
        name: "gitlab",
        title: "GitLab (gitlab.com or self-managed, 17.1 and later)",
        parameters: [
            Setting(
                parameter: .host, defaultValue: "https://gitlab.com",
                meaning: "the GitLab instance, for one other than gitlab.com")
        ],
        issuerTemplate: "{host}",
        templates: Templates(deviceAuthorization: "{host}/oauth/authorize_device"),
        defaultScopes: ["openid", "profile"], allowedScopes: nil, expectedParameters: [:], requiresClientSecret: false,
        clientAuthentication: nil,
        quirks: [
            "Discovery omits the device authorization endpoint: the preset gives /oauth/authorize_device.",
            "offline_access is not a GitLab scope (GitLab issues a refresh token anyway): the default is openid "
                + "profile; add GitLab's own scopes (read_user, read_repository, api) as needed.",
            "The application must be registered with the Device Authorization Grant enabled.",
        ],
        documentation: ["https://docs.gitlab.com/api/oauth2/#device-authorization-grant-flow"],
        issuerNeedsTenantID: false
    )

    /// Google: discovery; only a short list of scopes in the device flow, and the client secret is required.
    public static let google = ProviderPreset(
        name: "google",
        title: "Google",
        parameters: [],
        issuerTemplate: "https://accounts.google.com",
        templates: Templates(),
        defaultScopes: ["openid", "email", "profile"],
        allowedScopes: [
            "openid", "email", "profile",
            "https://www.googleapis.com/auth/drive.appdata", "https://www.googleapis.com/auth/drive.file",
            "https://www.googleapis.com/auth/youtube", "https://www.googleapis.com/auth/youtube.readonly",
        ],
        expectedParameters: [:], requiresClientSecret: true, clientAuthentication: .clientSecretPost,
        quirks: [
            "The device flow accepts only openid, email, profile, drive.appdata, drive.file, youtube and "
                + "youtube.readonly; Google refuses any other scope.",
            "offline_access is not a Google scope: a refresh token comes without it.",
            "The client is of type \"TVs and Limited Input devices\"; its token requests need its client secret, "
                + "sent in the form body as Google's documentation shows.",
            "The device authorization response says verification_url, not verification_uri; both are read.",
        ],
        documentation: ["https://developers.google.com/identity/protocols/oauth2/limited-input-device"],
        issuerNeedsTenantID: false
    )

    /// Microsoft Entra ID (the v2.0 endpoints): no discovery for the multi-tenant names.
    public static let microsoft = ProviderPreset(
        name: "microsoft",
        title: "Microsoft Entra ID",
        parameters: [
            Setting(
                parameter: .tenant, defaultValue: "organizations",
                meaning: "the tenant: organizations, common, consumers, a tenant ID or a domain name")
        ],
        issuerTemplate: "https://login.microsoftonline.com/{tenant}/v2.0",
        templates: Templates(
            deviceAuthorization: "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/devicecode",
            token: "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/token",
            userinfo: "https://graph.microsoft.com/oidc/userinfo"),
        defaultScopes: ["openid", "profile", "offline_access"], allowedScopes: nil, expectedParameters: [:],
        requiresClientSecret: false, clientAuthentication: nil,
        quirks: [
            "The device authorization response carries a message for the user; it repeats the code and page, and "
                + "device-login's own prompt, which names the page's host, stands in for it.",
            "Refusals carry AADSTS codes; AADSTS53003 means Conditional Access blocked the device code flow.",
            "The app registration must allow public client flows.",
            "With organizations, common or consumers the tokens' issuer is the person's own tenant, so there is no "
                + "discovery and the ID token cannot be verified; give the tenant ID (a GUID) to have it verified.",
            "No verification_uri_complete: the code is always typed.",
        ],
        documentation: ["https://learn.microsoft.com/entra/identity-platform/v2-oauth2-device-code"],
        issuerNeedsTenantID: true
    )

    /// Auth0: discovery; an access token for an API needs its `audience`.
    public static let auth0 = ProviderPreset(
        name: "auth0",
        title: "Auth0",
        parameters: [
            Setting(parameter: .domain, defaultValue: nil, meaning: "the tenant's domain (tenant.us.auth0.com)")
        ],
        issuerTemplate: "{domain}/",
        templates: Templates(),
        defaultScopes: nil, allowedScopes: nil,
        expectedParameters: [
            "audience": "without it the access token is good only for Auth0's own userinfo endpoint; give the "
                + "identifier of the API the token is for"
        ],
        requiresClientSecret: false, clientAuthentication: nil,
        quirks: [
            "Without the audience parameter the access token is only good for Auth0's userinfo: give the API's "
                + "identifier as audience.",
            "The application must be Native, with the Device Code grant enabled.",
            "A refresh token needs offline_access and the API's Allow Offline Access setting.",
        ],
        documentation: [
            "https://auth0.com/docs/get-started/authentication-and-authorization-flow/device-authorization-flow",
            "https://auth0.com/docs/api/authentication/device-authorization-flow/authorize-device",
        ],
        issuerNeedsTenantID: false
    )

    /// Okta: a custom authorization server (`default` unless another is given), found by discovery.
    public static let okta = ProviderPreset(
        name: "okta",
        title: "Okta",
        parameters: [
            Setting(parameter: .domain, defaultValue: nil, meaning: "the Okta domain (dev-1234.okta.com)"),
            Setting(
                parameter: .authorizationServer, defaultValue: "default",
                meaning: "the custom authorization server's ID"),
        ],
        issuerTemplate: "{domain}/oauth2/{auth-server}",
        templates: Templates(),
        defaultScopes: nil, allowedScopes: nil, expectedParameters: [:], requiresClientSecret: false,
        clientAuthentication: nil,
        quirks: [
            "The application must be a native OIDC app with the Device Authorization grant; on a custom "
                + "authorization server its policy rule must allow that grant too.",
            "For the org authorization server, give its issuer (https://DOMAIN) instead of a preset.",
        ],
        documentation: ["https://developer.okta.com/docs/guides/device-authorization-grant/main/"],
        issuerNeedsTenantID: false
    )

    /// Keycloak: a realm, found by discovery.
    public static let keycloak = ProviderPreset(
        name: "keycloak",
        title: "Keycloak",
        parameters: [
            Setting(
                parameter: .host, defaultValue: nil,
                meaning: "the Keycloak server's base URL (with /auth for Keycloak 16 and older)"),
            Setting(parameter: .realm, defaultValue: nil, meaning: "the realm"),
        ],
        issuerTemplate: "{host}/realms/{realm}",
        templates: Templates(),
        defaultScopes: nil, allowedScopes: nil, expectedParameters: [:], requiresClientSecret: false,
        clientAuthentication: nil,
        quirks: [
            "Discovery names the device endpoint, /realms/REALM/protocol/openid-connect/auth/device.",
            "The client must have OAuth 2.0 Device Authorization Grant enabled in its capability config.",
        ],
        documentation: ["https://www.keycloak.org/securing-apps/oidc-layers"],
        issuerNeedsTenantID: false
    )
}
