#!/usr/bin/env bash
# The whole rankgen test suite, on a fresh Debian/Ubuntu machine with Go installed:
#
#	bash scripts/test.sh
#
# It installs redis-server (the integration tests start private servers on free loopback
# ports; set REDIS_URL to use another server), python3 with python3-redis (Debian's, at
# /usr/bin/python3, for the generated Python clients), chromium (headless, for rankgen
# serve's page) and Debian's nodejs with the npm packages of examples/clients/ts (the
# TypeScript compiler and Redis client that the generated TypeScript modules are tested
# with), downloads the Go modules, checks that
# go.mod/go.sum are tidy, then runs gofmt, go vet, staticcheck, go test ./..., short fuzz
# runs and rankgen check of the committed examples. It stops at the first failing step and exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."

# Pinned tools. staticcheck 2026.2.2 (module version v0.8.2) supports Go 1.26.
STATICCHECK="honnef.co/go/tools/cmd/staticcheck@v0.8.2"
# Fuzz targets run briefly on every build: "package target" per line; add yours here.
# A count, not a duration: a duration is a deadline that also covers the fuzzer's baseline run
# over the seed corpus, which on a loaded machine can outlast 10 s and fail with "context
# deadline exceeded" having fuzzed nothing.
# 30000 each keeps the default suite under 10 minutes on a 2-core machine; FUZZ_TIME=1000000x
# bash scripts/test.sh fuzzes longer.
FUZZ_TIME="${FUZZ_TIME:-30000x}"
FUZZ_TARGETS=(
	"./generator/layout FuzzParse"
	"./generator/layout FuzzCodec"
	"./examples/proptest FuzzDecode"
	"./cmd/rankgen FuzzCodecLines"
	"./cmd/rankgen FuzzSeasonLines"
	"./cmd/rankgen FuzzDataLines"
)

start=$SECONDS
step() { printf '\n==> %s [%ds]\n' "$*" $((SECONDS - start)); }

step "redis-server and redis-cli"
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get install -y redis-server redis-tools || {
		$sudo apt-get update
		$sudo apt-get install -y redis-server redis-tools
	}
fi
redis-server --version

step "python3 and python3-redis (the generated Python clients are tested with Debian's /usr/bin/python3)"
if ! [ -x /usr/bin/python3 ] || ! /usr/bin/python3 -c 'import redis' 2>/dev/null; then
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get install -y python3 python3-redis || {
		$sudo apt-get update
		$sudo apt-get install -y python3 python3-redis
	}
fi
/usr/bin/python3 -c 'import redis, sys; print("python", sys.version.split()[0], "redis-py", redis.__version__)'

step "chromium (rankgen serve's page is tested in headless Chromium)"
if ! command -v chromium >/dev/null; then
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get install -y chromium || {
		$sudo apt-get update
		$sudo apt-get install -y chromium
	}
fi
chromium --version

step "node and npm (the generated TypeScript modules are tested in Node: examples/tstest)"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get install -y nodejs npm || {
		$sudo apt-get update
		$sudo apt-get install -y nodejs npm
	}
fi
node --version
if [ ! -d examples/clients/ts/node_modules ]; then
	# The TypeScript compiler and Redis client pinned by package-lock.json.
	(cd examples/clients/ts && npm ci --no-audit --no-fund)
fi

step "go $(go env GOVERSION): module download"
go mod download

step "go mod tidy"
if ! tidy=$(go mod tidy -diff 2>&1); then
	echo "go.mod/go.sum are not tidy: run 'go mod tidy' and commit the result. The difference:"
	echo "$tidy"
	exit 1
fi

step "gofmt"
unformatted=$(find . -name '*.go' -not -path './.git/*' -not -path '*/testdata/*' -print0 | xargs -0 gofmt -l)
if [ -n "$unformatted" ]; then
	echo "these files are not gofmt'ed (run gofmt -w on them):"
	echo "$unformatted"
	exit 1
fi

step "go vet ./..."
go vet ./...

step "staticcheck ./..."
go run "$STATICCHECK" ./...

step "go test ./..."
go test ./...

step "fuzz ($FUZZ_TIME each)"
# Each package's test binary is built once, instrumented for fuzzing (go test -c -fuzz), and
# runs each of its targets: building it is most of the stage's time, and go test -fuzz would
# link it again for every target. The binary runs in its package's directory, where its seed
# corpus (testdata/fuzz) is, with the fuzz cache go test -fuzz would use.
fuzzbin=$(mktemp -d)
declare -A built
for t in "${FUZZ_TARGETS[@]}"; do
	read -r pkg target <<<"$t"
	echo "--- $target in $pkg"
	listed=$(go test -list "^${target}\$" "$pkg")
	if ! grep -qx "$target" <<<"$listed"; then
		echo "fuzz target $target not found in $pkg (fix FUZZ_TARGETS in scripts/test.sh)"
		exit 1
	fi
	bin="$fuzzbin/$(tr '/.' '__' <<<"$pkg").test"
	if [ -z "${built[$pkg]:-}" ]; then
		go test -c -fuzz "^${target}\$" -o "$bin" "$pkg"
		built[$pkg]=1
	fi
	cache="$(go env GOCACHE)/fuzz/$(go list "$pkg")"
	(cd "$pkg" && "$bin" -test.run '^$' -test.fuzz "^${target}\$" -test.fuzztime "$FUZZ_TIME" -test.fuzzcachedir "$cache")
done
rm -rf "$fuzzbin"

step "rankgen check of the committed examples"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/rankgen" ./cmd/rankgen
n=0
while read -r -a flags; do
	# flags: -o DIR [-py DIR] [-ts DIR] SCHEMA, as the directive gives them
	(cd examples && "$bin/rankgen" check "${flags[@]}")
	n=$((n + 1))
done < <(sed -n 's|^//go:generate go run github.com/rankgen/rankgen/cmd/rankgen generate \(-o .*\)$|\1|p' examples/gen.go)
if [ "$n" -eq 0 ]; then
	echo "no go:generate directives found in examples/gen.go"
	exit 1
fi
echo "$n example packages up to date"

step "all passed in $((SECONDS - start))s"
