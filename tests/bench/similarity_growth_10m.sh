#!/usr/bin/env bash
# similarity_growth.sh at 1M and 10M texts (issue 39: time(10M) / time(1M) <= 11, the
# backend's peak memory <= 4 GB at 10M), each with its figures. Long (about 30 minutes and
# 25 GB of disk: a 12 GB table and the run's spill file), so the full `make bench` leaves it
# out (run.sh): `make bench B=similarity_growth_10m`.
exec env SIZES="${SIZES:-1000000 10000000}" bash "$(dirname "$0")/similarity_growth.sh"
