#!/usr/bin/env bash
# Writes the Debian changelog of PACKAGE at VERSION to stdout, from the project's
# CHANGELOG.md: every "## <version> (<YYYY-MM-DD>)" section up to and including VERSION,
# newest first, each "- change" item an entry (its indented continuation lines joined to it);
# "## Unreleased" is skipped. Fails if VERSION
# has no section.
#   changelog.sh CHANGELOG.md PACKAGE VERSION "Name <email>"
set -euo pipefail
md=$1 package=$2 version=$3 maintainer=$4
[ -f "$md" ] || { echo "changelog.sh: $md does not exist; the package's changelog is made from it (SIMHASH_CHANGELOG=FILE names another)" >&2; exit 1; }

found=0 out="" last_date="" same_date=0
section() { # VERSION DATE ENTRIES: one Debian changelog stanza
    local when
    # Debian wants each entry newer than the one below it; releases of one day (newest first
    # here) get 23:59, 23:58, ...
    if [ "$2" = "$last_date" ]; then same_date=$((same_date + 1)); else same_date=0 last_date=$2; fi
    when=$(date -u -d "$2 23:59:00 UTC" +%s) || { echo "changelog.sh: bad date '$2' for $1 in $md" >&2; exit 1; }
    when=$(date -u -R -d "@$((when - 60 * same_date))")
    printf '%s (%s) unstable; urgency=medium\n\n%s\n -- %s  %s\n\n' "$package" "$1" "$3" "$maintainer" "$when"
}
stanza=$(mktemp)
trap 'rm -f "$stanza"' EXIT
v="" d="" entries="" item=""
entry() { # the pending item as one Debian entry, wrapped to 80 columns: "  * " then "    "
    [ -n "$item" ] || return 0
    entries+=$(fold -s -w 74 <<<"$item" | sed -e 's/ *$//' -e '1s/^/  * /' -e '2,$s/^/    /')$'\n'
    item=""
}
flush() {
    entry
    [ -n "$v" ] || return 0
    [ -n "$entries" ] || { echo "changelog.sh: section $v of $md has no '- ' entries" >&2; exit 1; }
    if dpkg --compare-versions "$v" le "$version"; then
        section "$v" "$d" "$entries" >"$stanza"
        out+=$(<"$stanza")$'\n\n'
        [ "$v" = "$version" ] && found=1
    fi
    return 0
}
while IFS= read -r line || [ -n "$line" ]; do
    if [[ $line =~ ^##\ +([0-9][^ ]*)\ +\(([0-9]{4}-[0-9]{2}-[0-9]{2})\)\ *$ ]]; then
        flush
        v=${BASH_REMATCH[1]} d=${BASH_REMATCH[2]} entries=""
    elif [[ $line =~ ^-\ +(.*)$ && -n $v ]]; then
        entry
        item=${BASH_REMATCH[1]}
    elif [[ $line =~ ^\ +(.*)$ && -n $item ]]; then
        item+=" ${BASH_REMATCH[1]}"
    elif [[ $line =~ ^##\ +[Uu]nreleased\ *$ ]]; then
        flush   # changes not released yet belong to no package version
        v="" d="" entries=""
    elif [[ $line =~ ^##\  ]]; then
        echo "changelog.sh: heading '$line' in $md is not '## <version> (<YYYY-MM-DD>)'" >&2; exit 1
    fi
done <"$md"
flush
[ "$found" = 1 ] || { echo "changelog.sh: $md has no section '## $version (<date>)'" >&2; exit 1; }
printf '%s' "${out%$'\n'}"
