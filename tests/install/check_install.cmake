# Installs the built project into a scratch prefix, then builds and runs a downstream
# program with find_package(SITSEnergy), and checks the pkg-config file.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${prefix}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "install failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/downstream
                        -B ${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${prefix}
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the downstream project failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the downstream project failed")
endif()
execute_process(COMMAND ${WORK_DIR}/build/downstream RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message(STATUS "downstream: ${out}")
if(rc)
  message(FATAL_ERROR "the downstream program failed")
endif()
# the JSON Schemas, each with an absolute $id
file(GLOB schemas ${prefix}/share/sitsenergy/schemas/*.schema.json)
list(LENGTH schemas n_schemas)
if(n_schemas LESS 7)
  message(FATAL_ERROR "${n_schemas} JSON Schemas installed, expected 7")
endif()
foreach(s ${schemas})
  file(READ ${s} text)
  if(NOT text MATCHES "\"\\$id\": \"urn:sitsenergy:schema:[a-z-]+:1\"")
    message(FATAL_ERROR "${s}: no absolute $id")
  endif()
endforeach()
# pkg-config sees the library too
file(GLOB_RECURSE pc ${prefix}/*/sitsenergy.pc)
if(NOT pc)
  message(FATAL_ERROR "no sitsenergy.pc installed")
endif()
get_filename_component(pcdir ${pc} DIRECTORY)
execute_process(COMMAND env PKG_CONFIG_PATH=${pcdir} pkg-config --libs --cflags sitsenergy
                RESULT_VARIABLE rc OUTPUT_VARIABLE flags)
if(rc OR NOT flags MATCHES "-lsits")
  message(FATAL_ERROR "pkg-config sitsenergy failed: ${flags}")
endif()
# programs built from nothing but pkg-config, on a copy of the prefix moved elsewhere
execute_process(COMMAND sh ${SOURCE_DIR}/tests/install/check_pkgconfig.sh ${SOURCE_DIR} ${prefix}
                        ${WORK_DIR}/pkgconfig
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE e)
message(STATUS "${out}")
if(rc)
  message(FATAL_ERROR "pkg-config programs: ${e}")
endif()
# the modules libsits loads live in the private lib/sitsenergy/, not beside the libraries
file(GLOB_RECURSE modules ${prefix}/libsits_h5.so ${prefix}/libsits_cholmod.so
     ${prefix}/libsits_layergrid.so)
foreach(m ${modules})
  if(NOT m MATCHES "/sitsenergy/libsits_[a-z0-9]+\\.so$")
    message(FATAL_ERROR "a module outside lib/sitsenergy/: ${m}")
  endif()
endforeach()
list(LENGTH modules n_modules)
if(NOT n_modules EQUAL 3)
  message(FATAL_ERROR "expected 3 modules, found: ${modules}")
endif()
# the man page (help2man from --help), the bash completion and the licence are installed
file(GLOB_RECURSE man ${prefix}/sitsenergy.1)
file(GLOB_RECURSE completion ${prefix}/sitsenergy)
list(FILTER completion INCLUDE REGEX "/bash-completion/completions/sitsenergy$")
file(GLOB_RECURSE licence ${prefix}/LICENSE)
list(FILTER licence INCLUDE REGEX "/doc/[^/]+/LICENSE$")
if(NOT man OR NOT completion OR NOT licence)
  message(FATAL_ERROR "man page (${man}), completion (${completion}) or LICENSE (${licence}) missing")
endif()
file(READ ${man} man_text)
if(NOT man_text MATCHES "\\.TH SITSENERGY \"1\"" OR NOT man_text MATCHES "sweep.-merge")
  message(FATAL_ERROR "the man page lacks its title or the command list")
endif()
# a page per command, from that command's --help: `man sitsenergy-calibrate` after install
foreach(cmd run steady dvfs-table sweep sweep-merge calibrate replay capture trace-info hotspot keys)
  file(GLOB_RECURSE page ${prefix}/sitsenergy-${cmd}.1)
  if(NOT page)
    message(FATAL_ERROR "no man page sitsenergy-${cmd}.1 installed")
  endif()
  file(READ ${page} page_text)
  string(TOUPPER ${cmd} upper)
  if(NOT page_text MATCHES "\\.TH SITSENERGY.${upper} \"1\"" OR NOT page_text MATCHES "usage: sitsenergy")
    message(FATAL_ERROR "sitsenergy-${cmd}.1: no title or no usage: ${page_text}")
  endif()
endforeach()

execute_process(COMMAND bash -c "source ${completion}; COMP_WORDS=(${prefix}/bin/sitsenergy sw);
                        COMP_CWORD=1; _sitsenergy; echo \"\${COMPREPLY[*]}\""
                OUTPUT_VARIABLE words RESULT_VARIABLE rc)
if(rc OR NOT words MATCHES "sweep sweep-merge")
  message(FATAL_ERROR "the bash completion does not complete commands: ${words}")
endif()
execute_process(COMMAND ${prefix}/bin/sitsenergy --version RESULT_VARIABLE rc OUTPUT_VARIABLE v)
if(rc)
  message(FATAL_ERROR "installed sitsenergy does not run: ${v}")
endif()
# the installed program finds its HDF5 module beside the installed library
execute_process(COMMAND ${prefix}/bin/sitsenergy hotspot
                        -c ${SOURCE_DIR}/tests/data/hotspot_ev6/inputs/example.config
                        -f ${SOURCE_DIR}/tests/data/hotspot_ev6/inputs/ev6.flp
                        -p ${SOURCE_DIR}/tests/data/hotspot_ev6/inputs/gcc.ptrace
                        -o ${WORK_DIR}/installed.h5
                RESULT_VARIABLE rc ERROR_VARIABLE e)
if(rc OR NOT EXISTS ${WORK_DIR}/installed.h5)
  message(FATAL_ERROR "installed sitsenergy cannot write HDF5: ${e}")
endif()
# and its CHOLMOD module (a 16 x 16 grid steady state, 1,036 nodes, goes through CHOLMOD)
execute_process(COMMAND ${prefix}/bin/sitsenergy hotspot
                        -c ${SOURCE_DIR}/tests/data/hotspot_ev6/inputs/example.config
                        -f ${SOURCE_DIR}/tests/data/hotspot_ev6/inputs/ev6.flp
                        -p ${SOURCE_DIR}/tests/data/hotspot_ev6/inputs/gcc.ptrace
                        -model_type grid -grid_rows 16 -grid_cols 16
                        -steady_file ${WORK_DIR}/installed.steady
                RESULT_VARIABLE rc ERROR_VARIABLE e)
if(rc OR NOT EXISTS ${WORK_DIR}/installed.steady)
  message(FATAL_ERROR "installed sitsenergy cannot solve a grid (CHOLMOD module): ${e}")
endif()
# every installed header compiles alone from C and C++; a C++ program links (extern "C")
file(GLOB_RECURSE umbrella ${prefix}/*/sitsenergy/sitsenergy.h)
get_filename_component(incdir "${umbrella}" DIRECTORY)
get_filename_component(libdir ${pcdir} DIRECTORY)
execute_process(COMMAND sh ${SOURCE_DIR}/tests/install/check_headers.sh ${incdir} ${libdir}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE e)
message(STATUS "headers: ${out}")
if(rc OR NOT umbrella)
  message(FATAL_ERROR "installed headers: ${e}")
endif()
# only public names leave libsits
find_program(NM nm REQUIRED)
file(GLOB libsits ${libdir}/libsits.so)
execute_process(COMMAND ${NM} -D --defined-only ${libsits} OUTPUT_VARIABLE syms RESULT_VARIABLE rc)
if(rc OR syms MATCHES " sits__" OR NOT syms MATCHES " sits_scenario_load")
  message(FATAL_ERROR "libsits exports internal symbols or lacks its API")
endif()
# and nothing but them: each defined name is sits_* or the linker's own (an OpenMP named
# critical section was exported as .gomp_critical_user_sits_...)
string(REPLACE "\n" ";" sym_lines "${syms}")
foreach(line IN LISTS sym_lines)
  if(line MATCHES "^[0-9a-f]* [A-Za-z] (.+)$")
    set(name "${CMAKE_MATCH_1}")
    if(NOT name MATCHES "^sits_[a-z0-9]" AND NOT name MATCHES "^(__bss_start|_edata|_end|_init|_fini)$")
      message(FATAL_ERROR "libsits exports '${name}', not a public name")
    endif()
  endif()
endforeach()
