import ContentCommandLine
/// The long `--help` text of every subcommand, in one place so the wording stays consistent and the man
/// page (`tools/gen-docs`) reads as one document. Use as `discussion: HelpText.download`.
///
/// Each text: what the command does, what it prints, its exit statuses when they differ from the root's,
/// and EXAMPLES. Lines are kept under 100 columns; argument-parser re-wraps to the terminal.
enum HelpText {
    /// `iapcontent --help`.
    static let root = """
        Authors build a folder (ContentInfo.plist + Contents/), check and pack it, publish a signed \
        catalog and serve it. Clients download, verify and install content with StoreKit's SKDownload \
        states (waiting, active, paused, finished, failed, cancelled), progress and timeRemaining.

        ENVIRONMENT:
          IAPCONTENT_STORE       store folder (default $XDG_DATA_HOME/iapcontent or ~/.local/share/iapcontent)
          IAPCONTENT_CATALOG     catalog URL or path used when --catalog is not given
          IAPCONTENT_PUBLIC_KEY  trusted catalog-signing public keys, base64, comma-separated
          NO_COLOR               set to turn colours off (they are only used on a terminal anyway)
          XDG_RUNTIME_DIR        where `daemon` listens: $XDG_RUNTIME_DIR/iapcontent/daemon.sock

        \(ExitStatus.table)

        EXAMPLES:
          iapcontent validate MapsPack && iapcontent pack MapsPack --output dist
          iapcontent keygen --output sign.key
          iapcontent catalog dist --output site --signing-key sign.key
          iapcontent publish site s3://my-bucket/store --region eu-west-1   # to object storage
          iapcontent serve site --port 8080
          iapcontent download com.example.maps --catalog http://127.0.0.1:8080/catalog.json
          iapcontent daemon --catalog http://127.0.0.1:8080/catalog.json   # for programs in other languages
        """

    /// `iapcontent import`.
    static let importContent = """
        Brings content Apple hosted home. The source is one of: the folder an Xcode "In-App Purchase \
        Content" target builds (<Name>/ContentInfo.plist + <Name>/Contents/); the Xcode project holding \
        such a target (its ContentInfo.plist and the files of its Resources build phase, read from \
        project.pbxproj; --target picks one of several); or the package once uploaded, what \
        productbuild --content wrote (a xar archive whose component Payload, a gzip'd cpio, holds the \
        folder). The result is a content folder that validate accepts: pack it as usual, or add --pack. \
        ContentInfo.plist is kept byte for byte (binary or XML, extra keys such as Folder included). \
        Prints one line per entry dropped (.DS_Store, ._ resource forks, executable code) on stderr, a \
        summary, then the folder's path on stdout (with --pack, the manifest and archive paths after it).

        Refused, naming the entry and why, with nothing written: links, devices, FIFOs and sockets; names \
        with '..', a leading '/', control characters or collisions, in the xar or the cpio; files beside \
        Contents/; a payload larger than its PackageInfo declares (installKBytes, numberOfFiles) or than \
        --max-size (a decompression bomb); project files outside the project folder, in build locations \
        or behind a symbolic link; files Xcode compiles (xib, storyboard, xcassets and the like: import the built \
        folder instead); pbzx payloads (expand them on a Mac). The folder is built beside --output and \
        renamed into place when complete; --output must not exist or be empty.

        EXAMPLES:
          iapcontent import build/Release-iphoneos/Levels --output Levels
          iapcontent import LevelsProject --target Levels --output Levels
          iapcontent import Levels.pkg --output Levels --pack --pack-output dist
          iapcontent import Levels.pkg --output Levels && iapcontent pack Levels --output dist
        """

    /// `iapcontent validate`.
    static let validate = """
        Checks a content folder the way pack and clients will: ContentInfo.plist keys and types \
        (IAPProductIdentifier and ContentVersion, strings, as Xcode's In-App Purchase Content template writes \
        them; an IAPContentVersion key is named as the misspelling it is), the Contents/ folder, file names (portable, no \
        case-insensitive collisions), symlinks that stay inside, sizes. Prints a one-line summary when \
        valid; otherwise one 'path: problem' line per problem on stderr, and exits 1. Nothing is written.

        EXAMPLES:
          iapcontent validate MapsPack
          iapcontent validate MapsPack --json | jq '.problems[]'
          iapcontent validate MapsPack --max-size 2000000000
        """

    /// `iapcontent pack`.
    static let pack = """
        Validates the folder, then writes <product>-<version>.tar.zst (reproducible: sorted entries, \
        fixed owners and times, so the same folder always gives the same bytes and SHA-256) and \
        <product>-<version>.manifest (every file's size and SHA-256, every directory, in the compact \
        binary format of docs/MANIFEST-FORMAT.md: about 38 bytes a file; `inspect --manifest-json` \
        prints it as JSON). The archive is chunk-indexed: one zstd frame per chunk of the tar stream \
        (still a standard tar.zst for bsdtar, tar and zstd), each chunk's range and SHA-256 in the \
        manifest (schema 2). A file of at least 256 KiB has content-defined chunks of its own; smaller \
        files are grouped in path order into frames of at most --file-group-bytes compressed bytes \
        (64 KiB), cut between files, so an update that changes a few small files fetches them and \
        little else. --dictionary trains a zstd dictionary on those small files, stores it at the \
        archive's start and compresses every frame with it (Django's 3 660 files: 1.08× one frame of \
        the tree instead of 1.12×); bsdtar then needs `zstd -D` with it (docs/MANIFEST-FORMAT.md), \
        clients fetch and check it with the manifest. Clients verify each chunk, write it straight into place, no archive kept, and a \
        resumed download continues inside a file. --single-frame writes the one-frame archive \
        (schema 1, the archive's SHA-256 in a JSON manifest, <product>-<version>.manifest.json) for \
        clients that predate chunk indexes; --chunked, once needed for chunk indexes, is still \
        accepted and changes nothing. \
        Files appear only when complete: a Ctrl-C leaves no partial archive and exits 3. Headers use \
        SOURCE_DATE_EPOCH as the modification time when set. The archive path is the last line on stdout.

        EXAMPLES:
          iapcontent pack MapsPack --output dist
          iapcontent pack MapsPack && iapcontent inspect com.example.maps-2.1.tar.zst
          iapcontent pack MapsPack --output dist --single-frame
          iapcontent pack MapsPack --output dist --file-group-bytes 0
          iapcontent pack MapsPack --output dist --dictionary
        """

    /// `iapcontent inspect`.
    static let inspect = """
        Reads an archive written by pack: product, version, sizes and the file list. When the \
        manifest sits beside it, checks the archive's length (and SHA-256, for a one-frame archive), \
        every file and every directory against it, and for a chunk-indexed archive decodes each chunk \
        alone from its range and checks its SHA-256. Exits 1, naming the entry or chunk, when the \
        archive is not a valid package or differs from its manifest. Given a manifest instead \
        (<name>.manifest or .manifest.json), decodes it and checks its chunk index: product, version, \
        counts and encoding. --manifest-json prints the manifest (given, or beside the archive) as JSON.

        EXAMPLES:
          iapcontent inspect dist/com.example.maps-2.1.tar.zst
          iapcontent inspect dist/com.example.maps-2.1.manifest --manifest-json | jq '.files | length'
          iapcontent pack MapsPack --output dist && iapcontent inspect dist/com.example.maps-2.1.tar.zst
        """

    /// `iapcontent catalog`.
    static let catalog = """
        Reads every <id>-<ver>.tar.zst with its .manifest (or .manifest.json), checks the archive's \
        length (and SHA-256, when the manifest has one) against the manifest, and writes \
        <output>/archives/<sha256>.tar.zst, the manifest of a chunk-indexed archive in the compact \
        format as <output>/manifests/<sha256>.manifest (a JSON manifest is converted; one past the \
        64 MiB a client fetches is an error), and <output>/catalog.json (and, with --signing-key, \
        catalog.json.sig plus the same signature as signatures/<sha256 of catalog.json>.sig, written first: \
        clients read that one, so rewriting a served folder never shows them a catalog without its signature). When a product appears in \
        several versions, the highest is published. catalogVersion defaults to the previous \
        catalog's + 1 (or the current Unix time for a new folder). The folder can be served by any \
        static web server, or by `iapcontent serve`.

        EXAMPLES:
          iapcontent catalog dist --output site
          iapcontent catalog dist --output site --signing-key sign.key --expires-in 604800
          iapcontent catalog dist --output site --base-url https://cdn.example.com/iap --mirror https://mirror.example.net/iap
        """

    /// `iapcontent publish`.
    static let publish = """
        Uploads a signed catalog folder (what `iapcontent catalog --output` wrote) to S3-compatible \
        object storage (AWS S3, Cloudflare R2, Backblaze B2, MinIO, SeaweedFS) so that every reader, at \
        every instant, gets the old catalog or the new one, with a valid signature and every archive it \
        names. Order: read the live catalog.json (refusing a catalogVersion not above it); probe that the \
        server honours conditional writes (a probe key written create-only twice must be refused the \
        second time; a server that ignores If-None-Match or If-Match is refused before any other write); \
        manifests and archives create-only (If-None-Match: *; one already there is checked by length and \
        skipped; larger than --part-size: multipart, --parallel parts at once, read from disk as sent); \
        signatures/<sha256>.sig and catalogs/<sha256>.json create-only; catalog.json by compare-and-swap \
        (If-Match: the ETag read first); catalog.json.sig last, for clients that predate signatures/. \
        Killed at any point, the bucket still serves a consistent catalog and a rerun sends nothing twice. \
        Of two publishers at once exactly one switches the catalog; the other exits 1 having changed \
        nothing referenced. Needs s3:GetObject, s3:PutObject and s3:AbortMultipartUpload.

        A TUF repository folder (`iapcontent repo`) publishes the same way, sending only what the live \
        metadata/timestamp.json does not reach: the targets the changed bins added, then those bins, the \
        snapshot, the new snapshot-tree nodes and missing root versions (all create-only), then \
        metadata/timestamp.json by compare-and-swap. A folder older than the live timestamp is refused.

        CREDENTIALS, as the AWS CLI reads them: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and \
        AWS_SESSION_TOKEN; else profile AWS_PROFILE (default "default") of AWS_SHARED_CREDENTIALS_FILE \
        (default ~/.aws/credentials). Region: --region, AWS_REGION, AWS_DEFAULT_REGION, the profile's \
        region in ~/.aws/config (AWS_CONFIG_FILE), else us-east-1. Endpoint: --endpoint, \
        AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, else AWS (virtual-hosted); with an endpoint, path-style \
        <endpoint>/<bucket>/<key>.

        EXAMPLES:
          iapcontent catalog dist --output site --signing-key sign.key --expires-in 604800
          iapcontent publish site s3://my-bucket/store --region eu-west-1
          iapcontent publish site s3://store/iap --endpoint https://<account>.r2.cloudflarestorage.com --region auto
          iapcontent publish site s3://store/iap --endpoint http://127.0.0.1:8333
          iapcontent repo add repo site --online-key online.key && iapcontent publish repo s3://my-bucket/repo
        """

    /// `iapcontent prune`.
    static let prune = """
        Deletes every object under archives/, manifests/, signatures/, catalogs/ and probes/ that neither \
        the live catalog.json nor the last --keep published catalogs (by catalogVersion, from the history \
        catalogs/<sha256>.json that publish keeps) reference. Never deletes catalog.json or \
        catalog.json.sig, nor an object written less than --min-age seconds ago (a publish may have sent \
        it and not switched yet); reads catalog.json again before deleting and stops, deleting nothing, \
        when a publish switched it meanwhile. Needs s3:ListBucket, s3:GetObject and s3:DeleteObject. \
        Prints one line per object deleted and a summary.

        EXAMPLES:
          iapcontent prune s3://my-bucket/store --keep 3 --dry-run
          iapcontent prune s3://store/iap --keep 3 --endpoint http://127.0.0.1:8333
        """

    /// `iapcontent entitlements sign`.
    static let entitlementsSign = """
        Reads {"subject": ..., "products": {"<productID>": "active" | "revoked" | "expired"}}, adds \
        issuedAt (now) and sequence, and writes the document plus its detached Ed25519 signature \
        <output>.sig. Clients refuse a document whose sequence is lower than one they saw for the \
        same subject, so each new document needs a higher one (the default, the Unix time, grows).

        EXAMPLES:
          iapcontent entitlements sign customer-1.json --signing-key sign.key --output site/customer-1.json
        """

    /// `iapcontent keygen`.
    static let keygen = """
        Signing key: a JSON file (mode 0600) with algorithm, keyID, privateKey and publicKey; prints \
        the base64 public key on stdout (pin it in the app, or pass it to download with --public-key \
        or IAPCONTENT_PUBLIC_KEY) and its key ID on stderr. Keep the file off the web server.
        --token-key: 32 random bytes, base64, mode 0600, shared by the store backend \
        (`iapcontent sign-url`) and the server (`iapcontent serve --token-key`).
        Existing files are never overwritten.

        EXAMPLES:
          iapcontent keygen --output sign.key > public-key.txt
          iapcontent keygen --token-key --output token.key
        """

    /// `iapcontent sign-url`.
    static let signURL = """
        Run by the store backend after it has checked the purchase; hand the printed URL to the \
        purchaser's app. The token is base64url(HMAC-SHA256(key, "v1\\n" + product + "\\n" + path + \
        "\\n" + expires)); `iapcontent serve --token-key` checks it with the same key.

        EXAMPLES:
          iapcontent sign-url http://127.0.0.1:8080/archives/<sha256>.tar.zst \\
              --token-key token.key --product com.example.maps --expires-in 600
        """
}
