# Sourced: how versions and the previous release are found, in one place.
#   cargo_version FILE          the [package] version of a Cargo.toml on stdin or in FILE
#   version_at COMMIT           the extension's version at a commit (its Cargo.toml)
#   previous_release            "<version> <commit>": the version before this tree's, and the
#                               last commit that had it
#
# The previous release is found from Cargo.toml alone: walking back along the first-parent
# history from HEAD, the first commit whose parent has a version other than this tree's
# Cargo.toml version marks the bump; its parent is the last commit of the previous version
# (HEAD itself when the bump is not committed yet). While the current version has not been bumped yet (this tree's version equals the last
# release's), that is simply the last different version in history. packaging/releases names
# the commit instead where a release was cut before the bump (3.0.0).

cargo_version() { # [FILE]
    awk '/^\[/ { pkg = ($0 == "[package]") } pkg && /^version *=/ { gsub(/[" ]/, "", $0); sub(/^version=/, ""); print; exit }' "${1:-/dev/stdin}"
}

version_at() { # COMMIT
    git -C "$(dirname "${BASH_SOURCE[0]}")" show "$1:Cargo.toml" 2>/dev/null | cargo_version
}

previous_release() {
    local dir current c parent v
    dir=$(git -C "$(dirname "${BASH_SOURCE[0]}")" rev-parse --show-toplevel)
    current=$(cargo_version "$dir/Cargo.toml")
    # A commit's version is that of its nearest ancestor touching Cargo.toml, so the newest
    # commit of another version is HEAD or the parent of a commit touching Cargo.toml.
    for parent in HEAD $(git -C "$dir" rev-list --first-parent HEAD -- Cargo.toml | sed 's/$/^/'); do
        parent=$(git -C "$dir" rev-parse -q --verify "$parent" 2>/dev/null) || continue
        v=$(version_at "$parent")
        if [ -n "$v" ] && [ "$v" != "$current" ]; then
            c=$(awk -v v="$v" '$1 == v { print $2 }' "$dir/packaging/releases" 2>/dev/null)
            echo "$v ${c:-$parent}"
            return 0
        fi
    done
    echo "versions.sh: no version before $current in this clone's history (a shallow clone?)" >&2
    return 1
}
