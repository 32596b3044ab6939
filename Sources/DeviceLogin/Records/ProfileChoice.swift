/// Which saved profile serves a URL when none is named: the one rule that the CLI's fast lane and its full path
/// (the credential helpers' `get`) both follow, as a pure function of the profiles' bindings.
///
/// The profile whose `login --for` binding matches the URL best (``URLBinding/matchLength(_:)``: the longest path)
/// serves it. Two or more that match equally well are a tie, which the caller refuses rather than guess. A profile
/// that cannot be read is skipped — the caller warns about it — so that one broken file never stops git from
/// reaching the others; it is never chosen and never ties.
///
/// ```swift
/// switch ProfileChoice(serving: url, among: [("work", work.bindings), ("broken", nil)]) {
/// case .none: ...                      // git asks its next helper
/// case .profile(let name): ...         // load and answer for `name`
/// case .tie(let names, let binding): ... // refuse: names all serve binding
/// }
/// ```
package enum ProfileChoice: Sendable, Equatable {
    /// No readable profile is bound to the URL.
    case none
    /// The profile of this name serves the URL.
    case profile(String)
    /// These profiles (in the order given) serve the URL equally well, by `binding`: the first one's binding that
    /// matches best, to name in a message instead of the URL asked for.
    case tie([String], binding: URLBinding)

    /// Chooses the profile that serves `url`.
    /// - Parameters:
    ///   - url: The URL asked for.
    ///   - profiles: Each saved profile's name and bindings, nil for a profile that cannot be read.
    package init(serving url: URLBinding, among profiles: [(name: String, bindings: [URLBinding]?)]) {
        var best = 0
        var winners: [(name: String, binding: URLBinding)] = []
        for (name, bindings) in profiles {
            guard let bindings else { continue }
            var match: (binding: URLBinding, length: Int)?
            for binding in bindings {
                guard let length = binding.matchLength(url), length > (match?.length ?? -1) else { continue }
                match = (binding, length)
            }
            guard let match, match.length >= best else { continue }
            if match.length > best || winners.isEmpty { winners = [] }
            best = match.length
            winners.append((name, match.binding))
        }
        switch winners.count {
        case 0: self = .none
        case 1: self = .profile(winners[0].name)
        default: self = .tie(winners.map(\.name), binding: winners[0].binding)
        }
    }
}
