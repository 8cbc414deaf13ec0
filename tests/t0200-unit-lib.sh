#!/bin/sh
test_description='C unit tests of the library: keys, records, paths, refs, escaping, JSON, SHA-256 and HMAC'

. "$(dirname "$0")"/test-lib.sh

test_unit lib-basics
test_unit quote
test_unit json
test_unit sha256

test_done
