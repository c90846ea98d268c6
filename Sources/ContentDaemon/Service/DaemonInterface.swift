/// The daemon's protocol described by itself: an OpenRPC 1.3 document (the JSON-RPC world's OpenAPI) naming every
/// method with its params and result, and every notification (a method without a result, tagged `notification`)
/// with its params. `rpc.discover` answers with it; `docs/openrpc.json` is it, written by
/// `iapcontent daemon --openrpc` (a test keeps the two, the method table and the README equal).
enum DaemonInterface {
    /// The whole document.
    static var document: JSONValue {
        [
            "openrpc": "1.3.2",
            "info": [
                "title": "iapcontent daemon",
                "version": "1",
                "description": .string(protocolDescription),
            ],
            "methods": .array(methods + notifications),
            "components": ["schemas": schemas],
        ]
    }

    /// How to talk to it, beyond each method.
    static let protocolDescription = """
        JSON-RPC 2.0 over a Unix stream socket ($XDG_RUNTIME_DIR/iapcontent/daemon.sock unless --socket; same user \
        only). One message a line: a request object, or a batch (an array of them, answered by one array holding \
        the answers of its calls with an id; `[]` is one -32600 error; a batch of notifications gets no answer). A \
        line is at most 1 MiB (1048576 bytes); a longer one is skipped and answered with -32600. Params are by \
        name. Errors: -32700 not JSON, -32600 not a request, -32601 unknown method, -32602 wrong params (naming the \
        member), -32001 another user, -32000 the queue refused, with its stable code in error.data.code: the \
        library's, the same a download's error and the CLI's --json errors carry (catalog, network, httpStatus, \
        checksumMismatch, insufficientSpace, notInstalled, unknownPack, essentialPack, selectionUnreadable, \
        noManifest, stoppedPlanning, an install refusal's own such as unsafeEntry, archiveMismatch or \
        refusedManifest, and the queue's: unknownProduct, unknownTransaction, downloadsInFlight, closed, …). The queue \
        runs one download per product, which every unfinished transaction of the product shares: each change of \
        it is one notification, naming every transaction it serves in transactionIDs (none for the download of a \
        repair, a pack request or a variant switch, which no transaction asked for).
        """

    static var methods: [JSONValue] {
        [
            method("add", """
                Adds a verified purchase and starts its download (finished at once when installed at the catalog's \
                version). The id of an unfinished transaction again returns it; if its download was cancelled or \
                failed, the download starts again from nothing (cancelled) or from its bytes (failed). An empty \
                transactionID is refused (emptyTransactionID); an unfinished one with another product too \
                (transactionReused).
                """, params: [param("transactionID", string), param("productID", string)], result: ref("Transaction")),
            method("restore", "Restores the history's products whose content is missing or old; with entitlements, reconciles the store with a signed entitlements document (restoring and removing).",
                   params: [param("entitlements", string, required: false)],
                   result: object(["restored": array(ref("Transaction")), "removed": array(string)])),
            method("pause", "Pauses the product's download; answers once its transfer stopped: downloadedBytes is what was kept, and what resume continues from.",
                   params: [productID], result: ref("Download")),
            method("resume", "Resumes a paused download from its kept bytes.", params: [productID], result: ref("Download")),
            method("cancel", "Cancels the product's download and deletes its partial data; answers once the transfer stopped and its files are gone, so an add (a new transaction) or start right after it starts cleanly. Every unfinished transaction of the product shares the download, so all see it cancelled.",
                   params: [productID], result: ref("Download")),
            method("start", "Starts the product's download again: a waiting one is admitted, a failed one continues from its bytes, a cancelled one starts from nothing.",
                   params: [productID], result: ref("Download")),
            method("status", "Unfinished transactions with their downloads, and installed content.", params: [], result: ref("Status")),
            method("content", "The installed version and folder of a product (null when not installed).", params: [productID], result: ref("Installed")),
            method("delete", "Deletes a product's installed content; subscribers hear content.removed.", params: [productID],
                   result: object(["deleted": boolean])),
            method("verify", "Checks the installed content against its manifest.", params: [productID], result: ref("Verification")),
            method("repair", "Verifies, then fetches back what is damaged or missing.", params: [productID], result: ref("Verification")),
            method("updates", "Installed products with a newer catalog version.", params: [], result: array(ref("Update"))),
            method("finish", "Finishes a transaction whose downloads are finished, failed or cancelled; with cancelDownloads true, cancels those still in flight first. Refused while downloads are in flight (downloadsInFlight).",
                   params: [param("transactionID", string), param("cancelDownloads", boolean, required: false)],
                   result: object(["finished": string])),
            method("reloadCatalog", "Loads the catalog again (refused when the daemon has no catalog).", params: [],
                   result: object(["catalogVersion": integer])),
            method("packs", "The packs of an installed product, the core pack first: policy, whether installed, bytes and the most a request fetches.",
                   params: [productID], result: array(ref("PackStatus"))),
            method("requestPacks", """
                Installs packs of an installed product (on-demand or prefetch) in one download, keeping what is \
                installed; like repair, answers once they are installed, with the packs. The download shows to \
                subscribers as any download (productID, empty transactionIDs), then packs.changed.
                """, params: [productID, param("packs", array(string))], result: array(ref("PackStatus"))),
            method("changeSelection", """
                Changes what an installed product holds in one atomic swap that fetches only chunks not on disk: \
                packs added, packs removed (essential packs stay), and this device's values per variant axis, \
                most preferred first ({"language": ["fr"]}). Answers once installed, with the packs; on failure the \
                old selection stays. A change an earlier daemon left unfinished (a crash) is replaced by this one, \
                or awaited when it goes to the same selection; packs and values not given are taken from where that \
                change was going. Notified like requestPacks.
                """,
                   params: [productID, param("packs", array(string), required: false), param("remove", array(string), required: false),
                            param("select", ["type": "object", "additionalProperties": array(string)], required: false)],
                   result: array(ref("PackStatus"))),
            method("subscribe", "Starts the notifications for this connection; answers with the status as it is once they started (a change meanwhile may be told twice, never missed), and every download the store holds, once each with the unfinished transactions it serves (none for a download no transaction asked for: a repair, an update).",
                   params: [], result: ref("Subscription")),
            method("unsubscribe", "Stops the notifications for this connection.", params: [], result: object(["subscribed": boolean])),
            method("rpc.discover", "This document.", params: [], result: object([:])),
        ]
    }

    // MARK: Building blocks

    static func method(_ name: String, _ summary: String, params: [JSONValue], result: JSONValue?) -> JSONValue {
        var members: [String: JSONValue] = ["name": .string(name), "summary": .string(summary), "params": .array(params),
                                            "paramStructure": "by-name"]
        if let result { members["result"] = ["name": .string(name + ".result"), "schema": result] }
        return .object(members)
    }

    static func param(_ name: String, _ schema: JSONValue, required: Bool = true) -> JSONValue {
        ["name": .string(name), "required": .bool(required), "schema": schema]
    }

    static let productID = param("productID", string)
    static let string: JSONValue = ["type": "string"]
    static let boolean: JSONValue = ["type": "boolean"]
    static let integer: JSONValue = ["type": "integer"]
    static let number: JSONValue = ["type": "number"]

    static func ref(_ schema: String) -> JSONValue { ["$ref": .string("#/components/schemas/" + schema)] }
    static func array(_ items: JSONValue) -> JSONValue { ["type": "array", "items": items] }
    static func nullable(_ schema: JSONValue) -> JSONValue { ["oneOf": [schema, ["type": "null"]]] }

    /// An object whose members are all required.
    static func object(_ properties: [String: JSONValue]) -> JSONValue {
        ["type": "object", "properties": .object(properties), "required": .array(properties.keys.sorted().map { .string($0) })]
    }
}
