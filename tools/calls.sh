#!/bin/sh
# calls.sh OBJ...: fail when the modules (object files) call each other in a circle, or
# when a module calls one in a higher folder.
# Reads the symbols each object defines and uses (nm), makes one edge "caller callee" per
# call between two modules, and lets tsort find a loop: calls must go one way, down the
# pipeline (docs/layout.md).  Then each edge's folders are compared with CALLS_ORDER, the
# folders from the bottom up: a caller's folder may not be below its callee's.  Prints the
# modules of a loop, or the calls that go up, and exits 1.
# A module is its path under build/ (core/ left out): "input/lex", "ui/view_tree", "main";
# its folder the part before the slash.  The generated sample table belongs to input.
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
order=${CALLS_ORDER:-base input model parse analysis output rows ui main}
awk -v order="$order" '
    function folder(m) { sub(/\/.*/, "", m); return m == "sample_data" ? "input" : m }
    BEGIN { n = split(order, f, " "); for (i = 1; i <= n; i++) rank[f[i]] = i }
    {
        a = folder($1); b = folder($2)
        if (!(a in rank) || !(b in rank)) { print "  " $1 " -> " $2 ": folder not in CALLS_ORDER"; bad = 1 }
        else if (rank[a] < rank[b]) { print "  " $1 " calls " $2 " (" a " is below " b ")"; bad = 1 }
    }
    END { exit bad }' "$tmp/edges" > "$tmp/up" || {
    echo "calls: calls that go up the folders (order, bottom up: $order):" >&2
    cat "$tmp/up" >&2
    exit 1
}
echo "calls: $(wc -l < "$tmp/edges") calls between $# modules, all one way, all down the folders ($order)"
