# The exit status of scripts/gpu-check.sh (sourced by it, and by tests/scripts/test_gpu_check.sh).
# A step fails when its function returns non-zero, or when a line it notes in the summary
# reports a failure: "rc=N" with some N not 0 (also "rc=0/1", "rc=1, cuda rc=0"), or "FAILED".
# Every step writes its outcome in one of those forms, so its summary line is its status.
gpu_check_failed=0

summary_line_failed() {
  [[ "$1" =~ (^|[^[:alnum:]_])rc=[0-9/]*[1-9] || "$1" == *FAILED* ]]
}

# note MESSAGE...: the line goes to stdout and the summary, and counts against the exit status.
note() {
  echo "$*" | tee -a "$summary"
  if summary_line_failed "$*"; then gpu_check_failed=1; fi
}

# run_step FUNCTION: runs one step; a non-zero return fails the whole check.
run_step() {
  "$1" || gpu_check_failed=1
}
