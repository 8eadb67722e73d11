# Runs bench/compare_peers.py on the recorded H100 results and checks that it
# writes exactly the table kept beside them.
set(raw ${SOURCE}/docs/bench/2026-11-22-h100)
execute_process(COMMAND ${PYTHON} ${SOURCE}/bench/compare_peers.py ${raw}-kopt-bench.json ${raw}-torch-peers.json ${OUT}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compare_peers.py failed: ${rc}")
endif()
file(READ ${OUT} regenerated)
file(READ ${raw}-peers.md recorded)
if(NOT regenerated STREQUAL recorded)
  message(FATAL_ERROR "the regenerated peer table differs from ${raw}-peers.md")
endif()
string(FIND "${regenerated}" "13 of 14" found)
if(found EQUAL -1)
  message(FATAL_ERROR "the peer table lost its summary line")
endif()
