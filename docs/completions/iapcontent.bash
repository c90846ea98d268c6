#!/bin/bash

__iapcontent_cursor_index_in_current_word() {
    local remaining="${COMP_LINE}"

    local word
    for word in "${COMP_WORDS[@]::COMP_CWORD}"; do
        remaining="${remaining##*([[:space:]])"${word}"*([[:space:]])}"
    done

    local -ir index="$((COMP_POINT - ${#COMP_LINE} + ${#remaining}))"
    if [[ "${index}" -le 0 ]]; then
        printf 0
    else
        printf %s "${index}"
    fi
}

# positional arguments:
#
# - 1: the current (sub)command's count of positional arguments
#
# required variables:
#
# - repeating_flags: the repeating flags that the current (sub)command can accept
# - non_repeating_flags: the non-repeating flags that the current (sub)command can accept
# - repeating_options: the repeating options that the current (sub)command can accept
# - non_repeating_options: the non-repeating options that the current (sub)command can accept
# - positional_number: value ignored
# - unparsed_words: unparsed words from the current command line
#
# modified variables:
#
# - non_repeating_flags: remove flags for this (sub)command that are already on the command line
# - non_repeating_options: remove options for this (sub)command that are already on the command line
# - positional_number: set to the current positional number
# - unparsed_words: remove all flags, options, and option values for this (sub)command
__iapcontent_offer_flags_options() {
    local -ir positional_count="${1}"
    positional_number=0

    local was_flag_option_terminator_seen=false
    local is_parsing_option_value=false

    local -ar unparsed_word_indices=("${!unparsed_words[@]}")
    local -i word_index
    for word_index in "${unparsed_word_indices[@]}"; do
        if "${is_parsing_option_value}"; then
            # This word is an option value:
            # Reset marker for next word iff not currently the last word
            [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]] && is_parsing_option_value=false
            unset "unparsed_words[${word_index}]"
            # Do not process this word as a flag or an option
            continue
        fi

        local word="${unparsed_words["${word_index}"]}"
        if ! "${was_flag_option_terminator_seen}"; then
            case "${word}" in
            --)
                unset "unparsed_words[${word_index}]"
                # by itself -- is a flag/option terminator, but if it is the last word, it is the start of a completion
                if [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                    was_flag_option_terminator_seen=true
                fi
                continue
                ;;
            -*)
                # ${word} is a flag or an option
                # If ${word} is an option, mark that the next word to be parsed is an option value
                local option
                for option in "${repeating_options[@]}" "${non_repeating_options[@]}"; do
                    [[ "${word}" = "${option}" ]] && is_parsing_option_value=true && break
                done

                # Remove ${word} from ${non_repeating_flags} or ${non_repeating_options} so it isn't offered again
                local not_found=true
                local -i index
                for index in "${!non_repeating_flags[@]}"; do
                    if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                        unset "non_repeating_flags[${index}]"
                        non_repeating_flags=("${non_repeating_flags[@]}")
                        not_found=false
                        break
                    fi
                done
                if "${not_found}"; then
                    for index in "${!non_repeating_flags[@]}"; do
                        if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                            unset "non_repeating_flags[${index}]"
                            non_repeating_flags=("${non_repeating_flags[@]}")
                            break
                        fi
                    done
                fi
                unset "unparsed_words[${word_index}]"
                continue
                ;;
            esac
        fi

        # ${word} is neither a flag, nor an option, nor an option value
        if [[ "${positional_number}" -lt "${positional_count}" || "${positional_count}" -lt 0 ]]; then
            # ${word} is a positional
            ((positional_number++))
            unset "unparsed_words[${word_index}]"
        else
            if [[ -z "${word}" ]]; then
                # Could be completing a flag, option, or subcommand
                positional_number=-1
            else
                # ${word} is a subcommand or invalid, so stop processing this (sub)command
                positional_number=-2
            fi
            break
        fi
    done

    unparsed_words=("${unparsed_words[@]}")

    if\
        ! "${was_flag_option_terminator_seen}"\
        && ! "${is_parsing_option_value}"\
        && [[ ("${cur}" = -* && "${positional_number}" -ge 0) || "${positional_number}" -eq -1 ]]
    then
        COMPREPLY+=($(compgen -W "${repeating_flags[*]} ${non_repeating_flags[*]} ${repeating_options[*]} ${non_repeating_options[*]}" -- "${cur}"))
    fi
}

__iapcontent_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

__iapcontent_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_iapcontent() {
    local state
    state="$(shopt -p;shopt -po)"
    trap "${state//$'\n'/;}" RETURN
    shopt -s extglob
    set +o history +o posix

    local -xr SAP_SHELL=bash
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(IFS='.';printf %s "${BASH_VERSINFO[*]}")"
    local -r SAP_SHELL_VERSION

    local -r cur="${2}"
    local -r prev="${3}"

    local -i positional_number
    local -a unparsed_words=("${COMP_WORDS[@]:1:${COMP_CWORD}}")

    local -a repeating_flags=()
    local -a non_repeating_flags=(--version -h --help)
    local -a repeating_options=()
    local -a non_repeating_options=()
    __iapcontent_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    import|validate|pack|inspect|catalog|repo|publish|prune|keygen|entitlements|serve|sign-url|download|status|pause|resume|cancel|daemon|content|packs|verify|repair|diff|patch|delete|restore|help)
        # Offer subcommand argument completions
        "_iapcontent_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'import validate pack inspect catalog repo publish prune keygen entitlements serve sign-url download status pause resume cancel daemon content packs verify repair diff patch delete restore help' -- "${cur}"))
        ;;
    esac
}

_iapcontent_import() {
    repeating_flags=()
    non_repeating_flags=(--pack --version -h --help)
    repeating_options=()
    non_repeating_options=(--output -o --target --pack-output --max-size)
    __iapcontent_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--output'|'-o')
        return
        ;;
    '--target')
        return
        ;;
    '--pack-output')
        return
        ;;
    '--max-size')
        return
        ;;
    esac
}

_iapcontent_validate() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--max-size)
    __iapcontent_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--max-size')
        return
        ;;
    esac
}

_iapcontent_pack() {
    repeating_flags=()
    non_repeating_flags=(--single-frame --dictionary --version -h --help)
    repeating_options=()
    non_repeating_options=(--output -o --max-size --level --file-group-bytes --dictionary-bytes)
    __iapcontent_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--output'|'-o')
        return
        ;;
    '--max-size')
        return
        ;;
    '--level')
        return
        ;;
    '--file-group-bytes')
        return
        ;;
    '--dictionary-bytes')
        return
        ;;
    esac
}

_iapcontent_inspect() {
    repeating_flags=()
    non_repeating_flags=(--manifest-json --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __iapcontent_offer_flags_options 1
}

_iapcontent_catalog() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--mirror)
    non_repeating_options=(--output -o --base-url --signing-key --catalog-version --expires-in --updates-from)
    __iapcontent_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--output'|'-o')
        return
        ;;
    '--base-url')
        return
        ;;
    '--mirror')
        return
        ;;
    '--signing-key')
        return
        ;;
    '--catalog-version')
        return
        ;;
    '--expires-in')
        return
        ;;
    '--updates-from')
        return
        ;;
    esac
}

_iapcontent_repo() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __iapcontent_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    init|add|refresh|rotate-root|key|check)
        # Offer subcommand argument completions
        "_iapcontent_repo_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'init add refresh rotate-root key check' -- "${cur}"))
        ;;
    esac
}

_iapcontent_repo_init() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--root-key --online-key)
    non_repeating_options=(--root-threshold --bins-bit-length)
    __iapcontent_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--root-key')
        return
        ;;
    '--root-threshold')
        return
        ;;
    '--online-key')
        return
        ;;
    '--bins-bit-length')
        return
        ;;
    esac
}

_iapcontent_repo_add() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--online-key)
    non_repeating_options=()
    __iapcontent_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--online-key')
        return
        ;;
    esac
}

_iapcontent_repo_refresh() {
    repeating_flags=()
    non_repeating_flags=(--force --version -h --help)
    repeating_options=(--online-key)
    non_repeating_options=()
    __iapcontent_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--online-key')
        return
        ;;
    esac
}

_iapcontent_repo_rotate-root() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--old-key --new-key)
    non_repeating_options=(--new-threshold)
    __iapcontent_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--old-key')
        return
        ;;
    '--new-key')
        return
        ;;
    '--new-threshold')
        return
        ;;
    esac
}

_iapcontent_repo_key() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--root-key --online-key)
    non_repeating_options=(--key --key-id)
    __iapcontent_offer_flags_options 3

    # Offer option value completions
    case "${prev}" in
    '--key')
        return
        ;;
    '--key-id')
        return
        ;;
    '--root-key')
        return
        ;;
    '--online-key')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __iapcontent_add_completions -W 'add'$'\n''revoke'
        return
        ;;
    2)
        __iapcontent_add_completions -W 'targets'$'\n''snapshot'$'\n''timestamp'$'\n''bins'
        return
        ;;
    esac
}

_iapcontent_repo_check() {
    repeating_flags=()
    non_repeating_flags=(--http2 --no-prefetch --json --version -h --help)
    repeating_options=(--header --select)
    non_repeating_options=(--trusted-root --store --concurrency --max-rate --ca-file --user-agent --proxy --cert --key --max-attempts --retry-delay --stall-timeout --connections --max-connections)
    __iapcontent_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--trusted-root')
        return
        ;;
    '--store')
        return
        ;;
    '--concurrency')
        return
        ;;
    '--max-rate')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--header')
        return
        ;;
    '--user-agent')
        return
        ;;
    '--proxy')
        return
        ;;
    '--cert')
        return
        ;;
    '--key')
        return
        ;;
    '--max-attempts')
        return
        ;;
    '--retry-delay')
        return
        ;;
    '--stall-timeout')
        return
        ;;
    '--connections')
        return
        ;;
    '--max-connections')
        return
        ;;
    '--select')
        return
        ;;
    esac
}

_iapcontent_publish() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --version -h --help)
    repeating_options=()
    non_repeating_options=(--endpoint --region --ca-file --part-size --parallel)
    __iapcontent_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--endpoint')
        return
        ;;
    '--region')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--part-size')
        return
        ;;
    '--parallel')
        return
        ;;
    esac
}

_iapcontent_prune() {
    repeating_flags=()
    non_repeating_flags=(--dry-run --version -h --help)
    repeating_options=()
    non_repeating_options=(--keep --min-age --endpoint --region --ca-file)
    __iapcontent_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--keep')
        return
        ;;
    '--min-age')
        return
        ;;
    '--endpoint')
        return
        ;;
    '--region')
        return
        ;;
    '--ca-file')
        return
        ;;
    esac
}

_iapcontent_keygen() {
    repeating_flags=()
    non_repeating_flags=(--token-key --version -h --help)
    repeating_options=()
    non_repeating_options=(--output -o)
    __iapcontent_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--output'|'-o')
        return
        ;;
    esac
}

_iapcontent_entitlements() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __iapcontent_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    sign)
        # Offer subcommand argument completions
        "_iapcontent_entitlements_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'sign' -- "${cur}"))
        ;;
    esac
}

_iapcontent_entitlements_sign() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--signing-key --output -o --sequence --expires-in)
    __iapcontent_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--signing-key')
        return
        ;;
    '--output'|'-o')
        return
        ;;
    '--sequence')
        return
        ;;
    '--expires-in')
        return
        ;;
    esac
}

_iapcontent_serve() {
    repeating_flags=(--verbose -v)
    non_repeating_flags=(--quiet -q --version -h --help)
    repeating_options=()
    non_repeating_options=(--host --port --token-key)
    __iapcontent_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--host')
        return
        ;;
    '--port')
        return
        ;;
    '--token-key')
        return
        ;;
    esac
}

_iapcontent_sign-url() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--token-key --product --expires-in)
    __iapcontent_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--token-key')
        return
        ;;
    '--product')
        return
        ;;
    '--expires-in')
        return
        ;;
    esac
}

_iapcontent_download() {
    repeating_flags=(--verbose -v)
    non_repeating_flags=(--quiet -q --json --http2 --no-prefetch --no-finish --no-install --verify-first --version -h --help)
    repeating_options=(--public-key --header --select)
    non_repeating_options=(--catalog --trusted-root --token-key --store --concurrency --max-rate --ca-file --user-agent --proxy --cert --key --max-attempts --retry-delay --stall-timeout --connections --max-connections)
    __iapcontent_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--catalog')
        return
        ;;
    '--public-key')
        return
        ;;
    '--trusted-root')
        return
        ;;
    '--token-key')
        return
        ;;
    '--store')
        return
        ;;
    '--concurrency')
        return
        ;;
    '--max-rate')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--header')
        return
        ;;
    '--user-agent')
        return
        ;;
    '--proxy')
        return
        ;;
    '--cert')
        return
        ;;
    '--key')
        return
        ;;
    '--max-attempts')
        return
        ;;
    '--retry-delay')
        return
        ;;
    '--stall-timeout')
        return
        ;;
    '--connections')
        return
        ;;
    '--max-connections')
        return
        ;;
    '--select')
        return
        ;;
    esac
}

_iapcontent_status() {
    repeating_flags=(--verbose -v)
    non_repeating_flags=(--quiet -q --json --version -h --help)
    repeating_options=(--public-key)
    non_repeating_options=(--store --catalog --trusted-root)
    __iapcontent_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        return
        ;;
    '--catalog')
        return
        ;;
    '--public-key')
        return
        ;;
    '--trusted-root')
        return
        ;;
    esac
}

_iapcontent_pause() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--store)
    __iapcontent_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--store')
        return
        ;;
    esac
}

_iapcontent_resume() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--store)
    __iapcontent_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--store')
        return
        ;;
    esac
}

_iapcontent_cancel() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--store)
    __iapcontent_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--store')
        return
        ;;
    esac
}

_iapcontent_daemon() {
    repeating_flags=(--verbose -v)
    non_repeating_flags=(--quiet -q --http2 --no-prefetch --openrpc --version -h --help)
    repeating_options=(--public-key --header --select)
    non_repeating_options=(--store --socket --catalog --trusted-root --concurrency --max-rate --ca-file --user-agent --proxy --cert --key --max-attempts --retry-delay --stall-timeout --connections --max-connections --check-interval)
    __iapcontent_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        return
        ;;
    '--socket')
        return
        ;;
    '--catalog')
        return
        ;;
    '--public-key')
        return
        ;;
    '--trusted-root')
        return
        ;;
    '--concurrency')
        return
        ;;
    '--max-rate')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--header')
        return
        ;;
    '--user-agent')
        return
        ;;
    '--proxy')
        return
        ;;
    '--cert')
        return
        ;;
    '--key')
        return
        ;;
    '--max-attempts')
        return
        ;;
    '--retry-delay')
        return
        ;;
    '--stall-timeout')
        return
        ;;
    '--connections')
        return
        ;;
    '--max-connections')
        return
        ;;
    '--select')
        return
        ;;
    '--check-interval')
        return
        ;;
    esac
}

_iapcontent_content() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--store)
    __iapcontent_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        return
        ;;
    esac
}

_iapcontent_packs() {
    repeating_flags=(--verbose -v)
    non_repeating_flags=(--quiet -q --http2 --no-prefetch --json --version -h --help)
    repeating_options=(--add --remove --public-key --header --select)
    non_repeating_options=(--catalog --trusted-root --store --concurrency --max-rate --ca-file --user-agent --proxy --cert --key --max-attempts --retry-delay --stall-timeout --connections --max-connections)
    __iapcontent_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--add')
        return
        ;;
    '--remove')
        return
        ;;
    '--catalog')
        return
        ;;
    '--public-key')
        return
        ;;
    '--trusted-root')
        return
        ;;
    '--store')
        return
        ;;
    '--concurrency')
        return
        ;;
    '--max-rate')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--header')
        return
        ;;
    '--user-agent')
        return
        ;;
    '--proxy')
        return
        ;;
    '--cert')
        return
        ;;
    '--key')
        return
        ;;
    '--max-attempts')
        return
        ;;
    '--retry-delay')
        return
        ;;
    '--stall-timeout')
        return
        ;;
    '--connections')
        return
        ;;
    '--max-connections')
        return
        ;;
    '--select')
        return
        ;;
    esac
}

_iapcontent_verify() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--store)
    __iapcontent_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        return
        ;;
    esac
}

_iapcontent_repair() {
    repeating_flags=(--verbose -v)
    non_repeating_flags=(--quiet -q --http2 --no-prefetch --json --version -h --help)
    repeating_options=(--public-key --header --select)
    non_repeating_options=(--catalog --trusted-root --store --concurrency --max-rate --ca-file --user-agent --proxy --cert --key --max-attempts --retry-delay --stall-timeout --connections --max-connections)
    __iapcontent_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--catalog')
        return
        ;;
    '--public-key')
        return
        ;;
    '--trusted-root')
        return
        ;;
    '--store')
        return
        ;;
    '--concurrency')
        return
        ;;
    '--max-rate')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--header')
        return
        ;;
    '--user-agent')
        return
        ;;
    '--proxy')
        return
        ;;
    '--cert')
        return
        ;;
    '--key')
        return
        ;;
    '--max-attempts')
        return
        ;;
    '--retry-delay')
        return
        ;;
    '--stall-timeout')
        return
        ;;
    '--connections')
        return
        ;;
    '--max-connections')
        return
        ;;
    '--select')
        return
        ;;
    esac
}

_iapcontent_diff() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __iapcontent_offer_flags_options 2
}

_iapcontent_patch() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--old-manifest --new-manifest --output -o)
    __iapcontent_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--old-manifest')
        return
        ;;
    '--new-manifest')
        return
        ;;
    '--output'|'-o')
        return
        ;;
    esac
}

_iapcontent_delete() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--store)
    __iapcontent_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        return
        ;;
    esac
}

_iapcontent_restore() {
    repeating_flags=(--verbose -v)
    non_repeating_flags=(--quiet -q --json --http2 --no-prefetch --version -h --help)
    repeating_options=(--public-key --header --select)
    non_repeating_options=(--catalog --trusted-root --store --concurrency --max-rate --ca-file --user-agent --proxy --cert --key --max-attempts --retry-delay --stall-timeout --connections --max-connections --entitlements)
    __iapcontent_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--catalog')
        return
        ;;
    '--public-key')
        return
        ;;
    '--trusted-root')
        return
        ;;
    '--store')
        return
        ;;
    '--concurrency')
        return
        ;;
    '--max-rate')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--header')
        return
        ;;
    '--user-agent')
        return
        ;;
    '--proxy')
        return
        ;;
    '--cert')
        return
        ;;
    '--key')
        return
        ;;
    '--max-attempts')
        return
        ;;
    '--retry-delay')
        return
        ;;
    '--stall-timeout')
        return
        ;;
    '--connections')
        return
        ;;
    '--max-connections')
        return
        ;;
    '--select')
        return
        ;;
    '--entitlements')
        return
        ;;
    esac
}

_iapcontent_help() {
    repeating_flags=()
    non_repeating_flags=(--version)
    repeating_options=()
    non_repeating_options=()
    __iapcontent_offer_flags_options -1
}

complete -o filenames -F _iapcontent iapcontent
