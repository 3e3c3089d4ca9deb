// The baseline of tests/bench/batch.sh: seomoz's simhash-cpp `Simhash::find_all` (its
// permuted sorted tables, Manku et al. 2007), timed on the same fingerprints that
// simhash_duplicates reads. simhash-cpp's sources are not in this repository:
// tests/bench/simhash_cpp/build.sh takes them from the PyPI sdist simhash-py 0.4.0, which
// bundles them, and compiles them with this file.
//
//   find_all K < FINGERPRINTS    one signed decimal fingerprint a line (COPY's output);
//                                prints "PAIRS SECONDS": the pairs of distinct fingerprints
//                                within K bits, and the seconds find_all took (reading
//                                the input not included)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <unordered_set>

#include "simhash.h"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: find_all K < FINGERPRINTS\n";
        return 2;
    }
    const size_t k = std::strtoul(argv[1], nullptr, 10);
    std::unordered_set<Simhash::hash_t> hashes;
    std::string line;
    while (std::getline(std::cin, line)) {
        hashes.insert(static_cast<Simhash::hash_t>(std::stoll(line)));
    }
    // k + 1 blocks: each of the C(k+1, k) tables sorts on one block, the fewest tables
    // that the pigeonhole principle allows, as simhash_duplicates' default does.
    const auto start = std::chrono::steady_clock::now();
    const Simhash::matches_t matches = Simhash::find_all(hashes, k + 1, k);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    std::printf("%zu %.3f\n", matches.size(), took.count());
    return 0;
}
