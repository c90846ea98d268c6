extension DaemonInterface {
    /// Every notification: a method without a result, tagged `notification`; each params object also carries `time`
    /// (when it was sent, seconds since 1970) and `sequence` (1, 2, 3… over the daemon's life: a gap means a
    /// notification was missed; an unread progress notification replaced by its download's next one is one).
    static var notifications: [JSONValue] {
        let download: [String: JSONValue] = ["download": ref("Download"), "transactionIDs": array(string)]
        return [
            notification("transaction", "A transaction was added, delivered again (at start) or finished.", ["transaction": ref("Transaction")]),
            notification("download.state", "A download's state, error or folder changed (never dropped).", download),
            notification("download.progress", "A download's bytes moved or its time remaining changed: the first as soon as a transfer's first bytes arrive (within 300 ms of add on loopback), then every 0.25 s while bytes move, at most 10 a second per download; never more bytes than a pause or a restart keeps; while a client has not read one, a newer one replaces it.", download),
            notification("download.finished", "A download was installed.", download.merging(["contentURL": string]) { $1 }),
            notification("download.error", "A download failed.", download.merging(["error": ref("Error")]) { $1 }),
            notification("content.removed", "Installed content was removed: `delete`, or its entitlement was withdrawn.", ["productIDs": array(string)]),
            notification("packs.changed", "An installed product's packs or variants changed (requestPacks, changeSelection): its packs now.",
                         ["productID": string, "packs": array(ref("PackStatus"))]),
            notification("update.available", "A catalog the daemon loaded (its periodic update check, or reloadCatalog) offers an installed product a newer version; once per version.",
                         ["update": ref("Update")]),
            notification("entitlements.reconciled", "The outcome of reconciling with the entitlements, or why they were refused.",
                         ["restored": array(string), "removed": array(string), "refusal": nullable(ref("Error"))]),
        ]
    }

    static func notification(_ name: String, _ summary: String, _ params: [String: JSONValue]) -> JSONValue {
        let stamped = params.merging(["time": number, "sequence": integer]) { $1 }
        return [
            "name": .string(name), "summary": .string(summary), "paramStructure": "by-name",
            "tags": [["name": "notification"]],
            "params": .array(stamped.keys.sorted().map { param($0, stamped[$0]!) }),
        ]
    }

    /// The shapes methods and notifications share.
    static var schemas: JSONValue {
        [
            "Download": object([
                "transactionID": string, "productID": string, "contentIdentifier": string, "contentVersion": string,
                "state": ["type": "string", "enum": ["waiting", "active", "paused", "finished", "failed", "cancelled"]],
                "downloadedBytes": integer, "expectedContentLength": integer,
                "progress": ["type": "number", "minimum": 0, "maximum": 1],
                "timeRemaining": ["type": "number", "description": "seconds, at the rate of the last 3 s of the running transfer (bytes on disk when it began never count); -1 while unknown: not running, its first 0.2 s, or no byte for 5 s"],
                "contentURL": nullable(string), "error": nullable(ref("Error")),
            ]),
            "Transaction": object([
                "id": string, "productID": string, "kind": ["type": "string", "enum": ["purchase", "restore"]],
                "state": ["type": "string", "enum": ["purchased", "restored", "finished"]], "downloads": array(ref("Download")),
            ]),
            "Error": object(["code": string, "message": string]),
            "PackStatus": object([
                "id": string, "policy": ["type": "string", "enum": ["essential", "prefetch", "onDemand"]], "installed": boolean,
                "bytes": integer, "bytesToFetch": ["type": "integer", "description": "archive bytes installing it fetches at most; 0 when installed"],
                "variants": array(ref("VariantChoice")),
            ]),
            "VariantChoice": object([
                "path": ["type": "string", "description": "where the variants install, e.g. Contents/Voices"],
                "axis": string,
                "installed": nullable(["type": "string", "description": "the value installed; null for the untagged folder or a pack not installed"]),
                "preferred": nullable(["type": "string", "description": "the value this device's profile chooses now; null for the untagged folder"]),
                "values": array(string),
            ]),
            "Installed": object(["productID": string, "version": nullable(string), "contentURL": nullable(string)]),
            "Status": object(["transactions": array(ref("Transaction")), "installed": array(ref("Installed"))]),
            "Subscription": object([
                "subscribed": boolean, "transactions": array(ref("Transaction")),
                "downloads": array(ref("DownloadEntry")), "installed": array(ref("Installed")),
            ]),
            "DownloadEntry": object(["download": ref("Download"), "transactionIDs": array(string)]),
            "Verification": object([
                "productID": string, "contentVersion": string, "isIntact": boolean, "damaged": array(string),
                "missing": array(string), "extra": array(string), "filesChecked": integer, "bytesChecked": integer,
            ]),
            "Update": object([
                "productID": string, "installedVersion": string, "catalogVersion": string, "downloadBytes": integer,
                "archiveBytes": integer,
            ]),
        ]
    }
}
