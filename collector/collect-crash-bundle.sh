#!/usr/bin/env bash
# collect-crash-bundle.sh: gathers what CrashLab needs to diagnose a crashed GPU job on Linux (and WSL2)
# into one zip you can upload. Nothing is sent anywhere unless you pass --server.
#
#   bash collect-crash-bundle.sh [options] [LOGFILE...]
#
#   LOGFILE          the crashed program's console output or traceback (as many as you like)
#   -o, --output F   where to write the bundle (default: ./crash-bundle-<date>.zip)
#   --python P       the Python that ran the job (default: the active `python`, else `python3`)
#   --no-redact      keep your user name and host name in the files (they are replaced by default)
#   --kernel-log F   read the kernel's messages from this saved file (e.g. /var/log/kern.log, or the output of
#                    `sudo dmesg -T > kernel.txt`) instead of dmesg / journalctl; repeat for several files
#   --server URL     also upload the bundle to this CrashLab server (e.g. http://crashlab:8080); needs curl
#   --token T        the API token for --server (a reporter's; default: $CRASHLAB_TOKEN, which keeps it out of
#                    the process list)
#   -h, --help       this text
#
# It collects: your log files, `nvidia-smi` and `nvidia-smi -q -x`, `nvcc -V`, `pip list`, `conda list`,
# Python / PyTorch / TensorFlow versions with their build information (PyTorch's collect_env, TensorFlow's
# build info), OS, CPU model and flags (AVX...), and the kernel's NVIDIA Xid and out-of-memory lines.
# A source that is missing or fails is noted in collector.txt ("could not collect ...") and skipped:
# the script never stops because one source is missing.
set -u

redact=1
output=""
python_cmd="${CRASHLAB_PYTHON:-}"
server=""
token="${CRASHLAB_TOKEN:-}"
logs=()
kernel_logs=()

usage() { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case "$1" in
    -o|--output) output="${2:-}"; shift 2 || { echo "collect-crash-bundle: $1 needs a file name" >&2; exit 2; } ;;
    --output=*) output="${1#*=}"; shift ;;
    --python) python_cmd="${2:-}"; shift 2 || { echo "collect-crash-bundle: --python needs a command" >&2; exit 2; } ;;
    --python=*) python_cmd="${1#*=}"; shift ;;
    --no-redact) redact=0; shift ;;
    --kernel-log) kernel_logs+=("${2:-}"); shift 2 || { echo "collect-crash-bundle: --kernel-log needs a file name" >&2; exit 2; } ;;
    --kernel-log=*) kernel_logs+=("${1#*=}"); shift ;;
    --server) server="${2:-}"; shift 2 || { echo "collect-crash-bundle: --server needs a URL" >&2; exit 2; } ;;
    --server=*) server="${1#*=}"; shift ;;
    --token) token="${2:-}"; shift 2 || { echo "collect-crash-bundle: --token needs a token" >&2; exit 2; } ;;
    --token=*) token="${1#*=}"; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; logs+=("$@"); break ;;
    -*) echo "collect-crash-bundle: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) logs+=("$1"); shift ;;
  esac
done

if [ -n "$server" ]; then
  [ -n "$token" ] || { echo "collect-crash-bundle: --server needs --token T (or CRASHLAB_TOKEN): make one on CrashLab's account page" >&2; exit 2; }
  command -v curl >/dev/null 2>&1 || { echo "collect-crash-bundle: --server needs curl, which is not installed" >&2; exit 2; }
fi

stamp="$(date +%Y%m%d-%H%M%S)"
[ -n "$output" ] || output="$PWD/crash-bundle-$stamp.zip"
case "$output" in /*) ;; *) output="$PWD/$output" ;; esac

work="$(mktemp -d "${TMPDIR:-/tmp}/crash-bundle.XXXXXX")" || { echo "collect-crash-bundle: cannot create a temporary folder" >&2; exit 1; }
trap 'rm -rf "$work"' EXIT
dir="$work/crash-bundle-$stamp"
mkdir -p "$dir"
report="$dir/collector.txt"
{
  echo "# collect-crash-bundle.sh (CrashLab) on $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# what was collected, and what could not be"
} > "$report"

note() { echo "$*" >> "$report"; echo "collect-crash-bundle: $*" >&2; }
have() { command -v "$1" >/dev/null 2>&1; }

# Runs a command with a time limit where `timeout` exists (a hung nvidia-smi must not hang the script).
run_limited() {
  local seconds="$1"; shift
  if have timeout; then timeout "$seconds" "$@"; else "$@"; fi
}

# capture FILE WHAT CMD...: writes CMD's output to FILE, or notes why it could not.
capture() {
  local file="$1" what="$2"; shift 2
  if ! have "$1"; then note "could not collect $what: $1 not found"; return 1; fi
  if run_limited 120 "$@" > "$dir/$file" 2> "$work/err"; then
    note "collected $what -> $file"
    return 0
  fi
  local rc=$?
  if [ -s "$dir/$file" ]; then
    note "collected $what -> $file (the command exited with status $rc)"
    return 0
  fi
  rm -f "$dir/$file"
  note "could not collect $what: exit status $rc: $(head -c 300 "$work/err" | tr '\n' ' ')"
  return 1
}

# --- the user's logs
if [ ${#logs[@]} -eq 0 ]; then
  note "no log file given: pass the crashed program's output (e.g. bash $0 train.log) for a diagnosis"
fi
i=0
for log in "${logs[@]}"; do
  i=$((i + 1))
  if [ -f "$log" ] && [ -r "$log" ]; then
    base="$(basename "$log")"
    [ -e "$dir/$base" ] && base="$i-$base"
    cp "$log" "$dir/$base" && note "collected log $log -> $base"
  else
    note "could not collect log $log: not a readable file"
  fi
done

# --- GPU and driver
capture nvidia-smi.txt "nvidia-smi" nvidia-smi
capture nvidia-smi-q.xml "nvidia-smi -q -x" nvidia-smi -q -x
capture nvcc-version.txt "nvcc -V" nvcc -V

# --- Python and frameworks
if [ -z "$python_cmd" ]; then
  if have python; then python_cmd=python; elif have python3; then python_cmd=python3; fi
fi
env_file="$dir/env.txt"
{
  echo "# written by collect-crash-bundle.sh"
  if [ -r /etc/os-release ]; then
    # shellcheck disable=SC1091
    (. /etc/os-release && echo "os: ${PRETTY_NAME:-$NAME $VERSION}")
  else
    echo "os: $(uname -s) $(uname -r)"
  fi
  echo "kernel: $(uname -r)"
  echo "arch: $(uname -m)"
  if grep -qi microsoft /proc/version 2>/dev/null; then echo "wsl: yes"; fi
  if [ -r /proc/cpuinfo ]; then
    model="$(grep -m1 -i '^model name' /proc/cpuinfo | sed 's/^[^:]*:[[:space:]]*//')"
    [ -n "$model" ] && echo "cpu: $model"
    # Only the flags a diagnosis needs (AVX for prebuilt TensorFlow wheels, F16C/FMA for fp16 paths).
    flags="$(grep -m1 -i '^flags' /proc/cpuinfo | sed 's/^[^:]*:[[:space:]]*//' | tr ' ' '\n' \
      | grep -E '^(sse4_1|sse4_2|avx|avx2|fma|f16c|avx512f|avx512bw|avx512cd|avx512dq|avx512vl|avx512_vnni|avx512_bf16|avx_vnni|amx_bf16|amx_tile|amx_int8)$' | tr '\n' ' ')"
    echo "cpu-flags: ${flags% }"
  fi
  if [ -n "$python_cmd" ] && have "$python_cmd"; then
    pyv="$("$python_cmd" -V 2>&1 | head -n1)"
    echo "python: ${pyv#Python }"
  fi
  if have nvidia-smi; then
    drv="$(run_limited 60 nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n1)"
    [ -n "$drv" ] && echo "driver: $drv"
    run_limited 60 nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null \
      | while IFS=, read -r name mem; do echo "gpu: $name ${mem# }"; done
  fi
} > "$env_file" 2>/dev/null
note "collected OS, CPU, Python and GPU summary -> env.txt"

if [ -n "$python_cmd" ] && have "$python_cmd"; then
  capture pip-list.txt "pip list" "$python_cmd" -m pip list --disable-pip-version-check
  if "$python_cmd" -c "import torch" >/dev/null 2>&1; then
    capture torch-collect-env.txt "PyTorch collect_env" "$python_cmd" -m torch.utils.collect_env
  else
    note "not collected: PyTorch collect_env (torch is not importable by $python_cmd)"
  fi
  if "$python_cmd" -c "import tensorflow" >/dev/null 2>&1; then
    capture tf-build-info.txt "TensorFlow build info" "$python_cmd" -c \
      "import tensorflow as tf; print('TensorFlow version:', tf.version.VERSION); print(tf.sysconfig.get_build_info())"
  else
    note "not collected: TensorFlow build info (tensorflow is not importable by $python_cmd)"
  fi
else
  note "could not collect Python, pip list and framework versions: no python or python3 found (use --python)"
fi
if have conda; then
  capture conda-list.txt "conda list" conda list
else
  note "not collected: conda list (conda not found)"
fi

# --- kernel messages: NVIDIA Xid errors, GPUs that fell off the bus, the out-of-memory killer
kernel_lines() {
  grep -E 'NVRM|Xid|nvidia|Out of memory|oom-kill|oom_reaper|Killed process|invoked oom-killer'
}
if [ ${#kernel_logs[@]} -gt 0 ]; then
  : > "$work/dmesg"
  for k in "${kernel_logs[@]}"; do
    if [ -f "$k" ] && [ -r "$k" ]; then
      cat "$k" >> "$work/dmesg"
    else
      note "could not collect kernel log $k: not a readable file"
    fi
  done
  kernel_lines < "$work/dmesg" | tail -n 2000 > "$dir/kernel-gpu-oom.log"
  note "collected kernel messages (${kernel_logs[*]}, NVIDIA/Xid/OOM lines only) -> kernel-gpu-oom.log"
elif have dmesg && dmesg > "$work/dmesg" 2> "$work/err" && [ -s "$work/dmesg" ]; then
  kernel_lines < "$work/dmesg" | tail -n 2000 > "$dir/kernel-gpu-oom.log"
  note "collected kernel messages (dmesg, NVIDIA/Xid/OOM lines only) -> kernel-gpu-oom.log"
elif have journalctl && journalctl -k -b --no-pager > "$work/dmesg" 2> "$work/err" && [ -s "$work/dmesg" ]; then
  kernel_lines < "$work/dmesg" | tail -n 2000 > "$dir/kernel-gpu-oom.log"
  note "collected kernel messages (journalctl -k, NVIDIA/Xid/OOM lines only) -> kernel-gpu-oom.log"
else
  note "could not collect kernel messages: dmesg needs more rights here (run with sudo, or pass --kernel-log /var/log/kern.log, to include Xid and OOM lines)"
fi
[ -f "$dir/kernel-gpu-oom.log" ] && [ ! -s "$dir/kernel-gpu-oom.log" ] && echo "# no NVIDIA, Xid or out-of-memory lines in the kernel log" > "$dir/kernel-gpu-oom.log"

# --- redaction: the user name, home folder and host name become placeholders in every collected file
if [ "$redact" = 1 ]; then
  user="${USER:-$(id -un 2>/dev/null)}"
  host="$(hostname 2>/dev/null || uname -n)"
  # sed_literal: escapes a string for use as a literal in a sed regex
  sed_literal() { printf '%s' "$1" | sed 's/[][\.*^$/|+?(){}]/\\&/g'; }
  exprs=()
  [ -n "${HOME:-}" ] && [ "$HOME" != "/" ] && exprs+=(-e "s|$(sed_literal "$HOME")|/home/<user>|g")
  [ -n "$host" ] && [ "$host" != "localhost" ] && exprs+=(-e "s|$(sed_literal "$host")|<host>|g")
  [ -n "$user" ] && [ "$user" != "root" ] && [ ${#user} -ge 3 ] && exprs+=(-e "s|\\b$(sed_literal "$user")\\b|<user>|g")
  if [ ${#exprs[@]} -gt 0 ]; then
    for f in "$dir"/*; do
      [ -f "$f" ] || continue
      sed "${exprs[@]}" "$f" > "$work/redacted" && cat "$work/redacted" > "$f"
    done
  fi
  note "redacted the user name, home folder and host name (use --no-redact to keep them)"
fi

# --- one archive
rm -f "$output"
if have zip; then
  (cd "$work" && zip -qr "$output" "$(basename "$dir")") || { echo "collect-crash-bundle: zip failed" >&2; exit 1; }
elif [ -n "$python_cmd" ] && have "$python_cmd"; then
  (cd "$work" && "$python_cmd" -c 'import sys, shutil; shutil.make_archive(sys.argv[1][:-4], "zip", ".", sys.argv[2])' \
    "$output" "$(basename "$dir")") || { echo "collect-crash-bundle: could not write the zip" >&2; exit 1; }
else
  output="${output%.zip}.tar.gz"
  (cd "$work" && tar czf "$output" "$(basename "$dir")") || { echo "collect-crash-bundle: tar failed" >&2; exit 1; }
fi
if [ -z "$server" ]; then
  echo "collect-crash-bundle: wrote $output — upload it to CrashLab (check collector.txt inside for what was left out)" >&2
  echo "$output"
  exit 0
fi
echo "collect-crash-bundle: wrote $output; uploading it to ${server%/}" >&2
# the token goes to curl on its standard input (-H @-), never on a command line
reply="$(printf 'Authorization: Bearer %s\n' "$token" | curl -sS -H @- -F "file=@$output" -w '\n%{http_code}' "${server%/}/api/bundles")" \
  || { echo "collect-crash-bundle: could not reach ${server%/}; the bundle is still in $output" >&2; exit 1; }
status="${reply##*$'\n'}"
body="${reply%$'\n'*}"
if [ "$status" != "201" ]; then
  detail="$(printf '%s' "$body" | sed -n 's/.*"detail":"\([^"]*\)".*/\1/p')"
  echo "collect-crash-bundle: the server refused the upload (HTTP $status): ${detail:-$body}; the bundle is still in $output" >&2
  exit 1
fi
id="$(printf '%s' "$body" | sed -n 's/^{"id":\([0-9]*\).*/\1/p')"
echo "collect-crash-bundle: uploaded as ${server%/}/bundles/${id}" >&2
same="$(printf '%s' "$body" | sed -n 's/.*"sameFilesAs":{"bundleId":\([0-9]*\).*/\1/p')"
if [ -n "$same" ]; then
  echo "collect-crash-bundle: the same files were uploaded before, as ${server%/}/bundles/${same}" >&2
fi
echo "$output"
