#!/bin/sh
# bench/run.sh: the measuring script behind `make bench` (see BENCHMARKS.md).
#
# Generates the inputs into $BENCH_DIR, measures every figure side by side with its
# baseline in the same run, prints tables of medians and copies them to bench/out/last.txt.
# Environment: BENCH_DIR (/tmp/sparkplan-bench), BENCH_RUNS (3), BENCH_KEEP=1 keeps the big
# files, BENCH_ONLY="formatted simple ..." restricts the inputs, SPARKPLAN_CORPUS
# (../shared/corpus), BENCH_NODES (1000000), BENCH_KEYS=0 skips the key costs (BENCH_KEY_PROCS:
# processes per plan, 5),
# BENCH_VALGRIND=0 skips the valgrind runs (the instruction counts among them; BENCH_INSTR=0
# skips those alone), BENCH_DIFF=0 the diff figure, BENCH_SCREEN_RE (a regex the explorer's first
# full screen shows; default: anything on the bottom row), BENCH_POLL_S (pause between two
# looks at the screen, 0.01; 0 polls back to back), BENCH_QUIET_WAIT (1: wait for the
# explorer's first output without polling, see below), BENCH_SP (the explorer binary),
# BENCH_RECACHE=0 measures the inputs in the page cache as it is (default: each dropped from
# it and read back first, see pagecache below).
set -u

BB=${BB:-build-bench}
DIR=${BENCH_DIR:-/tmp/sparkplan-bench}
RUNS=${BENCH_RUNS:-3}
KEEP=${BENCH_KEEP:-0}
NODES=${BENCH_NODES:-1000000}
ONLY=${BENCH_ONLY:-formatted simple chain longline subqueries corpus eventlog}
CORPUS=${SPARKPLAN_CORPUS:-../shared/corpus}
SCREEN_RE=${BENCH_SCREEN_RE:-}
# Pause between two looks at the explorer's screen.  Polling without a pause (a tmux client
# forked back to back) took most of a core from the explorer it measures on this 2-core
# machine: its load ran 100-400 ms slower than the parse baseline beside it, which nothing
# polls.  10 ms costs at most 10 ms of resolution.
POLL=${BENCH_POLL_S:-0.01}
# 1 (default when mkfifo and timeout are there): no polling at all until the explorer
# writes its first byte, then back-to-back polling for the few ms to its first frame.
# Polling every 10 ms still slowed a 1.2 s load by 100-600 ms on this machine (a tmux client
# and a sleep forked 100 times a second, beside a load that faults in 500 MB).
QUIET_WAIT=${BENCH_QUIET_WAIT:-1}
command -v mkfifo >/dev/null 2>&1 && command -v timeout >/dev/null 2>&1 || QUIET_WAIT=0
ROOT=$(pwd)
SP=${BENCH_SP:-$ROOT/$BB/sparkplan}   # BENCH_SP: another explorer binary, for A/B runs
SPB=$ROOT/$BB/spbench
GEN=$ROOT/$BB/gen
OUT=$ROOT/bench/out
RES=$DIR/results.tsv
TMUX_SOCK=sparkplan-bench-$$

mkdir -p "$DIR" "$OUT" || exit 1
: >"$RES"

cleanup() {
    tmux -L "$TMUX_SOCK" kill-server 2>/dev/null
    rm -f "$DIR"/out.* "$DIR"/*.massif
    if [ "$KEEP" != 1 ]; then
        rm -f "$DIR"/formatted.txt "$DIR"/simple.txt "$DIR"/chain.txt "$DIR"/longline.txt \
              "$DIR"/corpus.txt "$DIR"/corpus1.txt "$DIR"/subqueries.txt "$DIR"/eventlog.txt
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { printf '%s\n' "$*" >&2; }
# field NAME LINE: the value of NAME=... in a "k=v k=v" line
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }
# record INPUT KEY VALUE
record() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$RES"; }
now() { date +%s.%N; }
calc() { awk "BEGIN { print ($1) }"; }   # arithmetic without bc (parenthesised: ">" compares)
warm() { cat "$1" >/dev/null; }   # page cache: every figure reads from memory
# The inputs' page cache (BENCHMARKS.md finding 12).  The same file costs wc -l and the
# loader more or less depending on how the page cache holds it: wc -l of the formatted plan
# took 46-58 ms on an input kept for hours (7 % of it in 2 MB folios) and 22-28 ms once it
# was dropped and read back (96 %); the loader's mapping is cheapest with 2 MB folios too.
# So each input is dropped from the page cache and read back before it is measured (spbench
# recache): the state of a plan read from disk, the same whatever happened to the file
# before, and one in which wc -l is at its fastest.  BENCH_RECACHE=0: the page cache as it is.
RECACHE=${BENCH_RECACHE:-1}
# pagecache FILE [NAME]: FILE into the page cache as above; NAME: record the share of it the
# kernel maps with 2 MB entries (its page cache in 2 MB folios).
pagecache() {
    if [ "$RECACHE" = 1 ]; then "$SPB" recache "$1" >/dev/null || warm "$1"; else warm "$1"; fi
    [ -z "${2:-}" ] || record "$2" pmd_share "$(field share "$("$SPB" folios "$1" 2>/dev/null)")"
}

# ---- the machine -------------------------------------------------------------------
CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
MEM=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null)
say "machine: $(nproc) cores, ${CPU:-unknown CPU}, ${MEM:-? memory}; runs per case: $RUNS"
# Proactive reclaim (BENCHMARKS.md finding 12): a DAMON scheme of this kernel that pages out
# memory idle for a while drops the page cache of an input left alone that long, in part, so
# a kept input is read from disk again, piece by piece, by whatever reads it next.  Said on
# the report's second line; the inputs are read back before they are measured (pagecache)
# whatever it says.  Empty when no such scheme is on.
damon_pageout() {
    for k in /sys/kernel/mm/damon/admin/kdamonds/*; do
        [ "$(cat "$k/state" 2>/dev/null)" = on ] || continue
        for c in "$k"/contexts/*; do
            aggr=$(cat "$c/monitoring_attrs/intervals/aggr_us" 2>/dev/null) || continue
            for sc in "$c"/schemes/*; do
                [ "$(cat "$sc/action" 2>/dev/null)" = pageout ] || continue
                age=$(cat "$sc/access_pattern/age/min" 2>/dev/null) || continue
                mb=$(( $(cat "$sc/quotas/bytes" 2>/dev/null || echo 0) >> 20 ))
                per=$(cat "$sc/quotas/reset_interval_ms" 2>/dev/null || echo ?)
                echo "the kernel pages out memory idle for $((age * aggr / 1000000)) s (DAMON pageout, up to $mb MB each $per ms; 0: no limit)"
                return 0
            done
        done
    done
}
DAMON=$(damon_pageout)
# A kernel of this VM's kind packs threads onto vCPUs that are already busy
# (sched_vcpu_pack on its command line): a new thread started beside a busy one ran on its
# core, in 4 ms turns, for up to 40 ms of a load (BENCHMARKS.md finding 13).  The program's
# workers move themselves off their creator's core (src/base/thread.c); said on the report.
PACK=$(cat /proc/sys/kernel/sched_vcpu_pack 2>/dev/null || true)

# ---- inputs ------------------------------------------------------------------------
make_input() { # NAME: generate $DIR/NAME.txt unless a fresh one is there
    f=$DIR/$1.txt
    if [ -s "$f" ] && [ "$f" -nt "$GEN" ]; then
        return 0
    fi
    t0=$(now)
    case $1 in
        formatted) "$GEN" formatted "$NODES" "$f" ;;
        simple)    "$GEN" simple "$NODES" "$f" ;;
        chain)     "$GEN" chain 10000 "$f" ;;
        longline)  "$GEN" longline 50000000 "$f" ;;
        subqueries) "$GEN" subqueries 80000 "$f" ;;   # 80,000 subquery sections, 10 MB
        # the formatted plan's shape, 100 MB of it, as an event log carries it: the escaped
        # string of physicalPlanDescription on one JSON line
        eventlog)  "$GEN" eventlog $((NODES * 43 / 100)) "$f" ;;
        tiny)      "$GEN" formatted 10 "$f" ;;
        fill)      "$GEN" formatted 40 "$f" ;;   # 53 operators: fills the 38-line pane
        corpus)
            [ -d "$CORPUS" ] || return 1
            # Every plan file of the corpus once, in a fixed order, then repeated to 100 MB.
            find "$CORPUS" -type f ! -name INDEX.tsv ! -name SOURCES.md ! -name '*.md' \
                | LC_ALL=C sort | tr '\n' '\0' | xargs -0 cat >"$DIR/corpus1.txt"
            one=$(wc -c <"$DIR/corpus1.txt")
            [ "$one" -gt 0 ] || return 1
            : >"$f"
            while [ "$(wc -c <"$f")" -lt 100000000 ]; do cat "$DIR/corpus1.txt" >>"$f"; done
            rm -f "$DIR/corpus1.txt" ;;
    esac || return 1
    say "generated $1.txt: $(wc -c <"$f") bytes in $(calc "$(now) - $t0") s"
}

# ---- what the binary can do already (the CLI and the explorer land separately) -----
make_input tiny || exit 1
TINY=$DIR/tiny.txt
HAVE_PRINT=0
HAVE_JSON=0
HAVE_UI=0
"$SP" --print "$TINY" >"$DIR/out.probe" 2>/dev/null && [ -s "$DIR/out.probe" ] && HAVE_PRINT=1
"$SP" --json "$TINY" >"$DIR/out.probe" 2>/dev/null && [ -s "$DIR/out.probe" ] && HAVE_JSON=1
if command -v tmux >/dev/null 2>&1; then
    tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -s keep -x 120 -y 40 'sleep 100000'
    # The explorer is there when a tiny plan puts something on the bottom row.
    tmux -L "$TMUX_SOCK" new-session -d -s probe -x 120 -y 40 "$SP $TINY; sleep 100000"
    i=0
    while [ $i -lt 50 ]; do
        row=$(tmux -L "$TMUX_SOCK" capture-pane -p -t probe | tail -n 1)
        case $row in *[![:space:]]*) HAVE_UI=1; break ;; esac
        sleep 0.1
        i=$((i + 1))
    done
    tmux -L "$TMUX_SOCK" kill-session -t probe 2>/dev/null
fi
[ $HAVE_PRINT = 1 ] || say "note: sparkplan --print is not available yet: output figures skipped"
[ $HAVE_JSON = 1 ] || say "note: sparkplan --json is not available yet: json figures skipped"
[ $HAVE_UI = 1 ] || say "note: the explorer does not draw yet (or tmux is missing): first-screen figures skipped"

# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# first_screen FILE: "SCREEN PARSE RATIO PTY PTY_RATIO", medians over RUNS triples.  Each
# triple times the parse alone, then the explorer's first screen on a pseudo-terminal of
# spbench's own (PTY: no tmux in between, see bench/screen.c), then in tmux (SCREEN), back to
# back, so the ratios of a triple see the same machine load; the ratio columns are the
# medians of the triples' ratios.
first_screen() {
    : >"$DIR/out.screen"
    r=0
    while [ $r -lt "$RUNS" ]; do
        p=$(field time "$("$SPB" run 1 /dev/null -- "$SPB" parse "$1" 2>/dev/null)")
        pty=$(field time "$("$SPB" screen 40 120 60 -- "$SP" "$1" 2>/dev/null)")
        if [ "$QUIET_WAIT" = 1 ]; then
            # The pane waits for a signal before it starts the explorer, and copies what
            # the explorer writes into a FIFO: the script sleeps in a read until the first
            # byte (the terminal set-up, a few ms before the first frame), then polls.
            rm -f "$DIR/out.fifo"
            mkfifo "$DIR/out.fifo" || return 1
            tmux -L "$TMUX_SOCK" new-session -d -s shot -x 120 -y 40 \
                "tmux -L $TMUX_SOCK wait-for go; $SP $1; sleep 100000"
            tmux -L "$TMUX_SOCK" pipe-pane -t shot -o "cat >$DIR/out.fifo"
            t0=$(now)
            tmux -L "$TMUX_SOCK" wait-for -S go
            timeout 60 head -c 1 "$DIR/out.fifo" >/dev/null
        else
            t0=$(now)
            tmux -L "$TMUX_SOCK" new-session -d -s shot -x 120 -y 40 "$SP $1; sleep 100000"
        fi
        t1=""
        while :; do
            [ "$POLL" = 0 ] || [ "$QUIET_WAIT" = 1 ] || sleep "$POLL"
            screen=$(tmux -L "$TMUX_SOCK" capture-pane -p -t shot)
            if [ -n "$SCREEN_RE" ]; then
                printf '%s\n' "$screen" | grep -Eq "$SCREEN_RE" && t1=$(now)
            else
                case $(printf '%s\n' "$screen" | tail -n 1) in
                    *[![:space:]]*) t1=$(now) ;;
                esac
            fi
            [ -n "$t1" ] && break
            if [ "$(calc "($(now) - $t0) > 60")" = 1 ]; then break; fi
        done
        tmux -L "$TMUX_SOCK" kill-session -t shot 2>/dev/null
        [ -n "$t1" ] || { echo "nan nan nan nan nan"; return; }
        case $pty in ''|nan) pty_ratio=nan ;; *) pty_ratio=$(calc "$pty / $p") ;; esac
        s=$(calc "$t1 - $t0")
        echo "$s $p $(calc "$s / $p") $pty $pty_ratio" >>"$DIR/out.screen"
        r=$((r + 1))
    done
    med() { cut -d' ' -f"$1" "$DIR/out.screen" | grep -v nan | median; }
    echo "$(med 1) $(med 2) $(med 3) $(med 4) $(med 5)"
}

# The floor of the first-screen figure: the same measurement on the 10-node plan (tmux
# starting the pane's shell, the process start, the terminal set-up, the polling).
if [ $HAVE_UI = 1 ]; then
    set -- $(first_screen "$TINY")
    record tiny screen "$1"
    record tiny pty "$4"
fi

# ---- per input ---------------------------------------------------------------------
for name in $ONLY; do
    if ! make_input "$name"; then
        say "skipping $name: corpus not found at $CORPUS (set SPARKPLAN_CORPUS)"
        continue
    fi
    f=$DIR/$name.txt
    bytes=$(wc -c <"$f")
    record "$name" bytes "$bytes"
    pagecache "$f" "$name"
    say "measuring $name ($bytes bytes)"

    line=$("$SPB" run "$RUNS" /dev/null -- wc -l "$f")
    record "$name" wc "$(field time "$line")"
    record "$name" wc_cpu "$(field cpu "$line")"
    line=$("$SPB" run "$RUNS" /dev/null -- "$SPB" read "$f")
    record "$name" read "$(field time "$line")"
    # The same floor the fast way: every line end found 64 bytes a step (finding 10).
    line=$("$SPB" run "$RUNS" /dev/null -- "$SPB" scan "$f")
    record "$name" scan "$(field time "$line")"
    line=$("$SPB" run "$RUNS" /dev/null -- "$SPB" scan "$f" read)
    record "$name" scan_read "$(field time "$line")"
    # The compact index of finding 10 built in one pass (bench/index.c: a prototype that reads
    # Spark's own output only; its node count is set beside the loader's in table 1c).
    line=$("$SPB" run "$RUNS" /dev/null -- "$SPB" index "$f")
    record "$name" proto "$(field time "$line")"
    record "$name" proto_rss_kb "$(field rss_kb "$line")"
    record "$name" proto_nodes "$(field nodes "$("$SPB" index "$f" 2>/dev/null)")"
    # The same on two cores (the second half on a thread of its own), when the prototype could
    # use that half's index (one plan; else it reads the half again and nothing is shown).
    if [ "$(field halves "$("$SPB" index "$f" 1 two 2>/dev/null)")" = 2 ]; then
        line=$("$SPB" run "$RUNS" /dev/null -- "$SPB" index "$f" 1 two)
        record "$name" proto2 "$(field time "$line")"
        # and with the loader's quick paste scan beside it on both cores (today's checks)
        line=$("$SPB" run "$RUNS" /dev/null -- "$SPB" index "$f" 1 scan)
        record "$name" proto2s "$(field time "$line")"
    fi
    # The targets' rows run in turns with wc -l of the same file (spbench vs): each ratio
    # is the median of per-turn ratios, two runs a moment apart (finding 10).
    line=$("$SPB" vs "$RUNS" /dev/null "$f" -- "$SPB" parse "$f" 2>"$DIR/out.stderr")
    record "$name" parse "$(field time "$line")"
    record "$name" parse_vs "$(field ratio "$line")"
    record "$name" parse_wc "$(field wc "$line")"
    record "$name" parse_cpu "$(field cpu "$line")"
    record "$name" rss_kb "$(field rss_kb "$line")"
    [ "$(field status "$line")" = 0 ] || record "$name" parse_status "$(field status "$line")"
    line=$("$SPB" load "$f" "$RUNS" 2>/dev/null)
    for k in read clean parse finish nodes arena; do
        record "$name" "in_$k" "$(field "$k" "$line")"
    done
    # The floor under the parse: fresh memory the size of the model (the arena).
    arena=$(field arena "$line")
    nodes=$(field nodes "$line")
    record "$name" lines "$(wc -l <"$f")"
    if [ -n "$arena" ]; then
        line=$("$SPB" fresh "$(calc "$arena / 1048576")" "$RUNS")
        record "$name" fresh1 "$(field one_core "$line")"
        record "$name" fresh2 "$(field two_cores "$line")"
    fi

    # --summary: the load and the analysis behind it, its few lines of output to a file.
    line=$("$SPB" vs "$RUNS" "$DIR/out.summary" "$f" -- "$SP" --summary "$f" 2>"$DIR/out.stderr")
    record "$name" summary "$(field time "$line")"
    record "$name" summary_vs "$(field ratio "$line")"
    rm -f "$DIR/out.summary"
    # The floor of a compact index of the plan (16 bytes an operator): its fresh memory.
    if [ -n "$nodes" ] && [ "$nodes" -gt 0 ]; then
        line=$("$SPB" fresh "$(calc "$nodes * 16 / 1048576")" "$RUNS")
        record "$name" fresh_index "$(field one_core "$line")"
    fi

    for mode in print json; do
        eval have=\$HAVE_$(echo $mode | tr a-z A-Z)
        [ "$have" = 1 ] || continue
        line=$("$SPB" vs "$RUNS" "$DIR/out.$mode" "$f" -- "$SP" "--$mode" "$f" 2>"$DIR/out.stderr")
        record "$name" "$mode" "$(field time "$line")"
        record "$name" "${mode}_vs" "$(field ratio "$line")"
        record "$name" "${mode}_rss_kb" "$(field rss_kb "$line")"
        record "$name" "${mode}_bytes" "$(wc -c <"$DIR/out.$mode")"
        # Baseline: cat of a file of the same size, to a file as well.
        line=$("$SPB" run "$RUNS" "$DIR/out.cat" -- cat "$DIR/out.$mode")
        record "$name" "${mode}_cat" "$(field time "$line")"
        # The writing alone, in-process on a loaded document, and cat again right after it.
        line=$("$SPB" emit "$f" "$mode" "$DIR/out.$mode" "$RUNS" 2>/dev/null)
        record "$name" "${mode}_emit" "$(field time "$line")"
        line=$("$SPB" run "$RUNS" "$DIR/out.cat" -- cat "$DIR/out.$mode")
        record "$name" "${mode}_emit_cat" "$(field time "$line")"
        rm -f "$DIR/out.$mode" "$DIR/out.cat"
    done

    # --lint and --summary read every section: linear in their number (subqueries).
    if [ "$name" = subqueries ]; then
        for mode in lint summary; do
            line=$("$SPB" run "$RUNS" /dev/null -- "$SP" "--$mode" "$f" 2>"$DIR/out.stderr")
            record "$name" "$mode" "$(field time "$line")"
        done
    fi

    if [ $HAVE_UI = 1 ]; then
        set -- $(first_screen "$f")
        record "$name" screen "$1"
        record "$name" screen_parse "$2"
        record "$name" screen_ratio "$3"
        record "$name" pty "$4"
        record "$name" pty_ratio "$5"
    fi
    [ "$KEEP" = 1 ] || [ "$name" = formatted ] || rm -f "$f"
done

# ---- diff: two 1M-node plans compared, against loading them (docs/diff.md) ------------
# A is the generated simple plan; B the same with every id renumbered and every 5,000th
# line's Filter given one more conjunct.  The diff loads both, so its baseline is the
# parse of A plus the parse of B.  BENCH_DIFF=0 skips it.
if [ "${BENCH_DIFF:-1}" = 1 ]; then
    da=$DIR/simple.txt
    db=$DIR/simple-b.txt
    [ -s "$da" ] || make_input simple || exit 1
    sed -e 's/#\([0-9][0-9]*\)/#7\1/g' -e '0~5000s/ Filter (/ Filter (true AND /' "$da" >"$db"
    pagecache "$da"; pagecache "$db"
    say "measuring diff (two $(wc -c <"$da")-byte plans)"
    line=$("$SPB" run "$RUNS" /dev/null -- "$SP" --diff "$da" "$db")
    record diff diff "$(field time "$line")"
    record diff diff_cpu "$(field cpu "$line")"
    record diff diff_rss_kb "$(field rss_kb "$line")"
    pa=$(field time "$("$SPB" run "$RUNS" /dev/null -- "$SPB" parse "$da")")
    pb=$(field time "$("$SPB" run "$RUNS" /dev/null -- "$SPB" parse "$db")")
    record diff load "$(calc "$pa + $pb")"
    [ "$KEEP" = 1 ] || rm -f "$da" "$db"
fi

# ---- keys on the row model ---------------------------------------------------------
if [ "${BENCH_KEYS:-1}" = 1 ]; then
    big=$DIR/formatted.txt
    [ -s "$big" ] || make_input formatted
    say "measuring key costs (1M-node plan vs 10-node plan)"
    make_input fill || exit 1
    # A key costs a few ns, and that figure moves with where a process's memory happens to
    # lie: the same binary on the 10-node plan gives 11 or 20 ns for a jump from one run
    # to the next.  So each plan is measured in several processes (BENCH_KEY_PROCS, 5; 3
    # for the big plan, whose load takes a second) and the median over them is kept.
    procs=${BENCH_KEY_PROCS:-5}
    big_procs=$((procs < 3 ? procs : 3))
    : >"$DIR/out.keys-tiny"; : >"$DIR/out.keys-fill"; : >"$DIR/out.keys-big"
    p=0
    while [ $p -lt "$procs" ]; do
        "$SPB" keys "$TINY" >>"$DIR/out.keys-tiny"
        "$SPB" keys "$DIR/fill.txt" >>"$DIR/out.keys-fill"
        [ $p -lt "$big_procs" ] && "$SPB" keys "$big" >>"$DIR/out.keys-big"
        p=$((p + 1))
    done
    for size in tiny fill big; do
        for key in $(sed -n 's/^key=\([a-z_]*\) .*/\1/p' "$DIR/out.keys-$size" | sort -u); do
            for k in ns ns8 frame_ns; do
                record keys "${size}_${key}_$k" "$(grep "^key=$key " "$DIR/out.keys-$size" \
                    | tr ' ' '\n' | sed -n "s/^$k=//p" | median)"
            done
        done
    done
    grep -q 'keys=n/a' "$DIR/out.keys-tiny" && record keys na "$(cat "$DIR/out.keys-tiny")"
fi
[ "$KEEP" = 1 ] || rm -f "$DIR/formatted.txt"

# ---- instructions: the figure the host's swings do not move ------------------------
# callgrind's count of instructions for the load (spbench parse) and --summary of the
# 100,000-operator formatted and simple plans: the same build on any machine counts the
# same, so a change is judged by it where the wall times of one build move by 1.5x between
# runs minutes apart (BENCHMARKS.md, the machine).  Threads are counted together.
if [ "${BENCH_VALGRIND:-1}" = 1 ] && [ "${BENCH_INSTR:-1}" = 1 ] \
   && command -v valgrind >/dev/null 2>&1; then
    for kind in formatted simple; do
        f=$DIR/${kind}100k.txt
        if [ ! -s "$f" ] || [ "$f" -ot "$GEN" ]; then
            "$GEN" "$kind" 100000 "$f" || continue
        fi
        say "instructions: $kind plan of 100,000 operators (callgrind)"
        record "instr" "${kind}_bytes" "$(wc -c <"$f")"
        for what in parse summary; do
            if [ "$what" = parse ]; then set -- "$SPB" parse "$f"; else set -- "$SP" --summary "$f"; fi
            valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" >/dev/null 2>"$DIR/out.cg"
            record "instr" "${kind}_$what" \
                "$(sed -n 's/.*Collected : *\([0-9][0-9]*\).*/\1/p' "$DIR/out.cg" | tail -n 1)"
        done
    done
fi

# ---- memory over 10,000 keys under valgrind ----------------------------------------
if [ "${BENCH_VALGRIND:-1}" = 1 ] && command -v valgrind >/dev/null 2>&1 \
   && ! grep -q 'keys=n/a' "$DIR/out.keys-tiny" 2>/dev/null; then
    say "valgrind: 10,000 keys on the tiny plan (leak check and massif peaks)"
    valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
        --error-exitcode=9 "$SPB" keys "$TINY" 10000 >/dev/null 2>"$DIR/out.vg"
    record valgrind status $?
    record valgrind errors "$(grep -c 'ERROR SUMMARY\|definitely lost\|indirectly lost' "$DIR/out.vg")"
    for n in 1000 10000; do
        valgrind --tool=massif --massif-out-file="$DIR/keys$n.massif" "$SPB" keys "$TINY" $n \
            >/dev/null 2>&1
        peak=$(sed -n 's/^mem_heap_B=//p' "$DIR/keys$n.massif" | sort -n | tail -n 1)
        record valgrind "heap_peak_$n" "${peak:-nan}"
    done
fi

# ---- the real explorer over 10,000 keys: valgrind in tmux, then RSS without it ---------
KEYS="jjjkk lhhlCE123xX][nNGgjjkkjjkk ll hh EjkjkjkjkCEnNnN xxXX][][ 9 1 E jjjjkkkk"
CHUNK=""
k=0
while [ $k -lt 10 ]; do CHUNK="$CHUNK$KEYS"; k=$((k + 1)); done   # 600 keys
# send_keys SESSION N: about N keys in chunks, pausing so the explorer keeps up
send_keys() {
    sent=0
    while [ $sent -lt "$2" ]; do
        tmux -L "$TMUX_SOCK" send-keys -t "$1" -l "$CHUNK"
        sent=$((sent + ${#CHUNK}))
        sleep 0.3
    done
}
# wait_screen SESSION SECONDS: until the bottom row shows something
wait_screen() {
    i=0
    while [ $i -lt $(($2 * 10)) ]; do
        case $(tmux -L "$TMUX_SOCK" capture-pane -p -t "$1" | tail -n 1) in
            *[![:space:]]*) return 0 ;;
        esac
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}
if [ $HAVE_UI = 1 ] && [ "${BENCH_VALGRIND:-1}" = 1 ] && command -v valgrind >/dev/null 2>&1; then
    say "valgrind: the explorer in tmux, 10,000 keys on the tiny plan"
    rm -f "$DIR/out.vg-ui" "$DIR/out.vg-ui-status"
    tmux -L "$TMUX_SOCK" new-session -d -s vg -x 120 -y 40 \
        "valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=9 \
         --log-file=$DIR/out.vg-ui $SP $TINY; echo \$? >$DIR/out.vg-ui-status; sleep 100000"
    if wait_screen vg 60; then
        tmux -L "$TMUX_SOCK" send-keys -t vg / e x c h a n g e Enter
        send_keys vg 10000
        tmux -L "$TMUX_SOCK" send-keys -t vg q
        i=0
        while [ $i -lt 600 ] && [ ! -s "$DIR/out.vg-ui-status" ]; do sleep 0.1; i=$((i + 1)); done
        record valgrind ui_status "$(cat "$DIR/out.vg-ui-status" 2>/dev/null || echo timeout)"
        record valgrind ui_lost "$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$DIR/out.vg-ui")"
        record valgrind ui_errors "$(sed -n 's/.*ERROR SUMMARY: \([0-9,]*\) errors.*/\1/p' "$DIR/out.vg-ui")"
    fi
    tmux -L "$TMUX_SOCK" kill-session -t vg 2>/dev/null
fi
if [ $HAVE_UI = 1 ]; then
    say "explorer RSS after 600 and 10,000 keys (tiny plan, no valgrind)"
    tmux -L "$TMUX_SOCK" new-session -d -s rss -x 120 -y 40 "exec $SP $TINY"
    if wait_screen rss 20; then
        pid=$(tmux -L "$TMUX_SOCK" display-message -p -t rss '#{pane_pid}')
        tmux -L "$TMUX_SOCK" send-keys -t rss / e x c h a n g e Enter
        send_keys rss 600
        sleep 0.5
        record valgrind ui_rss_600 "$(awk '/^VmRSS/ { print $2 }' /proc/"$pid"/status)"
        send_keys rss 9400
        sleep 0.5
        record valgrind ui_rss_10000 "$(awk '/^VmRSS/ { print $2 }' /proc/"$pid"/status)"
        tmux -L "$TMUX_SOCK" send-keys -t rss q
    fi
    tmux -L "$TMUX_SOCK" kill-session -t rss 2>/dev/null
fi

# ---- an event log: the query list against decompressing it -------------------------
# BENCH_EVENTLOG_MB (1000) of generated log (bench/gen_eventlog.c: many queries, 400 tasks a
# stage), zstd-compressed; BENCH_EVENTLOG=0 skips it.  Figures: the median of RUNS runs of
# `sparkplan --summary LOG` (the query list, every metric computed) over the median of
# `zstd -dc LOG | wc -l`, and the peak RSS over the decompressed size.
EVLINES=""
if [ "${BENCH_EVENTLOG:-1}" = 1 ] && command -v zstd >/dev/null 2>&1 && [ -x "$ROOT/$BB/gen_eventlog" ]; then
    ev=$DIR/evapp.zst
    evmb=${BENCH_EVENTLOG_MB:-1000}
    if [ ! -s "$ev" ] || [ "$ev" -ot "$ROOT/$BB/gen_eventlog" ]; then
        "$ROOT/$BB/gen_eventlog" "$evmb" 400 "$DIR/evapp" && zstd -q -f -T0 --rm "$DIR/evapp" -o "$ev"
    fi
    evsize=$(zstd -dc "$ev" | wc -c)
    pagecache "$ev"
    say "measuring the event log ($evsize bytes decompressed, $(wc -c <"$ev") compressed)"
    : >"$DIR/out.ev-base"; : >"$DIR/out.ev-sp"; : >"$DIR/out.ev-rss"
    r=0
    while [ $r -lt "$RUNS" ]; do
        t0=$(now); zstd -dc "$ev" | wc -l >/dev/null; calc "$(now) - $t0" >>"$DIR/out.ev-base"
        t0=$(now); /usr/bin/time -f %M -o "$DIR/out.ev-rss1" "$SP" --summary "$ev" >/dev/null
        calc "$(now) - $t0" >>"$DIR/out.ev-sp"; cat "$DIR/out.ev-rss1" >>"$DIR/out.ev-rss"
        r=$((r + 1))
    done
    base=$(median <"$DIR/out.ev-base"); spt=$(median <"$DIR/out.ev-sp"); rss=$(median <"$DIR/out.ev-rss")
    record evapp bytes "$evsize"
    EVLINES="event log, $evsize bytes: zstd -dc | wc -l $base s, sparkplan --summary $spt s (ratio $(calc "$spt / $base"), target <= 4); peak RSS $rss KiB ($(calc "$rss * 1024 / $evsize") of the decompressed size, target < 0.25)"
    [ "$KEEP" = 1 ] || rm -f "$ev"
fi

# ---- the tables ----------------------------------------------------------------------
{
    echo "sparkplan benchmark — $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, ${CPU:-?}, ${MEM:-?}, median of $RUNS"
    if [ "$RECACHE" = 1 ]; then
        echo "inputs: each dropped from the page cache and read back before it is measured (BENCH_RECACHE=0: as it is)"
    else
        echo "inputs: in the page cache as it is (BENCH_RECACHE=0; the default reads each back first)"
    fi
    [ -z "$DAMON" ] || echo "page cache: $DAMON"
    [ -z "$PACK" ] || [ "$PACK" = 0 ] ||
        echo "scheduler: sched_vcpu_pack=$PACK (new threads packed onto busy vCPUs; the workers move off their creator's core)"
    awk -F '\t' -v runs="$RUNS" -f "$ROOT/bench/table.awk" "$RES"
    [ -z "$EVLINES" ] || echo "$EVLINES"
} | tee "$OUT/last.txt"
