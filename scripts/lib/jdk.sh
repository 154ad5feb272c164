# Sourced by scripts/mvn and bin/crashlab: sets JAVA_HOME to the newest JDK >= 21 on this machine.
# Order: JAVA_HOME if it is >= 21, else the newest of /usr/lib/jvm/*, ~/.jdks/*, ~/.sdkman/candidates/java/*.
CRASHLAB_MIN_JDK=21
# The JDK's own `release` file names its version, read here without starting a process (bin/crashlab's fast path runs
# none but java): asking the JVM costs a start (about 0.1 s) per candidate, a subshell or sed a fork each.
# _jdk_read_major DIR: sets _jdk_v to DIR's major version (empty if unknown). POSIX sh: scripts/mvn sources this too.
_jdk_read_major() {
  _jdk_v=""
  if [ -r "$1/release" ]; then
    while IFS= read -r _jdk_line || [ -n "$_jdk_line" ]; do
      case $_jdk_line in
        JAVA_VERSION=\"[0-9]*) _jdk_line=${_jdk_line#JAVA_VERSION=\"}; _jdk_v=${_jdk_line%%[!0-9]*}; break ;;
      esac
    done <"$1/release"
  fi
  [ -n "$_jdk_v" ] || _jdk_v=$("$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | cut -d. -f1)
  return 0
}
_jdk_major() { _jdk_read_major "$1"; echo "$_jdk_v"; }
_jdk_ok() { [ -x "$1/bin/javac" ] && _jdk_read_major "$1" && [ -n "$_jdk_v" ] && [ "$_jdk_v" -ge "$CRASHLAB_MIN_JDK" ]; }
crashlab_pick_jdk() {
  if [ -n "${JAVA_HOME:-}" ] && _jdk_ok "$JAVA_HOME"; then return 0; fi
  _best=""; _bestv=0
  for _d in /usr/lib/jvm/* "$HOME"/.jdks/* "$HOME"/.sdkman/candidates/java/*; do
    { [ -d "$_d" ] && [ ! -L "$_d" ] && _jdk_ok "$_d"; } || continue
    if [ "$_jdk_v" -gt "$_bestv" ]; then _best=$_d; _bestv=$_jdk_v; fi
  done
  if [ -z "$_best" ]; then
    echo "No JDK >= $CRASHLAB_MIN_JDK found. Install one (e.g. Temurin 25 or openjdk-21-jdk) or set JAVA_HOME." >&2
    return 1
  fi
  JAVA_HOME=$_best; export JAVA_HOME
}
