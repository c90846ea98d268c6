#compdef iapcontent

__iapcontent_complete() {
    local -ar non_empty_completions=("${@:#(|:*)}")
    local -ar empty_completions=("${(M)@:#(|:*)}")
    _describe -V '' non_empty_completions -- empty_completions -P $'\'\''
}

__iapcontent_custom_complete() {
    local -a completions
    completions=("${(@f)"$("${command_name}" "${@}" "${command_line[@]}")"}")
    if [[ "${#completions[@]}" -gt 1 ]]; then
        __iapcontent_complete "${completions[@]:0:-1}"
    fi
}

__iapcontent_cursor_index_in_current_word() {
    if [[ -z "${QIPREFIX}${IPREFIX}${PREFIX}" ]]; then
        printf 0
    else
        printf %s "${#${(z)LBUFFER}[-1]}"
    fi
}

_iapcontent() {
    emulate -RL zsh -G
    setopt extendedglob nullglob numericglobsort
    unsetopt aliases banghist

    local -xr SAP_SHELL=zsh
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(builtin emulate zsh -c 'printf %s "${ZSH_VERSION}"')"
    local -r SAP_SHELL_VERSION

    local context state state_descr line
    local -A opt_args

    local -r command_name="${words[1]}"
    local -ar command_line=("${words[@]}")
    local -ir current_word_index="$((CURRENT - 1))"

    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'import:Turn Apple-hosted content (built target, Xcode project or uploaded .pkg) into a content folder.'
            'validate:Check a content folder (ContentInfo.plist + Contents/); report every problem at once.'
            'pack:Pack a content folder into a reproducible <product>-<version>.tar.zst plus its manifest.'
            'inspect:Show an archive'\''s product, version, sizes and files; verify it against the manifest beside it.'
            'catalog:Build a static, content-addressed catalog folder from packed archives.'
            'repo:Write and maintain a TUF repository: k-of-n offline root keys, online keys, hashed bins.'
            'publish:Upload a catalog folder to S3-compatible storage; readers see the old or the new catalog, never a mix.'
            'prune:Delete from S3-compatible storage what neither the live catalog nor the last N published ones reference.'
            'keygen:Create an Ed25519 catalog signing key, or a URL-token key with --token-key.'
            'entitlements:Publish what a customer is entitled to, signed, for `restore --entitlements`.'
            'serve:Serve a catalog folder over HTTP (GET/HEAD, byte ranges, strong ETags).'
            'sign-url:Print an archive URL carrying a purchaser token (product, expires, token).'
            'download:Download, verify and install products'\'' content into a store (resumable), then finish their transactions.'
            'status:Show every download in a store: state, bytes, progress, time remaining, last error.'
            'pause:Pause downloads (keeps their bytes); a running download applies it within a second.'
            'resume:Resume paused downloads; a running download applies it within a second.'
            'cancel:Cancel downloads and delete their partial data; a running download applies it within a second.'
            'daemon:Serve the store'\''s download queue to other programs over a Unix socket (JSON-RPC 2.0, events pushed).'
            'content:Print a product'\''s installed content folder (ContentInfo.plist + Contents/); exit 1 if not installed.'
            'packs:Show an installed product'\''s packs; add or remove packs and switch variants (language=fr) in one atomic change that fetches only what is not on disk.'
            'verify:Re-hash a product'\''s installed files against its manifest; list damaged, missing and extra files (exit 1 if any).'
            'repair:Verify a product'\''s installed files and fetch only the chunks of damaged or missing ones; swap the repaired folder in atomically.'
            'diff:Show the bytes a client with OLD installed fetches to update to NEW (chunk-indexed packs).'
            'patch:Write the patch that updates a client from OLD to NEW: the new manifest and the changed files, each compressed against its old version.'
            'delete:Delete a product'\''s installed content (atomically); exit 1 if it was not installed.'
            'restore:Restore: download and install content of previously finished purchases that is missing or older than the catalog'\''s.'
            'help:Show subcommand help information.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        import|validate|pack|inspect|catalog|repo|publish|prune|keygen|entitlements|serve|sign-url|download|status|pause|resume|cancel|daemon|content|packs|verify|repair|diff|patch|delete|restore|help)
            "_iapcontent_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_iapcontent_import() {
    local -i ret=1
    local -ar arg_specs=(
        ':source:'
        '(--output -o)'{--output,-o}'[The content folder to create (must not exist, or be empty).]:output:'
        '--target[The In-App Purchase Content target to import when the project has several.]:target:'
        '--pack[Pack the imported folder too, as `iapcontent pack` does.]'
        '--pack-output[Directory for the archive and manifest with --pack.]:pack-output:'
        '--max-size[Largest total size of the files, in bytes (default 1 TiB).]:max-size:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_validate() {
    local -i ret=1
    local -ar arg_specs=(
        ':folder:'
        '--json[Print the result as JSON on stdout.]'
        '--max-size[Largest total size of the files, in bytes (default 1 TiB).]:max-size:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_pack() {
    local -i ret=1
    local -ar arg_specs=(
        ':folder:'
        '(--output -o)'{--output,-o}'[Directory for the archive and manifest (default\: current directory).]:output:'
        '--max-size[Largest total size of the files, in bytes (default 1 TiB).]:max-size:'
        '--level[zstd compression level (1-19).]:level:'
        '--single-frame[Write the older one-frame archive (manifest schema 1, no chunk index) for clients that predate chunk-indexed archives.]'
        '--file-group-bytes[Group files smaller than a chunk into zstd frames of at most this many compressed bytes, cut between files, so an update that changes a few of them fetches little else; 0 leaves them to the content-defined chunks.]:bytes:'
        '--dictionary[Compress the frames with a zstd dictionary trained on the content'\''s small files and stored at the archive'\''s start\: small files'\'' frames keep most of the ratio of one frame. Standard tools then need the dictionary (zstd -D; docs/MANIFEST-FORMAT.md); without it bsdtar -xf reads the archive alone.]'
        '--dictionary-bytes[The dictionary'\''s largest size (4096-1048576; implies --dictionary).]:bytes:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_inspect() {
    local -i ret=1
    local -ar arg_specs=(
        ':archive:'
        '--manifest-json[Print the manifest (the one given, or the one beside the archive) as JSON, and nothing else.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_catalog() {
    local -i ret=1
    local -ar arg_specs=(
        ':input:'
        '(--output -o)'{--output,-o}'[Catalog folder to write (created if missing).]:output:'
        '--base-url[Public base URL; products get an absolute url <base-url>/archives/<sha256>.tar.zst.]:base-url:'
        '*--mirror[Mirror base URL clients may also fetch from (repeatable).]:mirror:'
        '--signing-key[Ed25519 key file from `iapcontent keygen`; writes catalog.json.sig.]:signing-key:'
        '--catalog-version[Catalog version; must exceed the published one (default\: previous + 1).]:catalog-version:'
        '--expires-in[Seconds until clients refuse the catalog (re-sign before then).]:expires-in:'
        '--updates-from[For each product, report the update size from this many older versions found in the input folder (0\: none).]:updates-from:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_repo() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'init:Create a repository: root 1 with k-of-n root keys, the online keys, empty bins.'
            'add:Publish the products of a catalog folder: their bins, then snapshot and timestamp.'
            'refresh:Re-sign the online roles that are past half their lifetime (for cron).'
            'rotate-root:Write the next root with new root keys, signed by old and new thresholds.'
            'key:Add or revoke an online key of targets, snapshot, timestamp or bins.'
            'check:Run a client'\''s update check against a repository: the TUF workflow, what it fetched, what it found.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        init|add|refresh|rotate-root|key|check)
            "_iapcontent_repo_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_iapcontent_repo_init() {
    local -i ret=1
    local -ar arg_specs=(
        ':directory:'
        '*--root-key[Root key file (repeatable); every one signs root version 1.]:root-key:'
        '--root-threshold[How many root keys must sign a new root.]:root-threshold:'
        '*--online-key[Online key file (repeatable)\: signs targets, bins, snapshot, timestamp.]:online-key:'
        '--bins-bit-length[Bins\: 2^N of them; a target'\''s bin is the first N bits of SHA-256(path).]:bins-bit-length:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_repo_add() {
    local -i ret=1
    local -ar arg_specs=(
        ':directory:'
        '*:catalogs:'
        '*--online-key[Online key file (repeatable).]:online-key:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_repo_refresh() {
    local -i ret=1
    local -ar arg_specs=(
        ':directory:'
        '*--online-key[Online key file (repeatable).]:online-key:'
        '--force[Re-sign every online role now.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_repo_rotate-root() {
    local -i ret=1
    local -ar arg_specs=(
        ':directory:'
        '*--old-key[Current root key file (repeatable; a threshold of them).]:old-key:'
        '*--new-key[New root key file (repeatable; every one is listed, a threshold signs).]:new-key:'
        '--new-threshold[Threshold of the new root keys (default\: the number of new keys).]:new-threshold:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_repo_key() {
    local -i ret=1
    local -ar _action=('add' 'revoke')
    local -ar _role=('targets' 'snapshot' 'timestamp' 'bins')
    local -ar arg_specs=(
        ':action:{__iapcontent_complete "${_action[@]}"}'
        ':role:{__iapcontent_complete "${_role[@]}"}'
        ':directory:'
        '--key[Key file to add, or to revoke (its key ID is taken from it).]:key:'
        '--key-id[Key ID to revoke, when its file is gone.]:key-id:'
        '*--root-key[Root key file (repeatable)\: targets, snapshot and timestamp keys live in the root.]:root-key:'
        '*--online-key[Online key file of the changed roles (repeatable)\: re-signs what the change affects.]:online-key:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_repo_check() {
    local -i ret=1
    local -ar arg_specs=(
        ':repository:'
        '*:product-i-ds:'
        '--trusted-root[The root.json the app ships.]:file:'
        '--store[The store folder\: journal, partial and verified archives, installed content.]:dir:'
        '--concurrency[Downloads running at once.]:concurrency:'
        '--max-rate[Total receive cap in bytes per second (divided among downloads).]:max-rate:'
        '--ca-file[A PEM file of extra trusted certificate authorities.]:ca-file:'
        '*--header[An extra request header for the catalog, manifests and archives (repeatable), e.g. '\''Authorization\: Bearer <token>'\''.]:header:'
        '--user-agent[The User-Agent of every request (default\: iapcontent/<version>).]:user-agent:'
        '--proxy[A proxy for every request\: http\://host\:port, socks5h\://host\:port; '\'''\'' for none (default\: $https_proxy, $http_proxy).]:url:'
        '--cert[A PEM client certificate, for servers that ask for one.]:file:'
        '--key[The private key of --cert, PEM and unencrypted (default\: in the --cert file).]:file:'
        '--max-attempts[Attempts per download on network errors before failing.]:max-attempts:'
        '--retry-delay[First retry delay in seconds (doubles per attempt).]:retry-delay:'
        '--stall-timeout[Seconds without data before a connection is retried.]:stall-timeout:'
        '--connections[Connections a chunk-indexed download opens at first, over all mirrors (twice as many streams with --http2; it adds more while they pay, up to --max-connections).]:n:'
        '--max-connections[The most connections one chunk-indexed download uses.]:n:'
        '--http2[Ask for HTTP/2\: a chunk-indexed download'\''s connections become streams of one connection per server (over TLS when the server agrees; over http\: the server must speak HTTP/2 directly). The default, HTTP/1.1, opens separate connections, which servers that cap each connection serve faster.]'
        '*--select[This device on a variant axis, most preferred first (repeatable)\: language=fr, language=pt-BR,pt, arch=aarch64, texture=astc,etc2. A product'\''s first install picks its variants by it; the rest come from LANGUAGE/LANG and uname -m.]:axis=value\[,value\]:'
        '--no-prefetch[Install only a purchase'\''s essential packs; its prefetch packs wait for `iapcontent packs --add`.]'
        '--json[Print the result as one JSON object.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_publish() {
    local -i ret=1
    local -ar arg_specs=(
        ':folder:'
        ':s3-url:'
        '--endpoint[The S3-compatible server (default\: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, else AWS itself).]:url:'
        '--region[The region requests are signed for (default\: $AWS_REGION, $AWS_DEFAULT_REGION, the profile'\''s, else us-east-1; R2\: auto).]:name:'
        '--ca-file[A PEM file of the certificate authorities an https endpoint is checked against (default\: $AWS_CA_BUNDLE, else the system'\''s).]:path:'
        '--part-size[Objects larger than this go by multipart upload in parts of this many MiB (5 to 5120).]:MiB:'
        '--parallel[Parts uploaded at once.]:parallel:'
        '(--quiet -q)'{--quiet,-q}'[Print only the summary and errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_prune() {
    local -i ret=1
    local -ar arg_specs=(
        ':s3-url:'
        '--keep[How many published catalogs, newest first, keep their archives (the live one always does).]:keep:'
        '--min-age[Keep objects written less than this many seconds ago (a publish may be under way).]:seconds:'
        '--dry-run[List what would be deleted; delete nothing.]'
        '--endpoint[The S3-compatible server (default\: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, else AWS itself).]:url:'
        '--region[The region requests are signed for (default\: $AWS_REGION, $AWS_DEFAULT_REGION, the profile'\''s, else us-east-1; R2\: auto).]:name:'
        '--ca-file[A PEM file of the certificate authorities an https endpoint is checked against (default\: $AWS_CA_BUNDLE, else the system'\''s).]:path:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_keygen() {
    local -i ret=1
    local -ar arg_specs=(
        '(--output -o)'{--output,-o}'[Key file to create.]:output:'
        '--token-key[Create a URL-token (HMAC) key instead of a signing key.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_entitlements() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'sign:Sign a customer'\''s entitlements: adds issuedAt and sequence, writes FILE and FILE.sig.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        sign)
            "_iapcontent_entitlements_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_iapcontent_entitlements_sign() {
    local -i ret=1
    local -ar arg_specs=(
        ':input:'
        '--signing-key[Ed25519 key file from `iapcontent keygen`.]:signing-key:'
        '(--output -o)'{--output,-o}'[Document to write; its signature goes to <output>.sig.]:output:'
        '--sequence[Sequence; clients refuse one lower than they saw for the subject (default\: the current Unix time).]:sequence:'
        '--expires-in[Seconds until clients refuse the document (sign a fresh one before then).]:expires-in:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_serve() {
    local -i ret=1
    local -ar arg_specs=(
        ':directory:'
        '--host[Address to bind (loopback by default).]:host:'
        '--port[Port to bind; 0 picks a free port.]:port:'
        '--token-key[URL-token key file (`iapcontent keygen --token-key`); protects archives/*.]:token-key:'
        '(--quiet -q)'{--quiet,-q}'[Only errors\: no progress display, no notes.]'
        '*'{--verbose,-v}'[More detail on stderr (debug logging; twice for trace).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_sign-url() {
    local -i ret=1
    local -ar arg_specs=(
        ':url:'
        '--token-key[URL-token key file (`iapcontent keygen --token-key`).]:token-key:'
        '--product[The product the purchaser owns.]:product:'
        '--expires-in[Seconds the URL stays valid.]:expires-in:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_download() {
    local -i ret=1
    local -ar arg_specs=(
        '*:product-i-ds:'
        '--catalog[The catalog\: an http(s) URL or a file path (default\: $IAPCONTENT_CATALOG).]:url:'
        '*--public-key[A trusted catalog-signing public key, base64 (repeatable; default\: $IAPCONTENT_PUBLIC_KEY, comma-separated).]:base64:'
        '--trusted-root[A TUF repository'\''s root.json the app ships\: --catalog then names the repository'\''s folder URL (default\: $IAPCONTENT_TRUSTED_ROOT).]:file:'
        '--token-key[Development\: a URL token key file; archive URLs get fresh tokens minted locally.]:token-key:'
        '--store[The store folder\: journal, partial and verified archives, installed content.]:dir:'
        '(--quiet -q)'{--quiet,-q}'[Only errors\: no progress display, no notes.]'
        '*'{--verbose,-v}'[More detail on stderr (debug logging; twice for trace).]'
        '--json[Progress as JSON lines (the keys of `status --json` plus "event"); nothing else on stdout.]'
        '--concurrency[Downloads running at once.]:concurrency:'
        '--max-rate[Total receive cap in bytes per second (divided among downloads).]:max-rate:'
        '--ca-file[A PEM file of extra trusted certificate authorities.]:ca-file:'
        '*--header[An extra request header for the catalog, manifests and archives (repeatable), e.g. '\''Authorization\: Bearer <token>'\''.]:header:'
        '--user-agent[The User-Agent of every request (default\: iapcontent/<version>).]:user-agent:'
        '--proxy[A proxy for every request\: http\://host\:port, socks5h\://host\:port; '\'''\'' for none (default\: $https_proxy, $http_proxy).]:url:'
        '--cert[A PEM client certificate, for servers that ask for one.]:file:'
        '--key[The private key of --cert, PEM and unencrypted (default\: in the --cert file).]:file:'
        '--max-attempts[Attempts per download on network errors before failing.]:max-attempts:'
        '--retry-delay[First retry delay in seconds (doubles per attempt).]:retry-delay:'
        '--stall-timeout[Seconds without data before a connection is retried.]:stall-timeout:'
        '--connections[Connections a chunk-indexed download opens at first, over all mirrors (twice as many streams with --http2; it adds more while they pay, up to --max-connections).]:n:'
        '--max-connections[The most connections one chunk-indexed download uses.]:n:'
        '--http2[Ask for HTTP/2\: a chunk-indexed download'\''s connections become streams of one connection per server (over TLS when the server agrees; over http\: the server must speak HTTP/2 directly). The default, HTTP/1.1, opens separate connections, which servers that cap each connection serve faster.]'
        '*--select[This device on a variant axis, most preferred first (repeatable)\: language=fr, language=pt-BR,pt, arch=aarch64, texture=astc,etc2. A product'\''s first install picks its variants by it; the rest come from LANGUAGE/LANG and uname -m.]:axis=value\[,value\]:'
        '--no-prefetch[Install only a purchase'\''s essential packs; its prefetch packs wait for `iapcontent packs --add`.]'
        '--no-finish[Leave the transactions unfinished (for inspection with `status`).]'
        '--no-install[Only fetch and verify the archives into the store'\''s transfers/ (no transaction, no install).]'
        '--verify-first[Extract only after the whole archive'\''s SHA-256 matched (no unverified byte reaches libarchive; slower\: no extraction while downloading).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_status() {
    local -i ret=1
    local -ar arg_specs=(
        '--store[The store folder\: journal, partial and verified archives, installed content.]:dir:'
        '--catalog[The catalog\: an http(s) URL or a file path (default\: $IAPCONTENT_CATALOG).]:url:'
        '*--public-key[A trusted catalog-signing public key, base64 (repeatable; default\: $IAPCONTENT_PUBLIC_KEY, comma-separated).]:base64:'
        '--trusted-root[A TUF repository'\''s root.json the app ships\: --catalog then names the repository'\''s folder URL (default\: $IAPCONTENT_TRUSTED_ROOT).]:file:'
        '(--quiet -q)'{--quiet,-q}'[Only errors\: no progress display, no notes.]'
        '*'{--verbose,-v}'[More detail on stderr (debug logging; twice for trace).]'
        '--json[Print a JSON array, one object per product (shape in the discussion above).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_pause() {
    local -i ret=1
    local -ar arg_specs=(
        '*:product-i-ds:'
        '--store[The store folder\: journal, partial and verified archives, installed content.]:dir:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_resume() {
    local -i ret=1
    local -ar arg_specs=(
        '*:product-i-ds:'
        '--store[The store folder\: journal, partial and verified archives, installed content.]:dir:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_cancel() {
    local -i ret=1
    local -ar arg_specs=(
        '*:product-i-ds:'
        '--store[The store folder\: journal, partial and verified archives, installed content.]:dir:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_daemon() {
    local -i ret=1
    local -ar arg_specs=(
        '--store[The store folder\: journal, partial and verified archives, installed content.]:dir:'
        '--socket[The socket to listen on (default\: the one systemd passes, else $XDG_RUNTIME_DIR/iapcontent/daemon.sock).]:path:'
        '--catalog[The catalog\: an http(s) URL or a file path (default\: $IAPCONTENT_CATALOG).]:url:'
        '*--public-key[A trusted catalog-signing public key, base64 (repeatable; default\: $IAPCONTENT_PUBLIC_KEY, comma-separated).]:base64:'
        '--trusted-root[A TUF repository'\''s root.json the app ships\: --catalog then names the repository'\''s folder URL (default\: $IAPCONTENT_TRUSTED_ROOT).]:file:'
        '(--quiet -q)'{--quiet,-q}'[Only errors\: no progress display, no notes.]'
        '*'{--verbose,-v}'[More detail on stderr (debug logging; twice for trace).]'
        '--concurrency[Downloads running at once.]:concurrency:'
        '--max-rate[Total receive cap in bytes per second (divided among downloads).]:max-rate:'
        '--ca-file[A PEM file of extra trusted certificate authorities.]:ca-file:'
        '*--header[An extra request header for the catalog, manifests and archives (repeatable), e.g. '\''Authorization\: Bearer <token>'\''.]:header:'
        '--user-agent[The User-Agent of every request (default\: iapcontent/<version>).]:user-agent:'
        '--proxy[A proxy for every request\: http\://host\:port, socks5h\://host\:port; '\'''\'' for none (default\: $https_proxy, $http_proxy).]:url:'
        '--cert[A PEM client certificate, for servers that ask for one.]:file:'
        '--key[The private key of --cert, PEM and unencrypted (default\: in the --cert file).]:file:'
        '--max-attempts[Attempts per download on network errors before failing.]:max-attempts:'
        '--retry-delay[First retry delay in seconds (doubles per attempt).]:retry-delay:'
        '--stall-timeout[Seconds without data before a connection is retried.]:stall-timeout:'
        '--connections[Connections a chunk-indexed download opens at first, over all mirrors (twice as many streams with --http2; it adds more while they pay, up to --max-connections).]:n:'
        '--max-connections[The most connections one chunk-indexed download uses.]:n:'
        '--http2[Ask for HTTP/2\: a chunk-indexed download'\''s connections become streams of one connection per server (over TLS when the server agrees; over http\: the server must speak HTTP/2 directly). The default, HTTP/1.1, opens separate connections, which servers that cap each connection serve faster.]'
        '*--select[This device on a variant axis, most preferred first (repeatable)\: language=fr, language=pt-BR,pt, arch=aarch64, texture=astc,etc2. A product'\''s first install picks its variants by it; the rest come from LANGUAGE/LANG and uname -m.]:axis=value\[,value\]:'
        '--no-prefetch[Install only a purchase'\''s essential packs; its prefetch packs wait for `iapcontent packs --add`.]'
        '--check-interval[Seconds between update checks (the catalog loaded again; `update.available` for each new version); 0\: none.]:seconds:'
        '--openrpc[Print the protocol'\''s OpenRPC document (what `rpc.discover` answers; docs/openrpc.json) and exit.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_content() {
    local -i ret=1
    local -ar arg_specs=(
        ':product-id:'
        '--store[The store folder\: journal, partial and verified archives, installed content.]:dir:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_packs() {
    local -i ret=1
    local -ar arg_specs=(
        ':product-id:'
        '*--add[A pack to install (repeatable)\: on-demand or prefetch packs, all in one download.]:pack:'
        '*--remove[A pack to remove (repeatable); essential packs stay.]:pack:'
        '--catalog[The catalog\: an http(s) URL or a file path (default\: $IAPCONTENT_CATALOG).]:url:'
        '*--public-key[A trusted catalog-signing public key, base64 (repeatable; default\: $IAPCONTENT_PUBLIC_KEY, comma-separated).]:base64:'
        '--trusted-root[A TUF repository'\''s root.json the app ships\: --catalog then names the repository'\''s folder URL (default\: $IAPCONTENT_TRUSTED_ROOT).]:file:'
        '--store[The store folder\: journal, partial and verified archives, installed content.]:dir:'
        '(--quiet -q)'{--quiet,-q}'[Only errors\: no progress display, no notes.]'
        '*'{--verbose,-v}'[More detail on stderr (debug logging; twice for trace).]'
        '--concurrency[Downloads running at once.]:concurrency:'
        '--max-rate[Total receive cap in bytes per second (divided among downloads).]:max-rate:'
        '--ca-file[A PEM file of extra trusted certificate authorities.]:ca-file:'
        '*--header[An extra request header for the catalog, manifests and archives (repeatable), e.g. '\''Authorization\: Bearer <token>'\''.]:header:'
        '--user-agent[The User-Agent of every request (default\: iapcontent/<version>).]:user-agent:'
        '--proxy[A proxy for every request\: http\://host\:port, socks5h\://host\:port; '\'''\'' for none (default\: $https_proxy, $http_proxy).]:url:'
        '--cert[A PEM client certificate, for servers that ask for one.]:file:'
        '--key[The private key of --cert, PEM and unencrypted (default\: in the --cert file).]:file:'
        '--max-attempts[Attempts per download on network errors before failing.]:max-attempts:'
        '--retry-delay[First retry delay in seconds (doubles per attempt).]:retry-delay:'
        '--stall-timeout[Seconds without data before a connection is retried.]:stall-timeout:'
        '--connections[Connections a chunk-indexed download opens at first, over all mirrors (twice as many streams with --http2; it adds more while they pay, up to --max-connections).]:n:'
        '--max-connections[The most connections one chunk-indexed download uses.]:n:'
        '--http2[Ask for HTTP/2\: a chunk-indexed download'\''s connections become streams of one connection per server (over TLS when the server agrees; over http\: the server must speak HTTP/2 directly). The default, HTTP/1.1, opens separate connections, which servers that cap each connection serve faster.]'
        '*--select[This device on a variant axis, most preferred first (repeatable)\: language=fr, language=pt-BR,pt, arch=aarch64, texture=astc,etc2. A product'\''s first install picks its variants by it; the rest come from LANGUAGE/LANG and uname -m.]:axis=value\[,value\]:'
        '--no-prefetch[Install only a purchase'\''s essential packs; its prefetch packs wait for `iapcontent packs --add`.]'
        '--json[Print the packs as JSON.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_verify() {
    local -i ret=1
    local -ar arg_specs=(
        ':product-id:'
        '--store[The store folder\: journal, partial and verified archives, installed content.]:dir:'
        '--json[Print the result as JSON.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_repair() {
    local -i ret=1
    local -ar arg_specs=(
        ':product-id:'
        '--catalog[The catalog\: an http(s) URL or a file path (default\: $IAPCONTENT_CATALOG).]:url:'
        '*--public-key[A trusted catalog-signing public key, base64 (repeatable; default\: $IAPCONTENT_PUBLIC_KEY, comma-separated).]:base64:'
        '--trusted-root[A TUF repository'\''s root.json the app ships\: --catalog then names the repository'\''s folder URL (default\: $IAPCONTENT_TRUSTED_ROOT).]:file:'
        '--store[The store folder\: journal, partial and verified archives, installed content.]:dir:'
        '(--quiet -q)'{--quiet,-q}'[Only errors\: no progress display, no notes.]'
        '*'{--verbose,-v}'[More detail on stderr (debug logging; twice for trace).]'
        '--concurrency[Downloads running at once.]:concurrency:'
        '--max-rate[Total receive cap in bytes per second (divided among downloads).]:max-rate:'
        '--ca-file[A PEM file of extra trusted certificate authorities.]:ca-file:'
        '*--header[An extra request header for the catalog, manifests and archives (repeatable), e.g. '\''Authorization\: Bearer <token>'\''.]:header:'
        '--user-agent[The User-Agent of every request (default\: iapcontent/<version>).]:user-agent:'
        '--proxy[A proxy for every request\: http\://host\:port, socks5h\://host\:port; '\'''\'' for none (default\: $https_proxy, $http_proxy).]:url:'
        '--cert[A PEM client certificate, for servers that ask for one.]:file:'
        '--key[The private key of --cert, PEM and unencrypted (default\: in the --cert file).]:file:'
        '--max-attempts[Attempts per download on network errors before failing.]:max-attempts:'
        '--retry-delay[First retry delay in seconds (doubles per attempt).]:retry-delay:'
        '--stall-timeout[Seconds without data before a connection is retried.]:stall-timeout:'
        '--connections[Connections a chunk-indexed download opens at first, over all mirrors (twice as many streams with --http2; it adds more while they pay, up to --max-connections).]:n:'
        '--max-connections[The most connections one chunk-indexed download uses.]:n:'
        '--http2[Ask for HTTP/2\: a chunk-indexed download'\''s connections become streams of one connection per server (over TLS when the server agrees; over http\: the server must speak HTTP/2 directly). The default, HTTP/1.1, opens separate connections, which servers that cap each connection serve faster.]'
        '*--select[This device on a variant axis, most preferred first (repeatable)\: language=fr, language=pt-BR,pt, arch=aarch64, texture=astc,etc2. A product'\''s first install picks its variants by it; the rest come from LANGUAGE/LANG and uname -m.]:axis=value\[,value\]:'
        '--no-prefetch[Install only a purchase'\''s essential packs; its prefetch packs wait for `iapcontent packs --add`.]'
        '--json[Print what was found (and repaired) as JSON.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_diff() {
    local -i ret=1
    local -ar arg_specs=(
        ':old:'
        ':new:'
        '--json[Print the result as JSON.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_patch() {
    local -i ret=1
    local -ar arg_specs=(
        ':old-folder:'
        ':new-folder:'
        '--old-manifest[The old version'\''s manifest, as `pack` wrote it.]:file:'
        '--new-manifest[The new version'\''s manifest, as `pack` wrote it.]:file:'
        '(--output -o)'{--output,-o}'[The folder the patch is written to (beside the archives).]:folder:'
        '--json[Print the result as JSON.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_delete() {
    local -i ret=1
    local -ar arg_specs=(
        ':product-id:'
        '--store[The store folder\: journal, partial and verified archives, installed content.]:dir:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_restore() {
    local -i ret=1
    local -ar arg_specs=(
        '--catalog[The catalog\: an http(s) URL or a file path (default\: $IAPCONTENT_CATALOG).]:url:'
        '*--public-key[A trusted catalog-signing public key, base64 (repeatable; default\: $IAPCONTENT_PUBLIC_KEY, comma-separated).]:base64:'
        '--trusted-root[A TUF repository'\''s root.json the app ships\: --catalog then names the repository'\''s folder URL (default\: $IAPCONTENT_TRUSTED_ROOT).]:file:'
        '--store[The store folder\: journal, partial and verified archives, installed content.]:dir:'
        '(--quiet -q)'{--quiet,-q}'[Only errors\: no progress display, no notes.]'
        '*'{--verbose,-v}'[More detail on stderr (debug logging; twice for trace).]'
        '--json[Progress as JSON lines (the keys of `status --json` plus "event"); nothing else on stdout.]'
        '--concurrency[Downloads running at once.]:concurrency:'
        '--max-rate[Total receive cap in bytes per second (divided among downloads).]:max-rate:'
        '--ca-file[A PEM file of extra trusted certificate authorities.]:ca-file:'
        '*--header[An extra request header for the catalog, manifests and archives (repeatable), e.g. '\''Authorization\: Bearer <token>'\''.]:header:'
        '--user-agent[The User-Agent of every request (default\: iapcontent/<version>).]:user-agent:'
        '--proxy[A proxy for every request\: http\://host\:port, socks5h\://host\:port; '\'''\'' for none (default\: $https_proxy, $http_proxy).]:url:'
        '--cert[A PEM client certificate, for servers that ask for one.]:file:'
        '--key[The private key of --cert, PEM and unencrypted (default\: in the --cert file).]:file:'
        '--max-attempts[Attempts per download on network errors before failing.]:max-attempts:'
        '--retry-delay[First retry delay in seconds (doubles per attempt).]:retry-delay:'
        '--stall-timeout[Seconds without data before a connection is retried.]:stall-timeout:'
        '--connections[Connections a chunk-indexed download opens at first, over all mirrors (twice as many streams with --http2; it adds more while they pay, up to --max-connections).]:n:'
        '--max-connections[The most connections one chunk-indexed download uses.]:n:'
        '--http2[Ask for HTTP/2\: a chunk-indexed download'\''s connections become streams of one connection per server (over TLS when the server agrees; over http\: the server must speak HTTP/2 directly). The default, HTTP/1.1, opens separate connections, which servers that cap each connection serve faster.]'
        '*--select[This device on a variant axis, most preferred first (repeatable)\: language=fr, language=pt-BR,pt, arch=aarch64, texture=astc,etc2. A product'\''s first install picks its variants by it; the rest come from LANGUAGE/LANG and uname -m.]:axis=value\[,value\]:'
        '--no-prefetch[Install only a purchase'\''s essential packs; its prefetch packs wait for `iapcontent packs --add`.]'
        '--entitlements[Signed entitlements document (URL or path)\: restore its active products, remove revoked and expired ones.]:url:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_iapcontent_help() {
    local -i ret=1
    local -ar arg_specs=(
        '*:subcommands:'
        '--version[Show the version.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

if [[ "${funcstack[1]}" = _iapcontent ]]; then
    _iapcontent "${@}"
else
    compdef _iapcontent iapcontent
fi
