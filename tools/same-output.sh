#!/bin/sh
# tools/same-output.sh: does a change to the loader keep every output byte?
#
#   tools/same-output.sh snap BIN DIR     write BIN's --json and --print (and --summary) of
#                                         every corpus file, notebook, event log and sample
#                                         into DIR (one checksum line per file and mode)
#   tools/same-output.sh diff DIR1 DIR2   compare two snapshots; names every file that differs
#
# Inputs: $SPARKPLAN_CORPUS (../shared/corpus) and the notebooks and event logs beside it,
# samples/*.txt, and the files named in $SAME_EXTRA (big generated plans: the loader
# takes another path from 8 MB on).  Exit status and stderr are part of the checksum, so a new error counts.
set -u
mode=${1:-}
case $mode in
snap)
    bin=$2 out=$3
    corpus=${SPARKPLAN_CORPUS:-../shared/corpus}
    mkdir -p "$out" || exit 1
    : >"$out/sums"
    {
        find "$corpus" "$corpus-notebooks" "$corpus-eventlogs" -type f \
            ! -name INDEX.tsv ! -name '*.md' 2>/dev/null
        ls samples/*.txt
        for x in ${SAME_EXTRA:-}; do echo "$x"; done
    } | LC_ALL=C sort | while IFS= read -r f; do
        for m in --json --print --summary; do
            s=$( { "$bin" "$m" "$f" 2>&1; echo "rc=$?"; } | cksum)
            printf '%s\t%s\t%s\n' "$m" "$f" "$s"
        done
    done >"$out/sums"
    wc -l <"$out/sums" ;;
diff)
    if cmp -s "$2/sums" "$3/sums"; then
        echo "same: $(wc -l <"$2/sums") outputs"
    else
        diff "$2/sums" "$3/sums" | head -40
        exit 1
    fi ;;
*)
    sed -n '2,12p' "$0"
    exit 2 ;;
esac
