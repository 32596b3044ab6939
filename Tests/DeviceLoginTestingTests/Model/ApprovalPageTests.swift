import Testing

@testable import DeviceLoginTesting

@Suite("ApprovalPage")
struct ApprovalPageTests {
    @Test("escape replaces the five HTML-significant characters")
    func escaping() {
        #expect(ApprovalPage.escape(#"<a href="x">'&'</a>"#) == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        #expect(ApprovalPage.escape("WDJB-MJHT") == "WDJB-MJHT")
    }

    @Test("the form prefills the code, posts to the page, and offers Approve and Deny")
    func form() {
        let page = ApprovalPage.form(action: "http://127.0.0.1:8080/device", userCode: "WDJB-MJHT")
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(page.contains(#"<form method="post" action="http://127.0.0.1:8080/device">"#))
        #expect(page.contains(#"name="user_code" value="WDJB-MJHT""#))
        #expect(page.contains(#"<button type="submit" name="action" value="approve">Approve</button>"#))
        #expect(page.contains(#"<button type="submit" name="action" value="deny">Deny</button>"#))
    }

    @Test("text from the request is escaped in the form and in every result page")
    func hostileInput() {
        let hostile = #""><script>alert(1)</script>"#
        let pages =
            [ApprovalPage.form(action: "/device", userCode: hostile)]
            + [MockServerState.DecisionOutcome.approved, .denied, .unknownCode, .expired, .alreadyDecided]
            .map { ApprovalPage.result($0, userCode: hostile) }
        for page in pages {
            #expect(page.contains("<script>") == false)
            #expect(page.contains("&lt;script&gt;"))
        }
    }

    @Test("each outcome has its own title")
    func titles() {
        let titles: [(MockServerState.DecisionOutcome, String)] = [
            (.approved, "Device approved"), (.denied, "Request denied"), (.unknownCode, "Unknown code"),
            (.expired, "Code expired"), (.alreadyDecided, "Already answered"),
        ]
        for (outcome, title) in titles {
            #expect(ApprovalPage.result(outcome, userCode: "X").contains("<h1>\(title)</h1>"))
        }
    }
}
