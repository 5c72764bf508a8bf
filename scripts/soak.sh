#!/usr/bin/env bash
# Runs the suite N times in a row while another test binary keeps starting Redis servers and
# clusters on the same machine, as CI runners and parallel go test packages do:
#
#	bash scripts/soak.sh            # bash scripts/test.sh, 10 times
#	bash scripts/soak.sh 3 go test -count=1 ./internal/testkit/... ./runtime
#
# The other binary is internal/testkit/redistest's tests TestStartManyAtOnce (4 processes of
# 10 servers and a cluster each), TestClusterShape and TestStartStop, run again and again until
# the last run ends. The script stops at the first failing run, prints where its log is and
# exits non-zero; a failure of the other binary fails the soak too.
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${1:-10}"
shift || true
if [ "$#" -eq 0 ]; then
	set -- bash scripts/test.sh
fi
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
	echo "usage: bash scripts/soak.sh [RUNS] [COMMAND...]: RUNS must be a positive number, got \"$runs\""
	exit 2
fi

logs=$(mktemp -d)
echo "soak: $runs runs of: $*"
echo "soak: logs in $logs"

go test -c -o "$logs/redistest.test" ./internal/testkit/redistest
(
	i=0
	while [ ! -e "$logs/stop" ]; do
		i=$((i + 1))
		if ! "$logs/redistest.test" -test.run '^(TestStartManyAtOnce|TestClusterShape|TestStartStop)$' \
			-test.count=1 >"$logs/other-$i.log" 2>&1; then
			echo "soak: the other test binary failed (run $i): see $logs/other-$i.log"
			touch "$logs/other-failed"
		fi
	done
	echo "$i" >"$logs/other-runs"
) &
other=$!
finish() {
	touch "$logs/stop"
	wait "$other" || true
}
trap finish EXIT

for run in $(seq 1 "$runs"); do
	start=$SECONDS
	if ! "$@" >"$logs/run-$run.log" 2>&1; then
		echo "soak: run $run of $runs FAILED after $((SECONDS - start))s: see $logs/run-$run.log"
		tail -n 30 "$logs/run-$run.log"
		exit 1
	fi
	echo "soak: run $run of $runs passed in $((SECONDS - start))s"
done
finish
trap - EXIT
echo "soak: the other test binary ran $(cat "$logs/other-runs") times alongside"
if [ -e "$logs/other-failed" ]; then
	echo "soak: the other test binary failed at least once (logs above)"
	exit 1
fi
echo "soak: $runs runs in a row passed"
