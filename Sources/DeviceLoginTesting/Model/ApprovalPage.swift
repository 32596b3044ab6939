/// The small HTML approval page served at the verification URI: a form, and the page that answers it.
///
/// Every piece of text that comes from a request is HTML-escaped.
enum ApprovalPage {
    /// The form: the user code (prefilled when the URI carried one) with Approve and Deny buttons.
    /// - Parameters:
    ///   - action: The absolute URL the form posts to.
    ///   - userCode: The code to prefill, as received.
    static func form(action: String, userCode: String) -> String {
        page(
            title: "Connect a device",
            body: """
                <h1>Connect a device</h1>
                <p>Enter the code shown on your device, then approve or deny its request.</p>
                <form method="post" action="\(escape(action))">
                <label for="user_code">Code</label>
                <input id="user_code" name="user_code" value="\(escape(userCode))" autocomplete="off" \
                autocapitalize="characters" spellcheck="false" required>
                <button type="submit" name="action" value="approve">Approve</button>
                <button type="submit" name="action" value="deny">Deny</button>
                </form>
                """)
    }

    /// The page shown after the form was posted.
    static func result(_ outcome: MockServerState.DecisionOutcome, userCode: String) -> String {
        let code = "<code>\(escape(userCode))</code>"
        let title: String
        let message: String
        switch outcome {
        case .approved:
            title = "Device approved"
            message = "The device with code \(code) is now signed in. You may close this page."
        case .denied:
            title = "Request denied"
            message = "The request of the device with code \(code) was denied."
        case .unknownCode:
            title = "Unknown code"
            message = "No device is waiting with the code \(code). Check the code and try again."
        case .expired:
            title = "Code expired"
            message = "The code \(code) has expired. Start again on your device."
        case .alreadyDecided:
            title = "Already answered"
            message = "The request with code \(code) was already approved or denied."
        }
        return page(title: title, body: "<h1>\(title)</h1>\n<p>\(message)</p>")
    }

    /// Escapes text for HTML element content and double-quoted attribute values.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    private static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}\
        input{font:1.5rem monospace;letter-spacing:.1em;text-transform:uppercase}\
        button{font-size:1rem;margin:.5rem}</style>
        </head>
        <body>
        \(body)
        </body>
        </html>

        """
    }
}
