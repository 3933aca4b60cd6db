# Runs one libFuzzer target over a working copy of its seed corpus. Invoked by CTest (see
# affordance_fuzzer); fails when the fuzzer finds a crash, leak or timeout.
#
# The CI budget is deterministic: a fixed seed and a fixed number of runs (RUNS), capped at SECONDS,
# so every CI run explores exactly what was explored before it landed. Exploratory fuzzing is a
# separate, open-ended run of the fuzzer binary (see README, Development).
file(MAKE_DIRECTORY "${WORK}")
set(dirs "${WORK}")
if(SEED AND EXISTS "${SEED}")
  list(APPEND dirs "${SEED}")
endif()
execute_process(
  COMMAND "${FUZZER}" -seed=1 -runs=${RUNS} -max_total_time=${SECONDS} -timeout=10
          -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 -artifact_prefix=${WORK}/ ${dirs}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzzer ${FUZZER} failed (exit ${rc}); artifacts in ${WORK}")
endif()
