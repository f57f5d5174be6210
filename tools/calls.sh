#!/bin/sh
# calls.sh OBJ...: fail when the modules (object files) call each other in a circle.
# Reads the symbols each object defines and uses (nm), makes one edge "caller callee" per
# call between two modules, and lets tsort find a loop: calls must go one way, down the
# pipeline (docs/layout.md).  Prints the modules of the loop and exits 1 when there is one.
set -eu
[ $# -gt 0 ] || { echo "usage: $0 OBJ..." >&2; exit 2; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
for o in "$@"; do
    case $o in */core/*) m=${o#*/core/} ;; */*) m=${o#*/} ;; *) m=$o ;; esac
    m=${m%.o}
    nm "$o" | awk -v m="$m" -v d="$tmp/defs" -v u="$tmp/uses" '
        NF == 3 && $2 ~ /^[TDRBC]$/ { print $3, m >> d }
        NF == 2 && $1 == "U"        { print $2, m >> u }'
done
touch "$tmp/defs" "$tmp/uses"
# Edges user -> definer, both modules; a module's own nodes keep it in tsort's input.
awk 'NR == FNR { def[$1] = $2; next }
     ($1 in def) && def[$1] != $2 { print $2, def[$1] }' "$tmp/defs" "$tmp/uses" \
    | sort -u > "$tmp/edges"
if ! tsort "$tmp/edges" > /dev/null 2> "$tmp/loop"; then
    echo "calls: modules that call each other in a circle:" >&2
    grep -v 'input contains a loop' "$tmp/loop" | sed 's/^tsort: /  /' | awk '!seen[$0]++' >&2
    exit 1
fi
echo "calls: $(wc -l < "$tmp/edges") calls between $# modules, all one way"
