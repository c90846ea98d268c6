import ContentCommandLine

/// The client commands' help: downloads, the store, the daemon.
extension HelpText {
    /// `iapcontent download`.
    static let download = """
        Fetches the catalog (checking its signature when public keys are given; with --trusted-root, \
        --catalog names a TUF repository written by `iapcontent repo`, and only the metadata of the \
        products asked for is fetched, each file checked from the shipped root down), then downloads, \
        verifies (length and SHA-256) and installs each product into the store, several at once. \
        Progress: on a terminal one live line per download (state, bar, percent, bytes, speed, time \
        remaining, 'stalled' after 5 s without data) and a summary line; in a pipe, plain lines every \
        few seconds and on every state change; with --json, one JSON object per event with the keys of \
        `status --json` plus "event" (state, progress, error, finish).
        Ctrl-C pauses and checkpoints every download and exits 3: run the same command again to \
        resume (also after a crash or reboot). `pause`, `resume` and `cancel` from another shell show \
        up in the running display within a second.

        EXIT STATUS: 0 all finished, 1 a download failed (the message names the product, URL and what \
        to do), 2 usage, 3 paused or interrupted, 4 cancelled.

        EXAMPLES:
          iapcontent download com.example.maps --catalog http://127.0.0.1:8080/catalog.json
          IAPCONTENT_CATALOG=https://cdn.example.com/iap/catalog.json iapcontent download com.example.maps com.example.voices
          iapcontent download com.example.maps --json | jq -c 'select(.event == "state")'
          iapcontent download com.example.maps --catalog https://cdn.example.com/repo/ --trusted-root root.json
          iapcontent download com.example.maps --max-rate 1000000 --store /srv/iapcontent
          iapcontent download com.example.maps --header "Authorization: Bearer $TOKEN" --proxy http://proxy:3128
        """

    /// `iapcontent status`.
    static let status = """
        Lists every download in the store from its journal: product, version, state, bytes, progress, \
        time remaining and the last error; then unfinished transactions, finished ones, and installed \
        content (with "update available" when a catalog is given or IAPCONTENT_CATALOG is set; read \
        as-is, no signature check: status writes nothing). Works while a download runs in another shell.

        JSON (--json): an array with one object per download record, then one per installed product \
        without a record. Every key is always present: the download's wire form, as the daemon sends it \
        (productID, contentIdentifier, contentVersion, state, downloadedBytes, expectedContentLength, \
        progress, timeRemaining (-1 unknown), error (null or {code, message})), plus installedVersion (null when not installed), \
        updateAvailable (the catalog's newer version, else null), updateBytes (what that update fetches: only \
        the chunks of changed files when the installed version came from a chunk-indexed archive, else the \
        whole archive; null without an update), transactions (array of {id, kind: \
        purchase|restore, state, contentVersion, finished}) and packs (null for a product without packs, \
        else array of {id, policy, installed, bytes, bytesToFetch}). An installed product without a download \
        record shows state "finished", progress 1 and 0 bytes.

        EXAMPLES:
          iapcontent status
          iapcontent status --json | jq -r '.[] | select(.state == "failed") | .productID'
          iapcontent status --json --catalog https://cdn.example.com/iap/catalog.json | jq '.[] | select(.updateAvailable)'
        """

    /// `iapcontent pause`.
    static let pause = """
        Pauses downloads, keeping the partial data and its checkpoint. When `iapcontent download` is \
        running in another shell it pauses within a second; otherwise the journal is updated directly. \
        Resume with `iapcontent resume` or by running the download command again.

        EXAMPLES:
          iapcontent pause com.example.maps
        """

    /// `iapcontent daemon`.
    static let daemon = """
        Serves the store's download queue to programs in any language: JSON-RPC 2.0 over a Unix socket, one \
        message a line. One daemon per store (a second one, or a `download` on the same store, is refused); only \
        the same user may connect (checked with SO_PEERCRED); the socket has mode 0600. Under systemd it takes the \
        socket the socket unit passes (LISTEN_FDS; units in docs/systemd/). SIGTERM or Ctrl-C stops every \
        transfer with a checkpoint and exits 0; the next start resumes them, after a kill -9 too. While it runs, \
        `iapcontent pause|resume|cancel|status --store DIR` reach it.

        METHODS (params by name): add {transactionID, productID}, restore {entitlements?}, pause|resume|cancel|start \
        {productID}, status, content {productID}, delete {productID}, verify {productID}, repair {productID}, \
        updates, finish {transactionID, cancelDownloads?}, reloadCatalog, packs {productID}, requestPacks \
        {productID, packs}, changeSelection {productID, packs?, remove?, select?} (both answer once installed; \
        --select axis=value sets the daemon's device profile), subscribe (answers with the status), \
        unsubscribe, rpc.discover (the OpenRPC document: every method, params, result and notification; \
        --openrpc prints it). Batches (a JSON array of requests) get one array of answers.
        NOTIFICATIONS (after subscribe; each with time and sequence): transaction, download.state, \
        download.progress (at most 10/s per download), download.finished {contentURL}, download.error {error: \
        {code, message}}, content.removed, packs.changed {productID, packs}, entitlements.reconciled, update.available {update} (the daemon \
        loads the catalog every --check-interval seconds and announces each newer version of an installed product \
        once). One per change of a download, naming every \
        transaction it serves in transactionIDs.
        cancel answers once the transfer stopped and its files are gone; add of a cancelled transaction's id \
        starts its download again.
        Errors: the JSON-RPC codes, and -32000 with data.code (the library's stable code) when the queue refuses.

        EXAMPLES:
          iapcontent daemon --catalog https://cdn.example.com/catalog.json --public-key BASE64
          iapcontent daemon --catalog https://cdn.example.com/repo/ --trusted-root root.json --check-interval 900
          echo '{"jsonrpc":"2.0","id":1,"method":"status"}' | socat - UNIX-CONNECT:$XDG_RUNTIME_DIR/iapcontent/daemon.sock
        """

    /// `iapcontent resume`.
    static let resume = """
        Resumes paused (or failed) downloads from their last checkpoint: the bytes already on disk are \
        kept and only the rest is fetched (HTTP range with If-Range, so a changed file restarts cleanly). \
        A running `iapcontent download` picks the change up within a second.

        EXAMPLES:
          iapcontent resume com.example.maps
          iapcontent resume com.example.maps com.example.voices
        """

    /// `iapcontent cancel`.
    static let cancel = """
        Cancels downloads and deletes their partial data; installed content is not touched (see \
        `iapcontent delete`). A running `iapcontent download` shows 'cancelled' within a second and \
        exits 4 when nothing else is left to do.

        EXAMPLES:
          iapcontent cancel com.example.maps
        """

    /// `iapcontent content`.
    static let content = """
        Lists installed content: product, version, size and contentURL (the folder holding \
        ContentInfo.plist and Contents/ exactly as packed). Use the path to read the content.

        EXAMPLES:
          iapcontent content
          iapcontent content com.example.maps --json
        """

    /// `iapcontent delete`.
    static let delete = """
        Removes installed content of the given products from the store (atomically: the folder \
        disappears as a whole) and their finished download records. Run download again to get it back.

        EXAMPLES:
          iapcontent delete com.example.maps
        """

    /// `iapcontent restore`.
    static let restore = """
        With --entitlements, instead of what follows: installs the products the signed entitlements \
        document lists as active (proactive restore: nothing needs to have been bought on this \
        device) and removes the content of revoked and expired products; the document is checked \
        with the --public-key keys.

        Downloads again every product the store has installed or recorded (as StoreKit's restore), \
        with the same progress display, resume and exit statuses as download, and the same transfer \
        options (--concurrency, --max-rate, --ca-file, --header, --user-agent, --proxy, --cert, --key, \
        --max-attempts, --retry-delay, --stall-timeout).

        EXAMPLES:
          iapcontent restore --catalog http://127.0.0.1:8080/catalog.json
          iapcontent restore --entitlements https://api.example.com/me.json --public-key <base64>
          iapcontent restore --concurrency 1 --max-rate 1000000 --store /srv/iapcontent
        """

    /// `iapcontent _install-archive` (hidden testing aid).
    static let installArchive = """
        Installs one local archive into a store, checking every entry as a download would (names, \
        types, sizes) but trusting the archive's bytes (no SHA-256 from a catalog). Used by the crash \
        tests, which kill it at IAPCONTENT_TEST_CRASH_AT=extract|swap.

        EXAMPLES:
          iapcontent _install-archive dist/com.example.maps-2.1.tar.zst --product com.example.maps \\
              --version 2.1 --store /tmp/store
        """

    /// `iapcontent display-demo` (hidden: a demo and a test aid, not in the man page).
    static let displayDemo = """
        Three downloads at different speeds; the last one stops receiving after a while and shows \
        'stalled'. Ctrl-C ends it like a real download: final lines, a resume hint, exit 3.

        EXAMPLES:
          iapcontent display-demo
          iapcontent display-demo --seconds 3 --json
        """

    static let emptyTrash = """
        `download` and `restore` move an old version and a used archive into the store's trash/ as soon as \
        the new content is live, and start this command detached to delete them after they return (about \
        0.2 s per GiB on a file system that discards freed blocks). Run it by hand to do the same; opening \
        a store empties its trash too. A store that does not exist is left absent.

        EXAMPLES:
          iapcontent empty-trash --store ~/.local/share/iapcontent
        """
}
