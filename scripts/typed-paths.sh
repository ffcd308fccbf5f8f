# Sourced by the scripts that move to another folder before they run Snakemake: each path the user typed as the value
# of one of Snakemake's path options (--configfile, --configfiles, and a --profile given as a path) is made absolute
# from the folder it was typed in, so it is read from there and not from where the script runs Snakemake. Targets
# stay as typed: they are the workflow's paths. A config file that is not there is named in one line (return 2)
# before anything else runs: Snakemake 9 reads it before the workflow's code and, missing, prints a traceback.
# Usage: typed_paths "$PWD" "$@"; then "${TYPED[@]}".
typed_paths() {
  local here="$1" taking="" arg name value
  shift
  TYPED=()
  absolute() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s' "$here/$1" ;; esac; }
  for arg in "$@"; do
    case "$arg" in
      --configfile=* | --configfiles=*)
        name="${arg%%=*}"; value="$(absolute "${arg#*=}")"; TYPED+=("$name=$value"); taking=""
        existing_configfile "$value" || return 2 ;;
      --profile=*/*)
        value="${arg#*=}"; TYPED+=("--profile=$(absolute "$value")"); taking="" ;;
      --configfile | --configfiles) TYPED+=("$arg"); taking="config" ;;
      --profile) TYPED+=("$arg"); taking="profile" ;;
      -*) TYPED+=("$arg"); taking="" ;;
      *)
        if [ "$taking" = config ]; then
          TYPED+=("$(absolute "$arg")")
          existing_configfile "${TYPED[-1]}" || return 2
        elif [ "$taking" = profile ] && [[ "$arg" == */* ]]; then
          TYPED+=("$(absolute "$arg")")
        else
          TYPED+=("$arg")
        fi
        if [ "$taking" = profile ]; then taking=""; fi
        ;;
    esac
  done
}

existing_configfile() {
  if [ ! -f "$1" ]; then
    echo "error: --configfile $1: no such file" >&2
    return 1
  fi
}
