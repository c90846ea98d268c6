internal import Foundation
#if canImport(FoundationXML)
internal import FoundationXML
#endif

/// The one reader of S3's XML answers (list pages, error documents, `InitiateMultipartUploadResult`,
/// `CompleteMultipartUploadResult`), on a real XML parser (Foundation's `XMLParser`, libxml2): a body that is not
/// well-formed XML is refused as a whole rather than searched for the tags it happens to contain.
///
/// S3 never sends a document type declaration, so a body with one (`<!DOCTYPE`, `<!ENTITY`) is refused too: no
/// entity of the server's choosing is expanded.
enum S3XML {
    /// One element: its name (namespace prefix dropped), its text (character data directly inside it, entities
    /// decoded) and its child elements in order.
    struct Element: Sendable, Equatable {
        /// The local name (`Key`, `Contents`, …).
        var name: String
        /// The text directly inside it.
        var text = ""
        /// Its child elements.
        var children: [Element] = []

        /// The first child named `name`.
        func child(_ name: String) -> Element? { children.first { $0.name == name } }
        /// Every child named `name`, in order.
        func children(_ name: String) -> [Element] { children.filter { $0.name == name } }
        /// The text of the first child named `name`.
        func value(_ name: String) -> String? { child(name)?.text }
    }

    /// Parses `data` into its root element.
    /// - Returns: the root, or why the body is not a well-formed XML document (a sentence fragment for messages).
    static func parse(_ data: Data) -> Result<Element, ParseFailure> {
        if data.isEmpty { return .failure(ParseFailure("the body is empty")) }
        for declaration in ["<!DOCTYPE", "<!ENTITY", "<!doctype", "<!entity"] where data.range(of: Data(declaration.utf8)) != nil {
            return .failure(ParseFailure("the body declares a document type (\(declaration)), which S3 never sends"))
        }
        let parser = XMLParser(data: data)
        let builder = S3XMLTreeBuilder()
        parser.delegate = builder
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        let finished = parser.parse()
        // libxml2 reports some errors (a mismatched end tag, text after the root) and still returns true.
        if !finished || parser.parserError != nil || builder.failed {
            let line = parser.lineNumber
            let code = (parser.parserError as NSError?)?.code ?? -1
            return .failure(ParseFailure("the body is not well-formed XML (parser error \(code) near line \(line))"))
        }
        guard let root = builder.root else { return .failure(ParseFailure("the body holds no XML element")) }
        return .success(root)
    }

    /// Why a body is not a document S3 sends.
    struct ParseFailure: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, for a message.
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The `Code` and `Message` of an S3 error document (`<Error><Code>…</Code><Message>…</Message></Error>`),
    /// or `nil` when `data` is not one.
    static func error(in data: Data) -> (code: String, message: String?)? {
        guard case .success(let root) = parse(data), root.name == "Error", let code = root.value("Code"), !code.isEmpty else {
            return nil
        }
        return (code, root.value("Message"))
    }

    /// `text` with `&`, `<`, `>` and `"` escaped, for the one XML body the publisher writes.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

/// Builds the ``S3XML/Element`` tree from the parser's events (an element stack; the finished root).
private final class S3XMLTreeBuilder: NSObject, XMLParserDelegate {
    /// The elements open now, outermost first.
    var stack: [S3XML.Element] = []
    /// The finished root element.
    var root: S3XML.Element?
    /// Whether the parser reported an error, or a second root element came.
    var failed = false
    /// Elements seen so far: a body deeper or larger than any S3 answer is refused.
    private var count = 0

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
        attributes attributeDict: [String: String] = [:]
    ) {
        count += 1
        if root != nil || stack.count >= 32 || count > 4_000_000 {
            failed = true
            parser.abortParsing()
            return
        }
        let local = elementName.split(separator: ":").last.map(String.init) ?? elementName
        stack.append(S3XML.Element(name: local))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard let element = stack.popLast() else {
            failed = true
            return
        }
        if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(element) }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self)
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) { failed = true }

    func parser(_ parser: XMLParser, validationErrorOccurred validationError: any Error) { failed = true }
}
