import Foundation
import Hummingbird
import Mustache
import TesseraCore

/// The server's one HTML renderer: the console's and account page's templates
/// (`ConsoleTemplates`, in the shared layout) and every other page's (`PageTemplates`, from
/// the view models of `Pages`), answered with the strict Content-Security-Policy of every page.
struct WebPages: Sendable {
    let library: MustacheLibrary

    /// The templates, parsed once.
    static let shared = WebPages()

    /// Escapes a value for HTML as Mustache's own HTML type does (the same five characters),
    /// on the UTF-8 bytes (`Pages.escape`): Mustache's reads every Character through a
    /// dictionary, a fifth of the login page's rendering.
    struct ByteEscapedHTML: MustacheContentType {
        func escapeText(_ text: String) -> String { Pages.escape(text) }
    }

    /// Each template starts by naming the escaping it renders its values with.
    static let escaping = "{{% CONTENT_TYPE: TESSERA_HTML}}"

    private init() {
        MustacheContentTypes.register(ByteEscapedHTML(), named: "TESSERA_HTML")
        var library = MustacheLibrary()
        precondition(Set(ConsoleTemplates.all.keys).isDisjoint(with: PageTemplates.all.keys), "two templates share a name")
        for (name, text) in ConsoleTemplates.all.merging(PageTemplates.all, uniquingKeysWith: { first, _ in first }) {
            do {
                try library.register(Self.escaping + text, named: name)
                // The same template inside its layout's model (`render`).
                try library.register(Self.escaping + "{{#layout}}{{#page}}{{>\(name)}}{{/page}}{{/layout}}", named: Self.inLayout(name))
                // The same template under a page's look (`Pages.render`).
                try library.register(Self.escaping + "{{#look}}{{#page}}{{>\(name)}}{{/page}}{{/look}}", named: Self.dressed(name))
            } catch {
                preconditionFailure("the template \(name) does not parse: \(error)")
            }
        }
        self.library = library
    }

    private static func inLayout(_ template: String) -> String { "in-layout/" + template }

    static func dressed(_ template: String) -> String { "dressed/" + template }

    /// What a console or account template is rendered from: the page's view model inside
    /// its layout's (a name the page lacks, or has as nil, is looked up in the layout),
    /// and the fields a refused form's problem is about.
    private struct Rendering<Layout, Page> {
        let layout: Layout
        let page: Page
        let errors: [String: FieldProblem]
    }

    /// What the layout shows around the page: the title, a refused form's problem that
    /// names no field, and the page itself.
    private struct Frame {
        let title: String
        let error: String?
        let content: String
    }

    /// A page: `template` rendered from `page` inside `layout`, with the problem of a
    /// refused form (beside its field, or at the top) and its status.
    func render<Layout, Page>(
        _ template: String, title: String, page: Page, layout: Layout, problem: FormProblem? = nil, status: HTTPResponse.Status = .ok
    ) -> Response {
        let errors = problem.flatMap { problem in problem.field.map { [$0: FieldProblem(name: $0, message: problem.message)] } } ?? [:]
        let content = library.render(Rendering(layout: layout, page: page, errors: errors), withTemplate: Self.inLayout(template)) ?? ""
        let frame = Frame(title: title, error: problem.flatMap { $0.field == nil ? $0.message : nil }, content: content)
        let html = library.render(Rendering(layout: layout, page: frame, errors: [:]), withTemplate: Self.inLayout("layout")) ?? ""
        return HTMLResponse.make(html, status: problem?.status ?? status)
    }

    /// An SVG bar chart of logins (and failures) per hour: drawn here, no script.
    static func chart(logins: [Int], failures: [Int], label: String, words: Words) -> String {
        let width = 480
        let height = 120
        let count = max(logins.count, 1)
        let top = max(1, zip(logins, failures).map { $0 + $1 }.max() ?? 1)
        let slot = Double(width) / Double(count)
        var bars = ""
        for index in 0..<logins.count {
            let x = Double(index) * slot + 1
            let ok = Double(logins[index]) / Double(top) * Double(height - 20)
            let failed = Double(failures[index]) / Double(top) * Double(height - 20)
            let base = Double(height - 14)
            let loginsTitle = Pages.escape(words("console.chart.logins", ["count": words.number(logins[index])]))
            bars += String(format: "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#2f4fd8\">", x, base - ok, max(slot - 2, 1), ok)
                + "<title>\(loginsTitle)</title></rect>"
            if failures[index] > 0 {
                let failuresTitle = Pages.escape(words("console.chart.failures", ["count": words.number(failures[index])]))
                bars += String(
                    format: "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#b42318\">", x, base - ok - failed, max(slot - 2, 1), failed)
                    + "<title>\(failuresTitle)</title></rect>"
            }
        }
        let total = logins.reduce(0, +)
        let failed = failures.reduce(0, +)
        let summary = words("console.chart.label", ["name": label, "logins": words.number(total), "failures": words.number(failed)])
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(width) \(height)" role="img" aria-label="\(Pages.escape(summary))">\
            <line x1="0" y1="\(height - 14)" x2="\(width)" y2="\(height - 14)" stroke="#b8bfcc"/>\(bars)\
            <text x="0" y="\(height - 2)" font-size="10" fill="#5b6475">\(Pages.escape(words("console.chart.ago")))</text>\
            <text x="\(width)" y="\(height - 2)" font-size="10" fill="#5b6475" text-anchor="end">\(Pages.escape(words("console.chart.now")))</text></svg>
            """
    }
}
