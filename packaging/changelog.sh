#!/usr/bin/env bash
# Writes the Debian changelog of PACKAGE at VERSION to stdout, from the project's
# CHANGELOG.md: every "## <version> (<YYYY-MM-DD>)" section up to and including VERSION,
# newest first, each "- change" line an entry. Fails if VERSION has no section.
#   changelog.sh CHANGELOG.md PACKAGE VERSION "Name <email>"
set -euo pipefail
md=$1 package=$2 version=$3 maintainer=$4
[ -f "$md" ] || { echo "changelog.sh: $md does not exist; the package's changelog is made from it" >&2; exit 1; }

found=0 out=""
section() { # VERSION DATE ENTRIES: one Debian changelog stanza
    local when
    when=$(date -u -R -d "$2 00:00:00 UTC") || { echo "changelog.sh: bad date '$2' for $1 in $md" >&2; exit 1; }
    printf '%s (%s) unstable; urgency=medium\n\n%s\n -- %s  %s\n\n' "$package" "$1" "$3" "$maintainer" "$when"
}
v="" d="" entries=""
flush() {
    [ -n "$v" ] || return 0
    [ -n "$entries" ] || { echo "changelog.sh: section $v of $md has no '- ' entries" >&2; exit 1; }
    if dpkg --compare-versions "$v" le "$version"; then
        out+=$(section "$v" "$d" "$entries")$'\n\n'
        [ "$v" = "$version" ] && found=1
    fi
    return 0
}
while IFS= read -r line || [ -n "$line" ]; do
    if [[ $line =~ ^##\ +([0-9][^ ]*)\ +\(([0-9]{4}-[0-9]{2}-[0-9]{2})\)\ *$ ]]; then
        flush
        v=${BASH_REMATCH[1]} d=${BASH_REMATCH[2]} entries=""
    elif [[ $line =~ ^-\ +(.*)$ && -n $v ]]; then
        # One entry, wrapped to Debian's 80 columns: "  * " then "    " continuations.
        entries+=$(fold -s -w 74 <<<"${BASH_REMATCH[1]}" | sed -e 's/ *$//' -e '1s/^/  * /' -e '2,$s/^/    /')$'\n'
    elif [[ $line =~ ^##\  ]]; then
        echo "changelog.sh: heading '$line' in $md is not '## <version> (<YYYY-MM-DD>)'" >&2; exit 1
    fi
done <"$md"
flush
[ "$found" = 1 ] || { echo "changelog.sh: $md has no section '## $version (<date>)'" >&2; exit 1; }
printf '%s' "${out%$'\n'}"
