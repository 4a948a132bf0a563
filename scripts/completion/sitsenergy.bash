# bash completion for sitsenergy (installed to share/bash-completion/completions/sitsenergy).
# Completes the command, then its long options (from `sitsenergy COMMAND --help`), file names
# elsewhere, the keys of `sitsenergy keys` after --set/--vary/--dist, and the values of the
# options that take one of a few words (--format, --summary, --fit, --source, --method).
_sitsenergy() {
  local cur prev cmd
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD - 1]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    mapfile -t COMPREPLY < <(compgen -W "run steady dvfs-table sweep sweep-merge calibrate replay
      capture trace-info hotspot keys --help --version" -- "$cur")
    return
  fi
  cmd=${COMP_WORDS[1]}
  case $prev in
    --set | --vary | --dist)
      local keys
      keys=$("${COMP_WORDS[0]}" keys 2>/dev/null | sed -n 's/^\([a-z_][^ ]*\)  \[.*/\1/p')
      mapfile -t COMPREPLY < <(compgen -W "$keys" -- "${cur%%=*}")
      compopt -o nospace 2>/dev/null
      COMPREPLY=("${COMPREPLY[@]/%/=}")
      return
      ;;
  esac
  local words=
  case $cmd:$prev in
    dvfs-table:--format) words="csv json dts header nvpmodel" ;;
    *:--format) words="auto tegrastats jtop nvsmi csv ttrace" ;;
    *:--summary) words="text json" ;;
    *:--source) words="sysfs nvml sysfs,nvml" ;;
    *:--method) words="lhs sobol halton random" ;;
    calibrate:--fit)
      words="thermal thermal,ambient thermal,ambient,initial capacitance,ambient ambient,initial
        thermal,ambient,trips battery battery,lag soc soc,lag battery,rows battery,arrhenius"
      ;;
  esac
  if [ -n "$words" ]; then
    mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
    return
  fi
  if [[ $cur == -* ]]; then
    local opts
    opts=$("${COMP_WORDS[0]}" "$cmd" --help 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
    mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
    return
  fi
  mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -F _sitsenergy sitsenergy
