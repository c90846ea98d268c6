internal import ContentDownloads
internal import ContentPackaging

/// The pack methods: what an installed product's packs are, installing on-demand or prefetch packs in one
/// download, and switching variants. Like `repair`, a change answers once it is installed (or failed, the old
/// selection kept); meanwhile its download shows to subscribers as any download does (`download.state`,
/// `download.progress`, `download.finished` with the product's `productID` and no transaction), then
/// `packs.changed` tells the packs as they are.
extension DaemonMethods {
    /// `packs`, `requestPacks` or `changeSelection`; each answers with the product's packs ([PackStatus]).
    func packsCall(_ request: RPCRequest) async throws -> [PackStatus] {
        switch request.method {
        case "requestPacks":
            let params = try request.decodeParams(MethodParams.RequestPacks.self)
            guard !params.packs.isEmpty else {
                throw RPCError.invalidParams("requestPacks: \"packs\" is empty; name at least one pack (`packs` lists them)")
            }
            try await queue.requestPacks(Set(params.packs), productID: params.productID)
            return try await queue.packs(productID: params.productID)
        case "changeSelection":
            let params = try request.decodeParams(MethodParams.ChangeSelection.self)
            try await queue.checkChange(productID: params.productID, removing: params.remove ?? [], selects: !(params.select ?? [:]).isEmpty)
            let selection = try await Self.selection(params, from: queue.changeBase(for: params.productID))
            try await queue.changeSelection(productID: params.productID, to: selection)
            return try await queue.packs(productID: params.productID)
        default:
            return try await queue.packs(productID: request.decodeParams(MethodParams.Product.self).productID)
        }
    }

    /// `current` with the packs of `params` added and removed and each axis of `select` set (its values most
    /// preferred first; an empty list leaves the axis to the product's default and fallback).
    /// - Throws: ``RPCError/invalidParams(_:)`` naming an axis or value that is not one.
    static func selection(_ params: MethodParams.ChangeSelection, from current: PackSelection) throws(RPCError) -> PackSelection {
        var selection = current
        selection.packs.formUnion(params.packs ?? [])
        selection.packs.subtract(params.remove ?? [])
        for (axis, values) in (params.select ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard !values.isEmpty else {
                selection.profile.values[axis] = nil
                continue
            }
            do { try selection.profile.set("\(axis)=\(values.joined(separator: ","))") } catch {
                throw RPCError.invalidParams("changeSelection: \"select.\(axis)\": \(error.message)")
            }
        }
        return selection
    }
}
