#!/bin/sh
# prefetch.sh OBJ...: fail when an object file holds fewer prefetch instructions than its
# source has __builtin_prefetch calls.
# GCC may take a helper that only prefetches for a pure function and drop its calls
# (include/sparkplan/prefetch.h): the build stays green and the pass it served just waits
# for memory again.  A call inlined or unrolled leaves more instructions, never fewer, so
# "fewer than the calls written" means one was dropped.  The source of build/core/X/Y.o is
# src/X/Y.c, of build/ui/Y.o src/ui/Y.c; comment lines are not counted.
set -eu
[ $# -gt 0 ] || { echo "usage: $0 OBJ..." >&2; exit 2; }
bad=0
for o in "$@"; do
    case $o in
        */core/*) src=src/${o#*/core/} ;;
        */ui/*)   src=src/ui/${o#*/ui/} ;;
        *)        src=src/${o#*/} ;;
    esac
    src=${src%.o}.c
    [ -f "$src" ] || continue
    calls=$(grep -v '^ *\(/\*\|\*\|//\)' "$src" | grep -c '__builtin_prefetch(' || true)
    [ "$calls" -gt 0 ] || continue
    insns=$(objdump -d --no-show-raw-insn "$o" | grep -c '	prefetch' || true)
    if [ "$insns" -lt "$calls" ]; then
        echo "  $o: $insns prefetch instructions for $calls __builtin_prefetch calls in $src" >&2
        bad=1
    fi
done
[ $bad -eq 0 ] || { echo "prefetch: a prefetch was dropped (see include/sparkplan/prefetch.h)" >&2; exit 1; }
echo "prefetch: every __builtin_prefetch call left its instruction"
