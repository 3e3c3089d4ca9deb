#!/usr/bin/env bash
# Builds target/bench/simhash-cpp/find_all (tests/bench/simhash_cpp/find_all.cpp) with
# seomoz's simhash-cpp (MIT), whose sources ship inside the PyPI sdist simhash-py 0.4.0:
# downloaded once with pip (pinned), never committed here. Prints the binary's path.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(cd "$here/../../.." && pwd)/target/bench/simhash-cpp
bin=$out/find_all
if [ ! -x "$bin" ] || [ "$here/find_all.cpp" -nt "$bin" ]; then
    mkdir -p "$out"
    [ -s "$out/simhash-py-0.4.0.tar.gz" ] ||
        python3 -m pip download -q --no-deps --no-binary :all: -d "$out" simhash-py==0.4.0 >&2
    rm -rf "$out/src" && mkdir "$out/src"
    tar -xzf "$out/simhash-py-0.4.0.tar.gz" -C "$out/src" --strip-components=3 simhash-py-0.4.0/simhash/simhash-cpp
    g++ -O3 -std=c++11 -I "$out/src/include" -o "$bin.new" "$here/find_all.cpp" "$out/src/src/"*.cpp
    mv "$bin.new" "$bin"
fi
echo "$bin"
