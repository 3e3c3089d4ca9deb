#!/bin/sh
# RUSTC_WRAPPER for `make test`'s step pg16: compiles the crate pgrx_pg_sys with the cfg
# docsrs, under which it includes the bindings it ships (src/include/pg16.rs) instead of
# generating them from headers; no Debian suite this machine reaches has PostgreSQL 16's.
# Only that crate: others turn docsrs into nightly-only attributes.
rustc=$1
shift
case " $* " in
*" --crate-name pgrx_pg_sys "*) exec "$rustc" "$@" --cfg docsrs ;;
esac
exec "$rustc" "$@"
