#!/usr/bin/env bash
# The gate step of github-actions-kerncast.yml, as a script the workflow runs and anyone can run
# locally: predicts the kernels, compares them with the committed baseline, writes SARIF for
# code scanning and the verdict to the job summary, and exits as `kerncast check` does
# (0 pass, 1 predicted regression, 2 analysis error).
#
#   docs/ci/kerncast-gate.sh [more `kerncast check` arguments, e.g. --config kerncast.toml]
#
# Environment: KERNCAST (the binary; default `kerncast` on PATH), KERNCAST_BASELINE (default
# kerncast-baseline.json), KERNCAST_OUT (reports, default target/kerncast), and GitHub's
# GITHUB_STEP_SUMMARY (where `kerncast check` appends its verdict and why; this script adds the
# report's table). Copy it beside the workflow (e.g. to ci/kerncast-gate.sh).
set -uo pipefail

kerncast=${KERNCAST:-kerncast}
baseline=${KERNCAST_BASELINE:-kerncast-baseline.json}
out=${KERNCAST_OUT:-target/kerncast}

"$kerncast" check --baseline "$baseline" --out "$out" --sarif "$out/kerncast.sarif" "$@"
code=$?

if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$out/kerncast-report.md" ]; then
  cat "$out/kerncast-report.md" >> "$GITHUB_STEP_SUMMARY"
fi
# workflow commands: an annotation on the run, in GitHub's log syntax
case $code in
  0) echo "kerncast: every prediction is within its thresholds" ;;
  1) echo "::error title=kerncast::predicted regression: see the job summary and code scanning" ;;
  *) echo "::error title=kerncast::analysis error (exit $code): see the log above" ;;
esac
exit $code
