/// Hands each client's requests to ``DaemonMethods`` one at a time, in the order the client sent them, while
/// different clients are served concurrently; each reply goes back to the server loop.
struct RequestDispatcher: Sendable {
    let server: SocketServer
    let methods: DaemonMethods

    /// Runs until the server's events end (the server stopped); calls in flight finish first.
    func run() async {
        await withDiscardingTaskGroup { group in
            var workers: [UInt64: AsyncStream<Work>.Continuation] = [:]
            for await event in server.events {
                let client: UInt64, work: Work
                switch event {
                case .request(let id, let request): (client, work) = (id, .single(request))
                case .batch(let id, let members): (client, work) = (id, .batch(members))
                case .disconnected(let client):
                    workers.removeValue(forKey: client)?.finish()
                    continue
                }
                if workers[client] == nil {
                    let (requests, continuation) = AsyncStream.makeStream(of: Work.self)
                    workers[client] = continuation
                    group.addTask { [server, methods] in
                        for await work in requests {
                            switch work {
                            case .single(let request):
                                server.post(.reply(client: client, await methods.reply(to: request, from: client)))
                            case .batch(let members):
                                server.post(.reply(client: client, await methods.reply(toBatch: members, from: client)))
                            }
                        }
                    }
                }
                workers[client]?.yield(work)
            }
            for worker in workers.values { worker.finish() }
        }
    }

    /// One piece of a client's work, in the order sent.
    enum Work: Sendable {
        case single(RPCRequest)
        case batch([Result<RPCRequest, RPCError>])
    }
}
