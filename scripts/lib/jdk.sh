# Sourced by scripts/mvn and bin/crashlab: sets JAVA_HOME to the newest JDK >= 21 on this machine.
# Order: JAVA_HOME if it is >= 21, else the newest of /usr/lib/jvm/*, ~/.jdks/*, ~/.sdkman/candidates/java/*.
CRASHLAB_MIN_JDK=21
# the JDK's own `release` file names its version; asking the JVM costs a start (about 0.1 s) per candidate
_jdk_major() {
  local v
  v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null)
  [ -n "$v" ] || v=$("$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | cut -d. -f1)
  echo "$v"
}
_jdk_ok() { [ -x "$1/bin/javac" ] && _v=$(_jdk_major "$1") && [ -n "$_v" ] && [ "$_v" -ge "$CRASHLAB_MIN_JDK" ]; }
crashlab_pick_jdk() {
  if [ -n "${JAVA_HOME:-}" ] && _jdk_ok "$JAVA_HOME"; then return 0; fi
  _best=""; _bestv=0
  for _d in /usr/lib/jvm/* "$HOME"/.jdks/* "$HOME"/.sdkman/candidates/java/*; do
    { [ -d "$_d" ] && [ ! -L "$_d" ] && _jdk_ok "$_d"; } || continue
    _v=$(_jdk_major "$_d"); if [ "$_v" -gt "$_bestv" ]; then _best=$_d; _bestv=$_v; fi
  done
  if [ -z "$_best" ]; then
    echo "No JDK >= $CRASHLAB_MIN_JDK found. Install one (e.g. Temurin 25 or openjdk-21-jdk) or set JAVA_HOME." >&2
    return 1
  fi
  JAVA_HOME=$_best; export JAVA_HOME
}
