function __iapcontent_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __iapcontent_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __iapcontent_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __iapcontent_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __iapcontent_parse_tokens -S
    set -l unparsed_tokens (__iapcontent_tokens -pc)
    switch $unparsed_tokens[1]
    case 'iapcontent'
        __iapcontent_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'import'
            __iapcontent_parse_subcommand 1 'o/output=' 'target=' 'pack' 'pack-output=' 'max-size=' 'version' 'h/help'
        case 'validate'
            __iapcontent_parse_subcommand 1 'json' 'max-size=' 'version' 'h/help'
        case 'pack'
            __iapcontent_parse_subcommand 1 'o/output=' 'max-size=' 'level=' 'single-frame' 'file-group-bytes=' 'version' 'h/help'
        case 'inspect'
            __iapcontent_parse_subcommand 1 'manifest-json' 'version' 'h/help'
        case 'catalog'
            __iapcontent_parse_subcommand 1 'o/output=' 'base-url=' 'mirror=+' 'signing-key=' 'catalog-version=' 'expires-in=' 'updates-from=' 'version' 'h/help'
        case 'publish'
            __iapcontent_parse_subcommand 2 'endpoint=' 'region=' 'ca-file=' 'part-size=' 'parallel=' 'q/quiet' 'version' 'h/help'
        case 'prune'
            __iapcontent_parse_subcommand 1 'keep=' 'min-age=' 'dry-run' 'endpoint=' 'region=' 'ca-file=' 'version' 'h/help'
        case 'keygen'
            __iapcontent_parse_subcommand 0 'o/output=' 'token-key' 'version' 'h/help'
        case 'entitlements'
            __iapcontent_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'sign'
                __iapcontent_parse_subcommand 1 'signing-key=' 'o/output=' 'sequence=' 'expires-in=' 'version' 'h/help'
            end
        case 'serve'
            __iapcontent_parse_subcommand 1 'host=' 'port=' 'token-key=' 'q/quiet' 'v/verbose' 'version' 'h/help'
        case 'sign-url'
            __iapcontent_parse_subcommand 1 'token-key=' 'product=' 'expires-in=' 'version' 'h/help'
        case 'download'
            __iapcontent_parse_subcommand -r 1 'catalog=' 'public-key=+' 'token-key=' 'store=' 'q/quiet' 'v/verbose' 'json' 'concurrency=' 'max-rate=' 'ca-file=' 'header=+' 'user-agent=' 'proxy=' 'cert=' 'key=' 'max-attempts=' 'retry-delay=' 'stall-timeout=' 'connections=' 'max-connections=' 'http2' 'select=+' 'no-prefetch' 'no-finish' 'no-install' 'verify-first' 'version' 'h/help'
        case 'status'
            __iapcontent_parse_subcommand 0 'store=' 'catalog=' 'public-key=+' 'q/quiet' 'v/verbose' 'json' 'version' 'h/help'
        case 'pause'
            __iapcontent_parse_subcommand -r 1 'store=' 'version' 'h/help'
        case 'resume'
            __iapcontent_parse_subcommand -r 1 'store=' 'version' 'h/help'
        case 'cancel'
            __iapcontent_parse_subcommand -r 1 'store=' 'version' 'h/help'
        case 'daemon'
            __iapcontent_parse_subcommand 0 'store=' 'socket=' 'catalog=' 'public-key=+' 'q/quiet' 'v/verbose' 'concurrency=' 'max-rate=' 'ca-file=' 'header=+' 'user-agent=' 'proxy=' 'cert=' 'key=' 'max-attempts=' 'retry-delay=' 'stall-timeout=' 'connections=' 'max-connections=' 'http2' 'select=+' 'no-prefetch' 'openrpc' 'version' 'h/help'
        case 'content'
            __iapcontent_parse_subcommand 1 'store=' 'version' 'h/help'
        case 'packs'
            __iapcontent_parse_subcommand 1 'add=+' 'remove=+' 'catalog=' 'public-key=+' 'store=' 'q/quiet' 'v/verbose' 'concurrency=' 'max-rate=' 'ca-file=' 'header=+' 'user-agent=' 'proxy=' 'cert=' 'key=' 'max-attempts=' 'retry-delay=' 'stall-timeout=' 'connections=' 'max-connections=' 'http2' 'select=+' 'no-prefetch' 'json' 'version' 'h/help'
        case 'verify'
            __iapcontent_parse_subcommand 1 'store=' 'json' 'version' 'h/help'
        case 'repair'
            __iapcontent_parse_subcommand 1 'catalog=' 'public-key=+' 'store=' 'q/quiet' 'v/verbose' 'concurrency=' 'max-rate=' 'ca-file=' 'header=+' 'user-agent=' 'proxy=' 'cert=' 'key=' 'max-attempts=' 'retry-delay=' 'stall-timeout=' 'connections=' 'max-connections=' 'http2' 'select=+' 'no-prefetch' 'json' 'version' 'h/help'
        case 'diff'
            __iapcontent_parse_subcommand 2 'json' 'version' 'h/help'
        case 'delete'
            __iapcontent_parse_subcommand 1 'store=' 'version' 'h/help'
        case 'restore'
            __iapcontent_parse_subcommand 0 'catalog=' 'public-key=+' 'store=' 'q/quiet' 'v/verbose' 'json' 'concurrency=' 'max-rate=' 'ca-file=' 'header=+' 'user-agent=' 'proxy=' 'cert=' 'key=' 'max-attempts=' 'retry-delay=' 'stall-timeout=' 'connections=' 'max-connections=' 'http2' 'select=+' 'no-prefetch' 'entitlements=' 'version' 'h/help'
        case 'help'
            __iapcontent_parse_subcommand -r 1 'version'
        end
    end
end

function __iapcontent_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __iapcontent_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __iapcontent_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __iapcontent_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__iapcontent_tokens -p)
    if test -z "$(__iapcontent_tokens -t)"
        set -l index (count (__iapcontent_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'iapcontent' -f
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'import' -d 'Turn Apple-hosted content (built target, Xcode project or uploaded .pkg) into a content folder.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'validate' -d 'Check a content folder (ContentInfo.plist + Contents/); report every problem at once.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'pack' -d 'Pack a content folder into a reproducible <product>-<version>.tar.zst plus its manifest.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'inspect' -d 'Show an archive\'s product, version, sizes and files; verify it against the manifest beside it.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'catalog' -d 'Build a static, content-addressed catalog folder from packed archives.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'publish' -d 'Upload a catalog folder to S3-compatible storage; readers see the old or the new catalog, never a mix.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'prune' -d 'Delete from S3-compatible storage what neither the live catalog nor the last N published ones reference.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'keygen' -d 'Create an Ed25519 catalog signing key, or a URL-token key with --token-key.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'entitlements' -d 'Publish what a customer is entitled to, signed, for `restore --entitlements`.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'serve' -d 'Serve a catalog folder over HTTP (GET/HEAD, byte ranges, strong ETags).'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'sign-url' -d 'Print an archive URL carrying a purchaser token (product, expires, token).'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'download' -d 'Download, verify and install products\' content into a store (resumable), then finish their transactions.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'status' -d 'Show every download in a store: state, bytes, progress, time remaining, last error.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'pause' -d 'Pause downloads (keeps their bytes); a running download applies it within a second.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'resume' -d 'Resume paused downloads; a running download applies it within a second.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'cancel' -d 'Cancel downloads and delete their partial data; a running download applies it within a second.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'daemon' -d 'Serve the store\'s download queue to other programs over a Unix socket (JSON-RPC 2.0, events pushed).'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'content' -d 'Print a product\'s installed content folder (ContentInfo.plist + Contents/); exit 1 if not installed.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'packs' -d 'Show an installed product\'s packs; add or remove packs and switch variants (language=fr) in one atomic change that fetches only what is not on disk.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'verify' -d 'Re-hash a product\'s installed files against its manifest; list damaged, missing and extra files (exit 1 if any).'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'repair' -d 'Verify a product\'s installed files and fetch only the chunks of damaged or missing ones; swap the repaired folder in atomically.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'diff' -d 'Show the bytes a client with OLD installed fetches to update to NEW (chunk-indexed packs).'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'delete' -d 'Delete a product\'s installed content (atomically); exit 1 if it was not installed.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'restore' -d 'Restore: download and install content of previously finished purchases that is missing or older than the catalog\'s.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent import" o output' -l 'output' -s 'o' -d 'The content folder to create (must not exist, or be empty).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent import" target' -l 'target' -d 'The In-App Purchase Content target to import when the project has several.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent import" pack' -l 'pack' -d 'Pack the imported folder too, as `iapcontent pack` does.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent import" pack-output' -l 'pack-output' -d 'Directory for the archive and manifest with --pack.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent import" max-size' -l 'max-size' -d 'Largest total size of the files, in bytes (default 1 TiB).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent import" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent import" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent validate" json' -l 'json' -d 'Print the result as JSON on stdout.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent validate" max-size' -l 'max-size' -d 'Largest total size of the files, in bytes (default 1 TiB).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent validate" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent validate" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent pack" o output' -l 'output' -s 'o' -d 'Directory for the archive and manifest (default: current directory).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent pack" max-size' -l 'max-size' -d 'Largest total size of the files, in bytes (default 1 TiB).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent pack" level' -l 'level' -d 'zstd compression level (1-19).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent pack" single-frame' -l 'single-frame' -d 'Write the older one-frame archive (manifest schema 1, no chunk index) for clients that predate chunk-indexed archives.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent pack" file-group-bytes' -l 'file-group-bytes' -d 'Group files smaller than a chunk into zstd frames of at most this many compressed bytes, cut between files, so an update that changes a few of them fetches little else; 0 leaves them to the content-defined chunks.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent pack" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent pack" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent inspect" manifest-json' -l 'manifest-json' -d 'Print the manifest (the one given, or the one beside the archive) as JSON, and nothing else.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent inspect" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent inspect" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent catalog" o output' -l 'output' -s 'o' -d 'Catalog folder to write (created if missing).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent catalog" base-url' -l 'base-url' -d 'Public base URL; products get an absolute url <base-url>/archives/<sha256>.tar.zst.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent catalog"' -l 'mirror' -d 'Mirror base URL clients may also fetch from (repeatable).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent catalog" signing-key' -l 'signing-key' -d 'Ed25519 key file from `iapcontent keygen`; writes catalog.json.sig.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent catalog" catalog-version' -l 'catalog-version' -d 'Catalog version; must exceed the published one (default: previous + 1).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent catalog" expires-in' -l 'expires-in' -d 'Seconds until clients refuse the catalog (re-sign before then).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent catalog" updates-from' -l 'updates-from' -d 'For each product, report the update size from this many older versions found in the input folder (0: none).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent catalog" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent catalog" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent publish" endpoint' -l 'endpoint' -d 'The S3-compatible server (default: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, else AWS itself).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent publish" region' -l 'region' -d 'The region requests are signed for (default: $AWS_REGION, $AWS_DEFAULT_REGION, the profile\'s, else us-east-1; R2: auto).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent publish" ca-file' -l 'ca-file' -d 'A PEM file of the certificate authorities an https endpoint is checked against (default: $AWS_CA_BUNDLE, else the system\'s).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent publish" part-size' -l 'part-size' -d 'Objects larger than this go by multipart upload in parts of this many MiB (5 to 5120).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent publish" parallel' -l 'parallel' -d 'Parts uploaded at once.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent publish" q quiet' -l 'quiet' -s 'q' -d 'Print only the summary and errors.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent publish" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent publish" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent prune" keep' -l 'keep' -d 'How many published catalogs, newest first, keep their archives (the live one always does).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent prune" min-age' -l 'min-age' -d 'Keep objects written less than this many seconds ago (a publish may be under way).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent prune" dry-run' -l 'dry-run' -d 'List what would be deleted; delete nothing.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent prune" endpoint' -l 'endpoint' -d 'The S3-compatible server (default: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, else AWS itself).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent prune" region' -l 'region' -d 'The region requests are signed for (default: $AWS_REGION, $AWS_DEFAULT_REGION, the profile\'s, else us-east-1; R2: auto).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent prune" ca-file' -l 'ca-file' -d 'A PEM file of the certificate authorities an https endpoint is checked against (default: $AWS_CA_BUNDLE, else the system\'s).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent prune" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent prune" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent keygen" o output' -l 'output' -s 'o' -d 'Key file to create.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent keygen" token-key' -l 'token-key' -d 'Create a URL-token (HMAC) key instead of a signing key.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent keygen" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent keygen" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent entitlements" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent entitlements" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_positional "iapcontent entitlements" -eq 1' -fa 'sign' -d 'Sign a customer\'s entitlements: adds issuedAt and sequence, writes FILE and FILE.sig.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent entitlements sign" signing-key' -l 'signing-key' -d 'Ed25519 key file from `iapcontent keygen`.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent entitlements sign" o output' -l 'output' -s 'o' -d 'Document to write; its signature goes to <output>.sig.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent entitlements sign" sequence' -l 'sequence' -d 'Sequence; clients refuse one lower than they saw for the subject (default: the current Unix time).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent entitlements sign" expires-in' -l 'expires-in' -d 'Seconds until clients refuse the document (sign a fresh one before then).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent entitlements sign" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent entitlements sign" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent serve" host' -l 'host' -d 'Address to bind (loopback by default).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent serve" port' -l 'port' -d 'Port to bind; 0 picks a free port.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent serve" token-key' -l 'token-key' -d 'URL-token key file (`iapcontent keygen --token-key`); protects archives/*.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent serve" q quiet' -l 'quiet' -s 'q' -d 'Only errors: no progress display, no notes.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent serve"' -l 'verbose' -s 'v' -d 'More detail on stderr (debug logging; twice for trace).'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent serve" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent serve" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent sign-url" token-key' -l 'token-key' -d 'URL-token key file (`iapcontent keygen --token-key`).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent sign-url" product' -l 'product' -d 'The product the purchaser owns.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent sign-url" expires-in' -l 'expires-in' -d 'Seconds the URL stays valid.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent sign-url" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent sign-url" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" catalog' -l 'catalog' -d 'The catalog: an http(s) URL or a file path (default: $IAPCONTENT_CATALOG).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download"' -l 'public-key' -d 'A trusted catalog-signing public key, base64 (repeatable; default: $IAPCONTENT_PUBLIC_KEY, comma-separated).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" token-key' -l 'token-key' -d 'Development: a URL token key file; archive URLs get fresh tokens minted locally.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" store' -l 'store' -d 'The store folder: journal, partial and verified archives, installed content.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" q quiet' -l 'quiet' -s 'q' -d 'Only errors: no progress display, no notes.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download"' -l 'verbose' -s 'v' -d 'More detail on stderr (debug logging; twice for trace).'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" json' -l 'json' -d 'Progress as JSON lines (the keys of `status --json` plus "event"); nothing else on stdout.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" concurrency' -l 'concurrency' -d 'Downloads running at once.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" max-rate' -l 'max-rate' -d 'Total receive cap in bytes per second (divided among downloads).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" ca-file' -l 'ca-file' -d 'A PEM file of extra trusted certificate authorities.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download"' -l 'header' -d 'An extra request header for the catalog, manifests and archives (repeatable), e.g. \'Authorization: Bearer <token>\'.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" user-agent' -l 'user-agent' -d 'The User-Agent of every request (default: iapcontent/<version>).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" proxy' -l 'proxy' -d 'A proxy for every request: http://host:port, socks5h://host:port; \'\' for none (default: $https_proxy, $http_proxy).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" cert' -l 'cert' -d 'A PEM client certificate, for servers that ask for one.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" key' -l 'key' -d 'The private key of --cert, PEM and unencrypted (default: in the --cert file).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" max-attempts' -l 'max-attempts' -d 'Attempts per download on network errors before failing.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" retry-delay' -l 'retry-delay' -d 'First retry delay in seconds (doubles per attempt).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" stall-timeout' -l 'stall-timeout' -d 'Seconds without data before a connection is retried.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" connections' -l 'connections' -d 'Connections a chunk-indexed download opens at first, over all mirrors (twice as many streams with --http2; it adds more while they pay, up to --max-connections).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" max-connections' -l 'max-connections' -d 'The most connections one chunk-indexed download uses.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" http2' -l 'http2' -d 'Ask for HTTP/2: a chunk-indexed download\'s connections become streams of one connection per server (over TLS when the server agrees; over http: the server must speak HTTP/2 directly). The default, HTTP/1.1, opens separate connections, which servers that cap each connection serve faster.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download"' -l 'select' -d 'This device on a variant axis, most preferred first (repeatable): language=fr, language=pt-BR,pt, arch=aarch64, texture=astc,etc2. A product\'s first install picks its variants by it; the rest come from LANGUAGE/LANG and uname -m.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" no-prefetch' -l 'no-prefetch' -d 'Install only a purchase\'s essential packs; its prefetch packs wait for `iapcontent packs --add`.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" no-finish' -l 'no-finish' -d 'Leave the transactions unfinished (for inspection with `status`).'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" no-install' -l 'no-install' -d 'Only fetch and verify the archives into the store\'s transfers/ (no transaction, no install).'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" verify-first' -l 'verify-first' -d 'Extract only after the whole archive\'s SHA-256 matched (no unverified byte reaches libarchive; slower: no extraction while downloading).'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent download" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent status" store' -l 'store' -d 'The store folder: journal, partial and verified archives, installed content.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent status" catalog' -l 'catalog' -d 'The catalog: an http(s) URL or a file path (default: $IAPCONTENT_CATALOG).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent status"' -l 'public-key' -d 'A trusted catalog-signing public key, base64 (repeatable; default: $IAPCONTENT_PUBLIC_KEY, comma-separated).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent status" q quiet' -l 'quiet' -s 'q' -d 'Only errors: no progress display, no notes.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent status"' -l 'verbose' -s 'v' -d 'More detail on stderr (debug logging; twice for trace).'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent status" json' -l 'json' -d 'Print a JSON array, one object per product (shape in the discussion above).'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent status" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent pause" store' -l 'store' -d 'The store folder: journal, partial and verified archives, installed content.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent pause" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent pause" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent resume" store' -l 'store' -d 'The store folder: journal, partial and verified archives, installed content.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent resume" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent resume" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent cancel" store' -l 'store' -d 'The store folder: journal, partial and verified archives, installed content.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent cancel" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent cancel" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon" store' -l 'store' -d 'The store folder: journal, partial and verified archives, installed content.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon" socket' -l 'socket' -d 'The socket to listen on (default: the one systemd passes, else $XDG_RUNTIME_DIR/iapcontent/daemon.sock).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon" catalog' -l 'catalog' -d 'The catalog: an http(s) URL or a file path (default: $IAPCONTENT_CATALOG).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon"' -l 'public-key' -d 'A trusted catalog-signing public key, base64 (repeatable; default: $IAPCONTENT_PUBLIC_KEY, comma-separated).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon" q quiet' -l 'quiet' -s 'q' -d 'Only errors: no progress display, no notes.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon"' -l 'verbose' -s 'v' -d 'More detail on stderr (debug logging; twice for trace).'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon" concurrency' -l 'concurrency' -d 'Downloads running at once.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon" max-rate' -l 'max-rate' -d 'Total receive cap in bytes per second (divided among downloads).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon" ca-file' -l 'ca-file' -d 'A PEM file of extra trusted certificate authorities.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon"' -l 'header' -d 'An extra request header for the catalog, manifests and archives (repeatable), e.g. \'Authorization: Bearer <token>\'.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon" user-agent' -l 'user-agent' -d 'The User-Agent of every request (default: iapcontent/<version>).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon" proxy' -l 'proxy' -d 'A proxy for every request: http://host:port, socks5h://host:port; \'\' for none (default: $https_proxy, $http_proxy).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon" cert' -l 'cert' -d 'A PEM client certificate, for servers that ask for one.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon" key' -l 'key' -d 'The private key of --cert, PEM and unencrypted (default: in the --cert file).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon" max-attempts' -l 'max-attempts' -d 'Attempts per download on network errors before failing.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon" retry-delay' -l 'retry-delay' -d 'First retry delay in seconds (doubles per attempt).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon" stall-timeout' -l 'stall-timeout' -d 'Seconds without data before a connection is retried.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon" connections' -l 'connections' -d 'Connections a chunk-indexed download opens at first, over all mirrors (twice as many streams with --http2; it adds more while they pay, up to --max-connections).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon" max-connections' -l 'max-connections' -d 'The most connections one chunk-indexed download uses.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon" http2' -l 'http2' -d 'Ask for HTTP/2: a chunk-indexed download\'s connections become streams of one connection per server (over TLS when the server agrees; over http: the server must speak HTTP/2 directly). The default, HTTP/1.1, opens separate connections, which servers that cap each connection serve faster.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon"' -l 'select' -d 'This device on a variant axis, most preferred first (repeatable): language=fr, language=pt-BR,pt, arch=aarch64, texture=astc,etc2. A product\'s first install picks its variants by it; the rest come from LANGUAGE/LANG and uname -m.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon" no-prefetch' -l 'no-prefetch' -d 'Install only a purchase\'s essential packs; its prefetch packs wait for `iapcontent packs --add`.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon" openrpc' -l 'openrpc' -d 'Print the protocol\'s OpenRPC document (what `rpc.discover` answers; docs/openrpc.json) and exit.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent daemon" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent content" store' -l 'store' -d 'The store folder: journal, partial and verified archives, installed content.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent content" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent content" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs"' -l 'add' -d 'A pack to install (repeatable): on-demand or prefetch packs, all in one download.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs"' -l 'remove' -d 'A pack to remove (repeatable); essential packs stay.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs" catalog' -l 'catalog' -d 'The catalog: an http(s) URL or a file path (default: $IAPCONTENT_CATALOG).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs"' -l 'public-key' -d 'A trusted catalog-signing public key, base64 (repeatable; default: $IAPCONTENT_PUBLIC_KEY, comma-separated).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs" store' -l 'store' -d 'The store folder: journal, partial and verified archives, installed content.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs" q quiet' -l 'quiet' -s 'q' -d 'Only errors: no progress display, no notes.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs"' -l 'verbose' -s 'v' -d 'More detail on stderr (debug logging; twice for trace).'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs" concurrency' -l 'concurrency' -d 'Downloads running at once.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs" max-rate' -l 'max-rate' -d 'Total receive cap in bytes per second (divided among downloads).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs" ca-file' -l 'ca-file' -d 'A PEM file of extra trusted certificate authorities.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs"' -l 'header' -d 'An extra request header for the catalog, manifests and archives (repeatable), e.g. \'Authorization: Bearer <token>\'.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs" user-agent' -l 'user-agent' -d 'The User-Agent of every request (default: iapcontent/<version>).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs" proxy' -l 'proxy' -d 'A proxy for every request: http://host:port, socks5h://host:port; \'\' for none (default: $https_proxy, $http_proxy).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs" cert' -l 'cert' -d 'A PEM client certificate, for servers that ask for one.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs" key' -l 'key' -d 'The private key of --cert, PEM and unencrypted (default: in the --cert file).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs" max-attempts' -l 'max-attempts' -d 'Attempts per download on network errors before failing.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs" retry-delay' -l 'retry-delay' -d 'First retry delay in seconds (doubles per attempt).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs" stall-timeout' -l 'stall-timeout' -d 'Seconds without data before a connection is retried.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs" connections' -l 'connections' -d 'Connections a chunk-indexed download opens at first, over all mirrors (twice as many streams with --http2; it adds more while they pay, up to --max-connections).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs" max-connections' -l 'max-connections' -d 'The most connections one chunk-indexed download uses.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs" http2' -l 'http2' -d 'Ask for HTTP/2: a chunk-indexed download\'s connections become streams of one connection per server (over TLS when the server agrees; over http: the server must speak HTTP/2 directly). The default, HTTP/1.1, opens separate connections, which servers that cap each connection serve faster.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs"' -l 'select' -d 'This device on a variant axis, most preferred first (repeatable): language=fr, language=pt-BR,pt, arch=aarch64, texture=astc,etc2. A product\'s first install picks its variants by it; the rest come from LANGUAGE/LANG and uname -m.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs" no-prefetch' -l 'no-prefetch' -d 'Install only a purchase\'s essential packs; its prefetch packs wait for `iapcontent packs --add`.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs" json' -l 'json' -d 'Print the packs as JSON.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent packs" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent verify" store' -l 'store' -d 'The store folder: journal, partial and verified archives, installed content.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent verify" json' -l 'json' -d 'Print the result as JSON.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent verify" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent verify" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair" catalog' -l 'catalog' -d 'The catalog: an http(s) URL or a file path (default: $IAPCONTENT_CATALOG).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair"' -l 'public-key' -d 'A trusted catalog-signing public key, base64 (repeatable; default: $IAPCONTENT_PUBLIC_KEY, comma-separated).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair" store' -l 'store' -d 'The store folder: journal, partial and verified archives, installed content.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair" q quiet' -l 'quiet' -s 'q' -d 'Only errors: no progress display, no notes.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair"' -l 'verbose' -s 'v' -d 'More detail on stderr (debug logging; twice for trace).'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair" concurrency' -l 'concurrency' -d 'Downloads running at once.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair" max-rate' -l 'max-rate' -d 'Total receive cap in bytes per second (divided among downloads).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair" ca-file' -l 'ca-file' -d 'A PEM file of extra trusted certificate authorities.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair"' -l 'header' -d 'An extra request header for the catalog, manifests and archives (repeatable), e.g. \'Authorization: Bearer <token>\'.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair" user-agent' -l 'user-agent' -d 'The User-Agent of every request (default: iapcontent/<version>).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair" proxy' -l 'proxy' -d 'A proxy for every request: http://host:port, socks5h://host:port; \'\' for none (default: $https_proxy, $http_proxy).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair" cert' -l 'cert' -d 'A PEM client certificate, for servers that ask for one.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair" key' -l 'key' -d 'The private key of --cert, PEM and unencrypted (default: in the --cert file).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair" max-attempts' -l 'max-attempts' -d 'Attempts per download on network errors before failing.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair" retry-delay' -l 'retry-delay' -d 'First retry delay in seconds (doubles per attempt).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair" stall-timeout' -l 'stall-timeout' -d 'Seconds without data before a connection is retried.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair" connections' -l 'connections' -d 'Connections a chunk-indexed download opens at first, over all mirrors (twice as many streams with --http2; it adds more while they pay, up to --max-connections).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair" max-connections' -l 'max-connections' -d 'The most connections one chunk-indexed download uses.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair" http2' -l 'http2' -d 'Ask for HTTP/2: a chunk-indexed download\'s connections become streams of one connection per server (over TLS when the server agrees; over http: the server must speak HTTP/2 directly). The default, HTTP/1.1, opens separate connections, which servers that cap each connection serve faster.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair"' -l 'select' -d 'This device on a variant axis, most preferred first (repeatable): language=fr, language=pt-BR,pt, arch=aarch64, texture=astc,etc2. A product\'s first install picks its variants by it; the rest come from LANGUAGE/LANG and uname -m.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair" no-prefetch' -l 'no-prefetch' -d 'Install only a purchase\'s essential packs; its prefetch packs wait for `iapcontent packs --add`.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair" json' -l 'json' -d 'Print what was found (and repaired) as JSON.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent repair" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent diff" json' -l 'json' -d 'Print the result as JSON.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent diff" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent diff" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent delete" store' -l 'store' -d 'The store folder: journal, partial and verified archives, installed content.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent delete" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent delete" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore" catalog' -l 'catalog' -d 'The catalog: an http(s) URL or a file path (default: $IAPCONTENT_CATALOG).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore"' -l 'public-key' -d 'A trusted catalog-signing public key, base64 (repeatable; default: $IAPCONTENT_PUBLIC_KEY, comma-separated).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore" store' -l 'store' -d 'The store folder: journal, partial and verified archives, installed content.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore" q quiet' -l 'quiet' -s 'q' -d 'Only errors: no progress display, no notes.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore"' -l 'verbose' -s 'v' -d 'More detail on stderr (debug logging; twice for trace).'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore" json' -l 'json' -d 'Progress as JSON lines (the keys of `status --json` plus "event"); nothing else on stdout.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore" concurrency' -l 'concurrency' -d 'Downloads running at once.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore" max-rate' -l 'max-rate' -d 'Total receive cap in bytes per second (divided among downloads).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore" ca-file' -l 'ca-file' -d 'A PEM file of extra trusted certificate authorities.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore"' -l 'header' -d 'An extra request header for the catalog, manifests and archives (repeatable), e.g. \'Authorization: Bearer <token>\'.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore" user-agent' -l 'user-agent' -d 'The User-Agent of every request (default: iapcontent/<version>).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore" proxy' -l 'proxy' -d 'A proxy for every request: http://host:port, socks5h://host:port; \'\' for none (default: $https_proxy, $http_proxy).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore" cert' -l 'cert' -d 'A PEM client certificate, for servers that ask for one.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore" key' -l 'key' -d 'The private key of --cert, PEM and unencrypted (default: in the --cert file).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore" max-attempts' -l 'max-attempts' -d 'Attempts per download on network errors before failing.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore" retry-delay' -l 'retry-delay' -d 'First retry delay in seconds (doubles per attempt).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore" stall-timeout' -l 'stall-timeout' -d 'Seconds without data before a connection is retried.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore" connections' -l 'connections' -d 'Connections a chunk-indexed download opens at first, over all mirrors (twice as many streams with --http2; it adds more while they pay, up to --max-connections).' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore" max-connections' -l 'max-connections' -d 'The most connections one chunk-indexed download uses.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore" http2' -l 'http2' -d 'Ask for HTTP/2: a chunk-indexed download\'s connections become streams of one connection per server (over TLS when the server agrees; over http: the server must speak HTTP/2 directly). The default, HTTP/1.1, opens separate connections, which servers that cap each connection serve faster.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore"' -l 'select' -d 'This device on a variant axis, most preferred first (repeatable): language=fr, language=pt-BR,pt, arch=aarch64, texture=astc,etc2. A product\'s first install picks its variants by it; the rest come from LANGUAGE/LANG and uname -m.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore" no-prefetch' -l 'no-prefetch' -d 'Install only a purchase\'s essential packs; its prefetch packs wait for `iapcontent packs --add`.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore" entitlements' -l 'entitlements' -d 'Signed entitlements document (URL or path): restore its active products, remove revoked and expired ones.' -rfka ''
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore" version' -l 'version' -d 'Show the version.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent restore" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'iapcontent' -n '__iapcontent_should_offer_completions_for_flags_or_options "iapcontent help" version' -l 'version' -d 'Show the version.'
