/// Help for the commands that check, repair and compare installed and packed versions.
extension HelpText {
    /// `iapcontent verify`.
    static let verify = """
        Re-hashes every file the manifest of the installed version lists (size and SHA-256) and lists \
        regular files the manifest does not name. Works for content installed from a chunk-indexed \
        catalog (what pack writes by default): its manifest is kept in the store's manifests/ folder. \
        Exit status: 0 intact, 1 when any file is damaged, missing or extra. `iapcontent repair` fixes what \
        it finds.

        EXAMPLES:
          iapcontent verify com.example.maps
          iapcontent verify com.example.maps --json
        """

    /// `iapcontent diff`.
    static let patch = """
        Writes `<product>-<old>-to-<new>.patch` for a static host to serve beside the archives: the new manifest \
        compressed against the old one, and every file whose content the old version does not hold anywhere, \
        compressed against the old file of the same path (as `zstd --patch-from` does). A client with OLD installed \
        fetches this one file instead of the new manifest and the changed chunks; every byte it makes is checked \
        against the new manifest, whose hash the signed catalog gives. Pass the folders the two versions were \
        packed from and the manifests `pack` wrote; a file that differs from its manifest is refused. Prints the \
        patch's size against what the update fetches without it. The format is in docs/MANIFEST-FORMAT.md.

        EXAMPLES:
          iapcontent patch content/maps-1.0 content/maps-2.0 --old-manifest dist/com.example.maps-1.0.manifest \\
            --new-manifest dist/com.example.maps-2.0.manifest --output dist
          iapcontent catalog dist --output site
        """

    static let diff = """
        Compares two packed versions of a product (chunk-indexed, what pack writes by default) the way a client with the \
        old one installed will update: files whose content is unchanged (renamed ones too) are kept, chunks \
        the old files hold are rebuilt locally, and only the other chunks are fetched, by Range requests on \
        the new archive. Prints the bytes fetched against a full download. Run it before publishing; \
        `iapcontent catalog` prints the same for the versions it finds beside the newest.

        EXAMPLES:
          iapcontent diff dist/com.example.maps-1.0.manifest dist/com.example.maps-2.0.manifest
          iapcontent diff dist/com.example.maps-1.0.tar.zst dist/com.example.maps-2.0.tar.zst --json
        """

    /// `iapcontent repair`.
    static let repair = """
        Verifies the installed product like `verify`, then fetches from the catalog's archive of the same \
        version only the chunks of the damaged and missing files (Range requests on the static archive), \
        links the intact files into a new folder and swaps it in atomically; extra files are gone with the \
        old folder. If the repair fails or is interrupted, the installed folder is as it was; running repair \
        again continues it. Needs the catalog to still offer the installed version (chunk-indexed). Exit \
        status: 0 intact or repaired, 1 otherwise.

        EXAMPLES:
          iapcontent repair com.example.maps --catalog https://cdn.example.com/catalog.json
          iapcontent repair com.example.maps --catalog ./public/catalog.json --store ~/content --json
        """

    /// `iapcontent packs`.
    static let packs = """
        A product may declare packs in its ContentInfo.plist (Packs: an identifier, a Policy — essential, \
        prefetch or onDemand — and the Paths under Contents/ it holds) and variants by folder name \
        (Contents/Voices#language=de installs at Contents/Voices). A purchase installs the essential packs and \
        the variants this device prefers (--select, else LANGUAGE/LANG and uname -m). Without options, this \
        prints each pack's policy, state, size, and at most how much installing it fetches. With --add, \
        --remove or --select it changes the installed selection in one download: only chunks not already \
        on disk are fetched, unchanged files are linked, and the new folder is swapped in atomically — a crash \
        leaves the old selection or the new one. Exit status: 0 done, 1 otherwise.

        EXAMPLES:
          iapcontent packs com.example.game
          iapcontent packs com.example.game --add voices --catalog https://cdn.example.com/catalog.json
          iapcontent packs com.example.game --select language=fr --catalog ./public/catalog.json --json
        """
}
