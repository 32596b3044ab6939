#if canImport(CCurl)

extension CurlTransport {
    /// The proxy settings for one request, read from the environment by curl's own rules.
    ///
    /// The transport always hands libcurl an explicit proxy (an empty one meaning "none") rather than letting
    /// libcurl read the environment itself, so that the rules are written down here, and tests can supply an
    /// environment without changing the process's.
    ///
    /// - `https` URLs use `https_proxy`, then `HTTPS_PROXY`, then `all_proxy`, then `ALL_PROXY`.
    /// - `http` URLs use `http_proxy`, then `all_proxy`, then `ALL_PROXY`. Upper-case `HTTP_PROXY` is ignored on
    ///   purpose, as curl does: CGI servers put a request's `Proxy:` header into `HTTP_PROXY` ("httpoxy").
    /// - `no_proxy`, else `NO_PROXY`, lists hosts reached directly; libcurl matches it (`*`, domain suffixes,
    ///   addresses and CIDR ranges).
    /// - A variable set to the empty string counts as unset.
    struct ProxySettings: Sendable, Hashable {
        /// The proxy URL, or the empty string for a direct connection.
        var proxy: String
        /// The hosts to reach without the proxy, in curl's `no_proxy` syntax, if given.
        var noProxy: String?

        /// Creates settings from their values.
        init(proxy: String, noProxy: String?) {
            self.proxy = proxy
            self.noProxy = noProxy
        }

        /// Reads the settings for a URL scheme from an environment.
        /// - Parameters:
        ///   - scheme: The request's URL scheme, lower-cased (`http` or `https`).
        ///   - environment: Looks a variable up by its exact name.
        init(scheme: String, environment: (String) -> String?) {
            let proxyNames =
                scheme == "https"
                ? ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
                : ["http_proxy", "all_proxy", "ALL_PROXY"]
            func firstSet(_ names: [String]) -> String? {
                for name in names {
                    if let value = environment(name), !value.isEmpty { return value }
                }
                return nil
            }
            proxy = firstSet(proxyNames) ?? ""
            noProxy = firstSet(["no_proxy", "NO_PROXY"])
        }
    }
}
#endif
