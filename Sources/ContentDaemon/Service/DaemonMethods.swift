internal import ContentDelivery
internal import ContentDownloads
internal import ContentPackaging
internal import Foundation

/// The daemon's methods, each a call of the public `ContentQueue` API: decode the params, call, encode.
struct DaemonMethods: Sendable {
    let queue: ContentQueue
    let configuration: DaemonConfiguration
    let server: SocketServer

    /// How the catalog is loaded again, when the daemon has a loader.
    var refresh: CatalogRefresh? { configuration.catalogLoader.map { CatalogRefresh(queue: queue, load: $0) } }

    /// Every method name, for `method not found` replies and the documentation.
    static let names = [
        "add", "restore", "pause", "resume", "cancel", "start", "status", "content", "delete", "verify", "repair",
        "updates", "finish", "reloadCatalog", "packs", "requestPacks", "changeSelection", "subscribe", "unsubscribe",
        "rpc.discover",
    ]

    /// The reply line for `request` (`nil` for a JSON-RPC notification, which gets none).
    func reply(to request: RPCRequest, from client: UInt64) async -> [UInt8]? {
        let line: [UInt8]
        do {
            let result = try await call(request, from: client)
            line = RPCMessage.response(id: request.id ?? .null, result: result)
        } catch {
            line = RPCMessage.error(RPCError.from(error).answering(request.id))
        }
        return request.id == nil ? nil : line
    }

    /// The reply line for a batch: one array of the answers of its calls with an id and of its invalid members, in
    /// the order sent (the specification allows any order); `nil` when every member was a notification.
    func reply(toBatch members: [Result<RPCRequest, RPCError>], from client: UInt64) async -> [UInt8]? {
        var answers: [[UInt8]] = []
        for member in members {
            let line: [UInt8]?
            switch member {
            case .success(let request): line = await reply(to: request, from: client)
            case .failure(let error): line = RPCMessage.error(error)
            }
            if let line { answers.append(Array(line.dropLast())) }  // without its newline
        }
        guard !answers.isEmpty else { return nil }
        return Array("[".utf8) + Array(answers.joined(separator: Array(",".utf8))) + Array("]\n".utf8)
    }

    private func call(_ request: RPCRequest, from client: UInt64) async throws -> any Encodable & Sendable {
        switch request.method {
        case "add":
            let params = try request.decodeParams(MethodParams.Add.self)
            if let refresh, await !queue.catalogLists(params.productID) {
                // A catalog loaded for some products only (a TUF repository's bins): load it with this one too.
                try await refresh.run(adding: [params.productID])
            }
            return WireTransaction(try await queue.add(VerifiedPurchase(transactionID: params.transactionID, productID: params.productID)))
        case "restore":
            return try await restore(request.decodeParams(MethodParams.Restore.self))
        case "pause", "resume", "cancel", "start":
            return try await control(request.method, request.decodeParams(MethodParams.Product.self).productID)
        case "status":
            _ = try request.decodeParams(MethodParams.None.self)
            return await status()
        case "content":
            let productID = try request.decodeParams(MethodParams.Product.self).productID
            return WireInstalled(
                productID: productID, version: queue.installedVersion(forProductID: productID)?.description,
                contentURL: queue.contentURL(forProductID: productID)?.path)
        case "delete":
            let productID = try request.decodeParams(MethodParams.Product.self).productID
            return ["deleted": try await queue.deleteContent(forProductID: productID)]
        case "verify":
            return WireVerification(try await queue.verifyContent(productID: request.decodeParams(MethodParams.Product.self).productID))
        case "repair":
            return WireVerification(try await queue.repair(productID: request.decodeParams(MethodParams.Product.self).productID))
        case "updates":
            _ = try request.decodeParams(MethodParams.None.self)
            return await queue.measuredUpdates().map(WireUpdate.init)
        case "packs", "requestPacks", "changeSelection":
            return try await packsCall(request)
        case "finish":
            return try await finish(request.decodeParams(MethodParams.Finish.self))
        case "reloadCatalog":
            _ = try request.decodeParams(MethodParams.None.self)
            guard let refresh else {
                throw RPCError.refused(code: "catalog", message: "this daemon was started without a catalog; restart it with --catalog or IAPCONTENT_CATALOG")
            }
            let source = try await refresh.run()
            return ["catalogVersion": source.catalog.catalogVersion]
        case "subscribe":
            _ = try request.decodeParams(MethodParams.None.self)
            return await subscribe(client)
        case "rpc.discover":
            _ = try request.decodeParams(MethodParams.None.self)
            return DaemonInterface.document
        case "unsubscribe":
            _ = try request.decodeParams(MethodParams.None.self)
            server.post(.subscribe(client: client, false))
            return ["subscribed": false]
        default:
            throw RPCError.methodNotFound(request.method, known: Self.names)
        }
    }

    /// `finish`, with `cancelDownloads` StoreKit's cancel-then-finish.
    private func finish(_ params: MethodParams.Finish) async throws -> [String: String] {
        if params.cancelDownloads == true {
            try await queue.cancelDownloadsAndFinish(params.transactionID)
            return ["finished": params.transactionID]
        }
        do { try await queue.finish(params.transactionID) } catch let QueueError.downloadsInFlight(id, downloads) {
            // The library's words name its Swift API; a client of the daemon sets a parameter instead.
            throw RPCError.refused(
                code: "downloadsInFlight",
                message: "transaction \(id) still has downloads in flight (\(downloads.joined(separator: ", "))); wait until they are finished (installed), or cancel them and finish in one call: finish with \"cancelDownloads\": true")
        }
        return ["finished": params.transactionID]
    }

    /// `pause`, `resume`, `cancel`, `start` of the download of a product in an unfinished transaction.
    private func control(_ method: String, _ productID: String) async throws -> ContentDownload {
        guard let download = await queue.transactions().flatMap(\.downloads).first(where: { $0.productID == productID }) else {
            throw RPCError.refused(
                code: "unknownDownload",
                message: "no unfinished transaction downloads \(productID); `status` lists them, `add` starts one")
        }
        switch method {
        case "pause": await queue.pause(download)
        case "resume": await queue.resume(download)
        case "cancel": await queue.cancel(download)
        default: try await queue.start(download)
        }
        let current = await queue.transaction(id: download.transactionID)?.downloads.first { $0.productID == productID }
        return current ?? download
    }

    /// `restore`: the history's products, or (with `entitlements`) a proactive restore and removal.
    private func restore(_ params: MethodParams.Restore) async throws -> RestoreResult {
        guard let location = params.entitlements else {
            return RestoreResult(restored: try await queue.restoreCompletedTransactions().map(WireTransaction.init), removed: [])
        }
        let source = queue.store.signedEntitlements(
            at: location, pinnedPublicKeys: configuration.publicKeys, transport: configuration.transport)
        await queue.setEntitlementSource(source)
        let outcome = try await queue.reconcileEntitlements()
        return RestoreResult(restored: outcome.restored.map(WireTransaction.init), removed: outcome.removed)
    }

    /// What `restore` returns.
    struct RestoreResult: Encodable, Sendable {
        var restored: [WireTransaction]
        var removed: [String]
    }

    /// `subscribe`: subscribed first, then the snapshot (a change meanwhile is told twice at worst, never missed),
    /// with every download once, as the notifications name it.
    private func subscribe(_ client: UInt64) async -> SubscribeResult {
        server.post(.subscribe(client: client, true))
        let now = await status()
        let outside = await queue.downloadsOutsideTransactions()
        let downloads = NotificationForwarder.oneEach(now.transactions.flatMap(\.downloads) + outside).map { download, ids in
            WireDownloadEntry(download: download, transactionIDs: ids)
        }
        return SubscribeResult(subscribed: true, transactions: now.transactions, downloads: downloads, installed: now.installed)
    }

    /// `status`: unfinished transactions with their downloads, and installed content.
    private func status() async -> StatusResult {
        let store = queue.store
        let installed = store.installedProductIDs().sorted().map { id in
            WireInstalled(
                productID: id, version: store.installedVersion(forProductID: id)?.description,
                contentURL: store.contentURL(forProductID: id)?.path)
        }
        return StatusResult(transactions: await queue.transactions().map(WireTransaction.init), installed: installed)
    }

    /// What `status` returns.
    struct StatusResult: Encodable, Sendable {
        var transactions: [WireTransaction]
        var installed: [WireInstalled]
    }

    /// What `subscribe` returns: `status` as it is once the notifications started, and every download the store
    /// holds (also those no transaction asked for: a repair, an update), so a client that reconnects needs no
    /// other call.
    struct SubscribeResult: Encodable, Sendable {
        var subscribed: Bool
        var transactions: [WireTransaction]
        var downloads: [WireDownloadEntry]
        var installed: [WireInstalled]
    }
}
