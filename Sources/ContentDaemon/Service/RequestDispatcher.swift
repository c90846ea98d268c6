/// Hands each client's requests to ``DaemonMethods`` one at a time, in the order the client sent them, while
/// different clients are served concurrently; each reply goes back to the server loop.
struct RequestDispatcher: Sendable {
    let server: SocketServer
    let methods: DaemonMethods

    /// Runs until the server's events end (the server stopped); calls in flight finish first.
    func run() async {
        await withDiscardingTaskGroup { group in
            var workers: [UInt64: AsyncStream<RPCRequest>.Continuation] = [:]
            for await event in server.events {
                switch event {
                case .request(let client, let request):
                    if workers[client] == nil {
                        let (requests, continuation) = AsyncStream.makeStream(of: RPCRequest.self)
                        workers[client] = continuation
                        group.addTask { [server, methods] in
                            for await request in requests {
                                server.post(.reply(client: client, await methods.reply(to: request, from: client)))
                            }
                        }
                    }
                    workers[client]?.yield(request)
                case .disconnected(let client):
                    workers.removeValue(forKey: client)?.finish()
                }
            }
            for worker in workers.values { worker.finish() }
        }
    }
}
