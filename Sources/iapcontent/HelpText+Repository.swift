/// The help of `iapcontent repo` and its subcommands: the catalog as a TUF repository.
extension HelpText {
    /// `iapcontent repo`.
    static let repo = """
        The repository is a TUF repository (specification 1.0): any TUF client (python-tuf, go-tuf, tuf-js) can \
        read it. Keys are `iapcontent keygen` files. The root is signed by k of n offline root keys; online \
        keys sign the top-level targets, the hashed bins (every product's archive and manifest, the bin being the \
        first N bits of SHA-256 of the target path), the snapshot and the timestamp. Metadata is written as \
        metadata/VERSION.ROLE.json (timestamp.json unversioned), targets as targets/<productID>/<sha256>.<name>; \
        serve the folder as it is. Apps ship metadata/1.root.json once; root changes reach them by the chain.

        EXAMPLES:
          iapcontent repo init repo --root-key r1.key --root-key r2.key --root-threshold 2 --online-key online.key
          iapcontent repo add repo site --online-key online.key
          iapcontent repo refresh repo --online-key online.key
          iapcontent repo rotate-root repo --old-key r1.key --old-key r2.key --new-key r3.key --new-key r4.key
          iapcontent repo key add timestamp repo --key new.key --root-key r1.key --root-key r2.key --online-key online.key
          iapcontent repo key revoke timestamp repo --key online.key --root-key r1.key --root-key r2.key \\
            --online-key online.key --online-key new.key
        """

    /// `iapcontent repo check`.
    static let repoCheck = """
        Runs the update check a client runs, with this store's trusted metadata (<store>/trust/): the root chain \
        from the shipped root, the timestamp (a conditional request: 304 when nothing was published), the version \
        of each targets file from the snapshot tree, the top-level targets and only the bins of the products \
        named; then prints the versions, the requests, the bytes received and the CPU time. A refusal (rollback, \
        freeze, mix-and-match, threshold, fast-forward, too large) is the error, with its code under --json, and \
        changes nothing the store trusts.

        EXAMPLES:
          iapcontent repo check https://cdn.example.com/repo/ com.example.maps --trusted-root root.json
          iapcontent repo check http://127.0.0.1:8080/ --trusted-root repo/metadata/1.root.json --json
        """

    /// `iapcontent repo init`.
    static let repoInit = """
        Writes root version 1 (every --root-key signs it; --root-threshold of them must sign later roots), the \
        top-level targets delegating to 2^--bins-bit-length empty bins, the bins, the snapshot and the timestamp. \
        Refuses a folder that already holds a root.
        """

    /// `iapcontent repo add`.
    static let repoAdd = """
        Reads each catalog folder's catalog.json (a folder of packed archives without one is made a catalog first, \
        as `iapcontent catalog` would) and publishes every product in it whose archive or manifest is \
        new: the files go to targets/ by hash (hard links when possible), then only the bins holding them get a \
        new version, then a new snapshot, then timestamp.json. The catalog entry of each product goes into its \
        archive target's custom field. Publishing what is already there writes nothing.
        """

    /// `iapcontent repo refresh`.
    static let repoRefresh = """
        Re-signs, with a new version and expiry, every online role with less than half its lifetime left \
        (timestamp: 1 day, snapshot: 7 days, targets and bins: 1 year); idempotent, so it can run hourly from \
        cron. Warns when the root expires within 30 days (its keys are offline: rotate-root renews it).
        """

    /// `iapcontent repo rotate-root`.
    static let repoRotateRoot = """
        Writes root version N+1 listing the --new-key keys with --new-threshold, signed by a threshold of the \
        current root keys (--old-key) and of the new ones, as clients require of every link of the chain. Use it \
        also to renew the root before it expires (the same keys as --old-key and --new-key).
        """

    /// `iapcontent repo key`.
    static let repoKey = """
        add: lists the key for the role. revoke: removes it, then re-signs everything it signed. Keys of targets, \
        snapshot and timestamp live in the root (a new root version, signed by --root-key); the bins' keys live \
        in the top-level targets. The snapshot and timestamp are re-signed with --online-key, which must hold keys \
        of the roles after the change.
        """
}
