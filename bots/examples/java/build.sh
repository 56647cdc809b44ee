#!/usr/bin/env bash
# Builds the Java example bot offline, from Debian packages only (no Maven, no Gradle):
#
#   1. protoc + grpc_java_plugin generate the Java stubs of the kit's copy of the protocol,
#      proto/arena/v1/arena.proto (package flip7.arena.v1), into build/gen;
#   2. javac compiles them and src/ against the jars in /usr/share/java into build/classes;
#   3. jar packs build/flip7-java-bot.jar, whose manifest names the main class and the
#      runtime classpath (the same /usr/share/java jars), so run.sh is just `java -jar`.
#
# Packages: default-jdk-headless protobuf-compiler protobuf-compiler-grpc-java-plugin
#           libgrpc-java libprotobuf-java libnetty-java libperfmark-java libguava-java
#
# Idempotent: when nothing changed since the last build it says so and stops; FORCE=1
# rebuilds anyway. Overrides: JAVA_LIB (default /usr/share/java), PROTOC, GRPC_JAVA_PLUGIN,
# PROTO_ROOT (the directory holding arena/v1/arena.proto; default the kit's own copy in
# proto/, so the kit builds wherever it is copied).
#
# Exit status: 0 built (or up to date); 1 the build or the self-test failed; 3 a tool or a
# Debian package is missing; 4 the protocol file is not found.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
PROTO_ROOT="${PROTO_ROOT:-$HERE/proto}"
PROTO="$PROTO_ROOT/arena/v1/arena.proto"
JAVA_LIB="${JAVA_LIB:-/usr/share/java}"
PROTOC="${PROTOC:-protoc}"
GRPC_JAVA_PLUGIN="${GRPC_JAVA_PLUGIN:-$(command -v grpc_java_plugin || command -v protoc-gen-grpc-java || echo /usr/bin/grpc_java_plugin)}"
OUT="$HERE/build"
JAR="$OUT/flip7-java-bot.jar"
MAIN_CLASS=flip7.bot.Main

# the runtime classpath: gRPC over Netty, protobuf, and what they need (Debian's unshaded jars)
JARS=(
    grpc-api grpc-context grpc-core grpc-stub grpc-protobuf grpc-protobuf-lite grpc-netty
    protobuf guava perfmark-api
    netty-common netty-buffer netty-transport netty-resolver netty-codec netty-handler
    netty-codec-http netty-codec-http2 netty-transport-native-unix-common
    netty-transport-native-epoll jctools-core
)

# the JDK tools start and finish faster with the client compiler only (javac: ~2x here)
JVM_FAST="-J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC"

say() { echo "build.sh: $*"; }
fail() { echo "build.sh: error: $*" >&2; exit 1; }

# ---------------------------------------------------------------- tools and jars
missing=()
command -v "$PROTOC" >/dev/null || missing+=("protoc (apt: protobuf-compiler)")
[ -x "$GRPC_JAVA_PLUGIN" ] || missing+=("grpc_java_plugin (apt: protobuf-compiler-grpc-java-plugin)")
command -v javac >/dev/null || missing+=("javac (apt: default-jdk-headless)")
command -v jar >/dev/null || missing+=("jar (apt: default-jdk-headless)")
CLASSPATH_JARS=()
for j in "${JARS[@]}"; do
    if [ -f "$JAVA_LIB/$j.jar" ]; then
        CLASSPATH_JARS+=("$JAVA_LIB/$j.jar")
    else
        missing+=("$JAVA_LIB/$j.jar (apt: libgrpc-java libprotobuf-java libnetty-java libperfmark-java libguava-java)")
    fi
done
if [ ${#missing[@]} -gt 0 ]; then
    printf 'build.sh: missing: %s\n' "${missing[@]}" >&2
    exit 3  # the toolchain is missing (the tests skip locally, fail under CI)
fi
if [ ! -f "$PROTO" ]; then
    echo "build.sh: no protocol file at $PROTO (restore proto/ from the kit, or set PROTO_ROOT)" >&2
    exit 4
fi
COMPILE_CP="$(IFS=:; echo "${CLASSPATH_JARS[*]}")"

# ---------------------------------------------------------------- up to date?
mapfile -t SOURCES < <(cd "$HERE" && find src -name '*.java' | LC_ALL=C sort)
[ ${#SOURCES[@]} -gt 0 ] || fail "no Java sources under $HERE/src"
STAMP="$( { cat "$PROTO" "$HERE/build.sh"; (cd "$HERE" && cat "${SOURCES[@]}");
            readlink -f "${CLASSPATH_JARS[@]}"; "$PROTOC" --version; javac -version 2>&1; } \
          | sha256sum | cut -d' ' -f1)"
if [ "${FORCE:-0}" != 1 ] && [ -f "$JAR" ] && [ "$(cat "$OUT/.stamp" 2>/dev/null)" = "$STAMP" ]; then
    say "up to date: $JAR (FORCE=1 to rebuild)"
    exit 0
fi

START=$(date +%s%N)
rm -rf "$OUT/gen" "$OUT/classes" "$JAR" "$OUT/.stamp"
mkdir -p "$OUT/gen" "$OUT/classes"

# ---------------------------------------------------------------- 1. generate
say "protoc $("$PROTOC" --version | cut -d' ' -f2) + $(basename "$GRPC_JAVA_PLUGIN"): ${PROTO#"$HERE"/} -> build/gen"
"$PROTOC" -I"$PROTO_ROOT" \
    --java_out="$OUT/gen" \
    --plugin=protoc-gen-grpc-java="$GRPC_JAVA_PLUGIN" --grpc-java_out="$OUT/gen" \
    "$PROTO"
# grpc-java 1.41's stub carries @javax.annotation.Generated, which Java 9+ no longer has
# (the plugin of that version cannot leave it out): drop the annotation, keep the code.
find "$OUT/gen" -name '*Grpc.java' -exec sed -i '/^@javax\.annotation\.Generated(/,/)$/d' {} +
GENERATED=$(find "$OUT/gen" -name '*.java' | wc -l)

# ---------------------------------------------------------------- 2. compile
say "javac $(javac -version 2>&1 | cut -d' ' -f2): $GENERATED generated + ${#SOURCES[@]} hand-written sources -> build/classes"
mapfile -t GEN_SOURCES < <(find "$OUT/gen" -name '*.java' | LC_ALL=C sort)
javac $JVM_FAST --release 17 -nowarn -encoding UTF-8 -d "$OUT/classes" -cp "$COMPILE_CP" \
    "${GEN_SOURCES[@]}" "${SOURCES[@]/#/$HERE/}" 2>&1 | grep -v '^Note: ' >&2 || true
[ -f "$OUT/classes/${MAIN_CLASS//.//}.class" ] || fail "javac failed"

# ---------------------------------------------------------------- 3. package
{
    echo "Manifest-Version: 1.0"
    echo "Main-Class: $MAIN_CLASS"
    echo "Class-Path: file:${CLASSPATH_JARS[0]}"
    for j in "${CLASSPATH_JARS[@]:1}"; do echo "  file:$j"; done  # continuation lines
} > "$OUT/MANIFEST.MF"
jar $JVM_FAST --create --file "$JAR" --manifest "$OUT/MANIFEST.MF" -C "$OUT/classes" .
# ---------------------------------------------------------------- 4. check
java ${JVM_FAST//-J/} -cp "$JAR" flip7.bot.SelfTest | sed 's/^/build.sh: /' || fail "the self-test failed"
echo "$STAMP" > "$OUT/.stamp"
say "built $JAR ($(du -k "$JAR" | cut -f1) KiB; classpath: ${#CLASSPATH_JARS[@]} jars from $JAVA_LIB) in $(( ($(date +%s%N) - START) / 1000000 )) ms"
say "run it with: $HERE/run.sh   (the arena sets ARENA_ADDRESS and ARENA_TOKEN)"
