# Writes OUT (a header defining SITS_GIT_HASH) from `git describe` of SOURCE_DIR, only when it
# changed, so that `sitsenergy --version` names the commit it was built from at every build.
# A source tree without its own .git (a release tarball, `git archive`) is "unknown", even
# when it is unpacked inside another repository.
set(hash "")
set(rc 1)
if(EXISTS ${SOURCE_DIR}/.git)
  execute_process(COMMAND git -C ${SOURCE_DIR} rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE hash OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                  RESULT_VARIABLE rc)
endif()
if(rc OR NOT hash)
  set(hash "unknown")
else()
  execute_process(COMMAND git -C ${SOURCE_DIR} status --porcelain --untracked-files=no
                  OUTPUT_VARIABLE dirty ERROR_QUIET)
  if(dirty)
    set(hash "${hash}-dirty")
  endif()
endif()
set(text "#define SITS_GIT_HASH \"${hash}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
