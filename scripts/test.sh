#!/usr/bin/env bash
# The test command of README.md, and what CI runs after installing the
# real peers (.ci/run): static checks, the whole Go test suite, bounded
# fuzzing of every parser, and the kTLS tests inside a real kernel.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== gofmt, go vet"
unformatted=$(gofmt -l .)
if [[ -n "$unformatted" ]]; then
	echo "gofmt needed on:"; echo "$unformatted"; exit 1
fi
go vet ./...
GOOS=darwin go vet ./internal/ktls/ ./internal/usage/ ./server/
GOOS=windows go build ./...

echo "== go test"
go test -count=1 ./...

echo "== fuzz (bounded)"
# -fuzzminimizetime keeps a new interesting input from spending the whole
# budget on minimisation.
fuzz() { go test -run '^$' -fuzz "^$2\$" -fuzztime "${FUZZTIME:-15s}" -fuzzminimizetime 2s "$1"; }
fuzz ./stats FuzzDecodeLatency
fuzz ./internal/ktls FuzzRecordConn
fuzz ./results FuzzDecode
fuzz ./report FuzzReport
fuzz ./keys FuzzParseClientHello
fuzz ./keys FuzzClientHelloFromRecords
fuzz ./probe FuzzWire

echo "== kTLS in a VM"
scripts/ktls-vm-test.sh
