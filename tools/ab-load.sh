#!/bin/sh
# tools/ab-load.sh: two builds side by side on the same files, each figure against wc -l.
#
#   tools/ab-load.sh BASE_DIR NEW_DIR ROUNDS FILE...
#
# BASE_DIR and NEW_DIR each hold a build-bench/ (sparkplan, spbench: `make build-bench/sparkplan
# build-bench/spbench` in a checkout of each).  Every round runs, back to back, wc -l, the
# fast line-end floor (spbench scan), then each build's parse, --summary and --print (which build
# goes first alternates from round to round: use an even number of rounds), so both
# builds see the same machine load; the medians over the rounds are printed as ms and as
# ratios to wc -l.  For a machine shared with other work: say how loaded it was (uptime).
set -u
base=$1 new=$2 rounds=$3
shift 3
t() { o=$1; shift; "$new/build-bench/spbench" run 1 "$o" -- "$@" 2>/dev/null | sed -n 's/^time=\([^ ]*\).*/\1/p'; }
med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
out=${TMPDIR:-/tmp}/ab-load.$$
mkdir -p "$out"
printf '%-14s %7s %6s | %-21s | %-21s | %-21s\n' file "wc ms" "scan x" "parse ms (x) base/new" \
    "summary ms (x)" "print ms (x)"
for f in "$@"; do
    cat "$f" >/dev/null
    : >"$out/r"
    r=0
    while [ "$r" -lt "$rounds" ]; do
        w=$(t /dev/null wc -l "$f")
        s=$(t /dev/null "$new/build-bench/spbench" scan "$f")
        line="$w $s"
        # Which build runs first alternates from round to round: the one run second gets the
        # memory the first has just freed (warm, where the host takes back what a guest frees
        # a few seconds after: up to 40 % faster loads in the same minute) and the first's
        # output still being written (slower --print): a fixed order favours one build.
        if [ $((r % 2)) = 0 ]; then first=$base second=$new; else first=$new second=$base; fi
        a=$(t /dev/null "$first/build-bench/spbench" parse "$f")
        b=$(t /dev/null "$second/build-bench/spbench" parse "$f")
        if [ "$first" = "$base" ]; then line="$line $a $b"; else line="$line $b $a"; fi
        for m in --summary --print; do
            a=$(t "$out/o" "$first/build-bench/sparkplan" "$m" "$f")
            b=$(t "$out/o" "$second/build-bench/sparkplan" "$m" "$f")
            if [ "$first" = "$base" ]; then line="$line $a $b"; else line="$line $b $a"; fi
        done
        echo "$line" >>"$out/r"
        r=$((r + 1))
    done
    col() { cut -d' ' -f"$1" "$out/r" | med; }
    awk -v f="$(basename "$f")" -v w="$(col 1)" -v s="$(col 2)" -v pb="$(col 3)" -v pn="$(col 4)" \
        -v sb="$(col 5)" -v sn="$(col 6)" -v ob="$(col 7)" -v on="$(col 8)" 'BEGIN {
        printf "%-14s %7.0f %6.2f | %4.0f/%4.0f (%4.1f/%4.1f) | %4.0f/%4.0f (%4.1f/%4.1f) | %4.0f/%4.0f (%4.1f/%4.1f)\n",
            f, w * 1000, s / w, pb * 1000, pn * 1000, pb / w, pn / w, sb * 1000, sn * 1000, sb / w,
            sn / w, ob * 1000, on * 1000, ob / w, on / w }'
done
rm -rf "$out"
