# bash completion for pcap-replay (installed by make install).
_pcap_replay() {
  local cur prev sub i
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  sub=
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      check|findings|annotate|flows|timeline|plot|merge) sub=${COMP_WORDS[i]}; break ;;
    esac
  done
  if [[ -z $sub ]]; then
    COMPREPLY=($(compgen -W "check findings annotate flows timeline plot merge --help --version" -- "$cur"))
    return
  fi
  case $prev in
    -r|--read) COMPREPLY=($(compgen -f -X '!*.@(pcap|pcapng|cap|gz|zst|xz|bz2)' -- "$cur") $(compgen -d -- "$cur")); return ;;
    --profile) COMPREPLY=($(compgen -W "rfc6298 linux freebsd macos windows auto" -- "$cur")); return ;;
    --svg) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    --html|-o|--output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --level) COMPREPLY=($(compgen -W "must should may info" -- "$cur")); return ;;
    -i|--interface) COMPREPLY=($(compgen -W "$(ls /sys/class/net 2>/dev/null)" -- "$cur")); return ;;
    --duration|-c|--count) return ;;
    -f|--filter|-Y|--display-filter|--flow|--stream|--rto-min|--rto-max|--syn-linear|--granularity|--slack|--max-flows|--max-outstanding|--shard|-j|--jobs) return ;;
  esac
  if [[ $sub == merge ]]; then  # the shards' JSON documents
    if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "-h --help --strict --text --html" -- "$cur")); else
      COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur")); fi
    return
  fi
  local opts="-h --help --version -r --read -f --filter -Y --display-filter --flow --stream -j --jobs"
  case $sub in
    check) opts+=" --json --timeline --html --strict --findings-only --no-hint --level --shard" ;;
    findings) opts+=" --tsv --strict --level" ;;
    annotate) opts+=" -o --output --level" ;;
    flows) opts+=" --json" ;;
    timeline) opts+=" --csv" ;;
    plot) opts+=" --svg" ;;
  esac
  case $sub in
    check|flows|timeline) opts+=" -i --interface --duration -c --count" ;;
  esac
  case $sub in
    check|findings|annotate|timeline|plot) opts+=" --profile --rto-min --rto-max --syn-linear --granularity --slack --max-flows --max-outstanding" ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -X '!*.@(pcap|pcapng|cap|gz|zst|xz|bz2)' -- "$cur") $(compgen -d -- "$cur"))
  fi
}
complete -o filenames -F _pcap_replay pcap-replay
