# table.awk: results.tsv (input, key, value) -> the tables `make bench` prints.
# Targets (issue 6; table 1c: issue 17): parse <= 3x wc -l, peak RSS <= 2x input, first screen <= 1.2x parse,
# keys <= 2x the tiny plan's cost, global keys (unfold all, search all) < 16 ms.
BEGIN { n = 0 }
{
    if (!($1 in seen)) { seen[$1] = 1; if ($1 != "keys" && $1 != "valgrind" && $1 != "tiny" && $1 != "diff" && $1 != "instr") order[++n] = $1 }
    v[$1, $2] = $3
}
function has(i, k) { return ((i, k) in v) && v[i, k] != "" && v[i, k] != "nan" }
function ratio(a, b) { return (b > 0) ? a / b : 0 }
function mark(r, limit) { return (r <= limit) ? "ok" : sprintf("MISS x%.2f", r / limit) }
function ms(s) { return sprintf("%.0f", s * 1000) }
END {
    printf "\n1. Parse + model (sparkplan core, -O2) vs wc -l on the same file (wall; cpu = user+sys);\n"
    printf "   peak RSS vs input size\n"
    printf "   read = getting the bytes the way the loader does (mapped from 1 MB on) and finding\n"
    printf "          every line end: the floor for any loader that keeps them\n"
    printf "%-10s %7s %8s %6s %7s %8s %6s %-11s %9s %7s %6s %-11s %s\n", "input", "MB", "nodes",
        "wc ms", "read ms", "parse ms", "ratio", "(<=3)", "cpu ratio", "RSS MB", "ratio", "(<=2)",
        "in-process clean/parse/finish ms"
    for (j = 1; j <= n; j++) {
        i = order[j]
        if (!has(i, "parse")) continue
        mb = v[i, "bytes"] / 1e6
        r1 = ratio(v[i, "parse"], v[i, "wc"])
        rss = v[i, "rss_kb"] * 1024 / 1e6
        r2 = ratio(rss, mb)
        rc = ratio(v[i, "parse_cpu"], v[i, "wc_cpu"])
        printf "%-10s %7.1f %8d %6s %7s %8s %6.2f %-11s %9.2f %7.1f %6.2f %-11s %s/%s/%s\n", i, mb,
            v[i, "in_nodes"], ms(v[i, "wc"]), ms(v[i, "read"]), ms(v[i, "parse"]), r1, mark(r1, 3),
            rc, rss, r2,
            mark(r2, 2), ms(v[i, "in_clean"]), ms(v[i, "in_parse"]), ms(v[i, "in_finish"])
        if (has(i, "parse_status"))
            printf "%-10s   (the loader exited with status %s)\n", "", v[i, "parse_status"]
    }
    # How the page cache held each input (finding 12): the share mapped with 2 MB entries.
    line = ""
    for (j = 1; j <= n; j++) {
        i = order[j]
        if (has(i, "pmd_share") && v[i, "pmd_share"] >= 0)
            line = line sprintf("%s %s %.2f", line == "" ? "" : ",", i, v[i, "pmd_share"])
    }
    if (line != "")
        printf "   page cache in 2 MB folios (share of the input):%s\n", line

    shown = 0
    for (j = 1; j <= n; j++) {
        i = order[j]
        if (!has(i, "parse") || !has(i, "fresh1")) continue
        if (!shown++) {
            printf "\n1b. What the 3x budget leaves for parsing, after the floors every loader that keeps the\n"
            printf "    bytes and builds this model pays on this machine (medians, same run):\n"
            printf "    read = the read column above; fresh = new memory the size of the model (the arena),\n"
            printf "    mapped with MAP_POPULATE on one core as the arena does / touched from both cores;\n"
            printf "    left = 3 x wc - read - the faster fresh; per line: spread over both cores and every line\n"
            printf "%-10s %6s %7s %7s %8s %14s %8s %9s %8s %15s %9s\n", "input", "wc ms", "3x ms",
                "read ms", "model MB", "fresh ms 1/2", "left ms", "lines", "nodes", "left ns/line x2",
                "parse ms"
        }
        budget = 3 * v[i, "wc"]
        fresh = (v[i, "fresh2"] < v[i, "fresh1"]) ? v[i, "fresh2"] : v[i, "fresh1"]
        left = budget - v[i, "read"] - fresh
        per_line = (v[i, "lines"] > 0) ? 2 * left * 1e9 / v[i, "lines"] : 0
        printf "%-10s %6s %7s %7s %8.1f %14s %8s %9d %8d %15s %9s\n", i, ms(v[i, "wc"]), ms(budget),
            ms(v[i, "read"]), v[i, "in_arena"] / 1048576, ms(v[i, "fresh1"]) "/" ms(v[i, "fresh2"]),
            ms(left), v[i, "lines"], v[i, "in_nodes"], (left > 0) ? sprintf("%.1f", per_line) : "none",
            ms(v[i, "parse"])
    }

    shown = 0
    for (j = 1; j <= n; j++) {
        i = order[j]
        if (!has(i, "parse") || !has(i, "wc")) continue
        if (!shown++) {
            printf "\n1c. Against wc -l of the same file (same run): the loading targets of issue 17\n"
            printf "    parse, summary, print x = median of per-turn ratios, each run a moment after a\n"
            printf "           wc -l of the same file (spbench vs); wc ms = the wc -l column of table 1\n"
            printf "    scan = every line end found 64 bytes a step (spbench scan): the floor measured the\n"
            printf "           fast way, the file mapped as the loader maps it / read into fresh memory\n"
            printf "           asked for as 2 MB pages (spbench scan FILE read)\n"
            printf "    index = fresh memory for 16 bytes an operator (a compact index of the plan), one\n"
            printf "            core, MAP_POPULATE\n"
            printf "    parse <= 3 (formatted, simple), <= 6 (corpus paste, event-log line), the other rows\n"
            printf "    figures only (table 1 holds them to issue 6's 3x);\n"
            printf "    summary <= 5, print <= 6, RSS <= 1.5x input on the million-node plans;\n"
            printf "    screen = first full screen (pty) <= 4 on the formatted plan\n"
            printf "    proto = the one-pass index prototype (spbench index, bench/index.c): time on one\n"
            printf "            core, on two (spbench index FILE 1 two, where it could use the second\n"
            printf "            half's index) and on two with the loader's quick paste scan beside it\n"
            printf "            (... 1 scan), and RSS against wc -l and the input, and its node count\n"
            printf "            beside the loader's\n"
            printf "%-10s %6s %11s %8s %-13s %-13s %-13s %-13s %-13s %s\n", "input", "wc ms",
                "scan x m/r", "index ms", "parse x", "summary x", "print x", "screen x", "RSS/input",
                "proto x 1/2/2+scan / RSS / nodes (loader)"
        }
        w = v[i, "wc"]
        big = (i == "formatted" || i == "simple")
        # issue 17 names its inputs: the other rows are figures beside them
        lim = (i == "corpus" || i == "eventlog") ? 6 : big ? 3 : 0
        # the paired ratio (spbench vs: wc -l and the command in turns) where the run has it
        r = has(i, "parse_vs") ? v[i, "parse_vs"] : ratio(v[i, "parse"], w)
        cell_p = lim ? sprintf("%.1f %s", r, mark(r, lim)) : sprintf("%.1f", r)
        cell_s = "-"; cell_o = "-"; cell_t = "-"; cell_m = "-"
        if (has(i, "summary")) {
            r = has(i, "summary_vs") ? v[i, "summary_vs"] : ratio(v[i, "summary"], w)
            cell_s = big ? sprintf("%.1f %s", r, mark(r, 5)) : sprintf("%.1f", r)
        }
        if (has(i, "print")) {
            r = has(i, "print_vs") ? v[i, "print_vs"] : ratio(v[i, "print"], w)
            cell_o = big ? sprintf("%.1f %s", r, mark(r, 6)) : sprintf("%.1f", r)
        }
        if (has(i, "pty")) {
            r = ratio(v[i, "pty"], w)
            cell_t = (i == "formatted") ? sprintf("%.1f %s", r, mark(r, 4)) : sprintf("%.1f", r)
        }
        if (has(i, "rss_kb")) {
            r = ratio(v[i, "rss_kb"] * 1024 / 1e6, v[i, "bytes"] / 1e6)
            cell_m = big ? sprintf("%.2f %s", r, mark(r, 1.5)) : sprintf("%.2f", r)
        }
        cell_x = "-"
        if (has(i, "proto"))
            cell_x = sprintf("%.1f/%s/%s / %.2f / %d (%d)", ratio(v[i, "proto"], w),
                has(i, "proto2") ? sprintf("%.1f", ratio(v[i, "proto2"], w)) : "-",
                has(i, "proto2s") ? sprintf("%.1f", ratio(v[i, "proto2s"], w)) : "-",
                ratio(v[i, "proto_rss_kb"] * 1024 / 1e6, v[i, "bytes"] / 1e6), v[i, "proto_nodes"],
                v[i, "in_nodes"])
        cell_r = has(i, "scan") ? sprintf("%.2f", ratio(v[i, "scan"], w)) : "-"
        if (has(i, "scan_read"))
            cell_r = cell_r sprintf("/%.2f", ratio(v[i, "scan_read"], w))
        printf "%-10s %6s %11s %8s %-13s %-13s %-13s %-13s %-13s %s\n", i, ms(w), cell_r,
            has(i, "fresh_index") ? sprintf("%.1f", v[i, "fresh_index"] * 1000) : "-", cell_p, cell_s, cell_o, cell_t,
            cell_m, cell_x
    }

    shown = 0
    for (j = 1; j <= n; j++) {
        i = order[j]
        if (!has(i, "print") && !has(i, "json")) continue
        if (!shown++) {
            printf "\n2. Output throughput: sparkplan --print / --json to a file vs cat of a file the same size\n"
            printf "   ratio: the whole run (read, parse, write); emit: emit_print/emit_json alone on a loaded\n"
            printf "   document (in-process, to a file) vs cat of its output right after\n"
            printf "%-10s %9s %8s %8s %6s %6s %9s %8s %8s %6s %6s\n", "input", "print MB", "ms",
                "cat ms", "ratio", "emit", "json MB", "ms", "cat ms", "ratio", "emit"
        }
        printf "%-10s", i
        if (has(i, "print"))
            printf " %9.1f %8s %8s %6.2f %6.2f", v[i, "print_bytes"] / 1e6, ms(v[i, "print"]),
                ms(v[i, "print_cat"]), ratio(v[i, "print"], v[i, "print_cat"]),
                ratio(v[i, "print_emit"], v[i, "print_emit_cat"])
        else
            printf " %9s %8s %8s %6s %6s", "-", "-", "-", "-", "-"
        if (has(i, "json"))
            printf " %9.1f %8s %8s %6.2f %6.2f", v[i, "json_bytes"] / 1e6, ms(v[i, "json"]),
                ms(v[i, "json_cat"]), ratio(v[i, "json"], v[i, "json_cat"]),
                ratio(v[i, "json_emit"], v[i, "json_emit_cat"])
        printf "\n"
    }
    if (!shown) printf "\n2. Output throughput: n/a (sparkplan --print/--json not built yet)\n"
    for (j = 1; j <= n; j++) {
        i = order[j]
        if (!has(i, "lint")) continue
        printf "\n2b. --lint / --summary on %s (every section read once: linear in their number)\n", i
        printf "%-10s %8s %8s %10s %10s\n", "input", "MB", "json ms", "lint ms", "summary ms"
        printf "%-10s %8.1f %8s %10s %10s\n", i, v[i, "bytes"] / 1e6, has(i, "json") ? ms(v[i, "json"]) : "-",
            ms(v[i, "lint"]), ms(v[i, "summary"])
    }

    shown = 0
    for (j = 1; j <= n; j++) {
        i = order[j]
        if (!(( i, "screen") in v)) continue
        if (!shown++) {
            printf "\n3. Explorer: start to first full screen (120x40) vs parse alone, timed back to back\n"
            printf "   (each ratio = the median of the runs' ratios)\n"
            printf "   pty:  on a pseudo-terminal of spbench's own, which reads what the explorer writes and\n"
            printf "         follows the cursor; full screen = the bottom row drawn and the frame's writes over\n"
            printf "         (bench/screen.c).  The target's figure.\n"
            printf "   tmux: in a detached tmux session, until capture-pane shows the bottom row; adds tmux's\n"
            printf "         own start (server, the pane's shell, capture), shown for a real terminal's view\n"
            printf "   floor: the same figure for the 10-node plan (process start, terminal set-up; + tmux)\n"
            printf "%-10s %9s %7s %6s %-17s %8s %8s %6s %8s %s\n", "input", "parse ms", "pty ms", "ratio",
                "(<=1.2)", "floor ms", "tmux ms", "ratio", "floor ms", "(tmux-floor)/parse"
        }
        if (has(i, "screen")) {
            pr = has(i, "pty_ratio") ? v[i, "pty_ratio"] : -1
            fl = has("tiny", "screen") ? v["tiny", "screen"] : -1
            pfl = has("tiny", "pty") ? v["tiny", "pty"] : -1
            printf "%-10s %9s %7s %6s %-17s %8s %8s %6.2f %8s %s\n", i, ms(v[i, "screen_parse"]),
                has(i, "pty") ? ms(v[i, "pty"]) : "-", (pr >= 0) ? sprintf("%.2f", pr) : "-",
                (pr >= 0) ? mark(pr, 1.2) : "-", (pfl >= 0) ? ms(pfl) : "-",
                ms(v[i, "screen"]), v[i, "screen_ratio"], (fl >= 0) ? ms(fl) : "-",
                (fl >= 0 && v[i, "screen_parse"] > 0) ? sprintf("%.2f", (v[i, "screen"] - fl) / v[i, "screen_parse"]) : "-"
        } else
            printf "%-10s %9s %7s %6s %s\n", i, ms(v[i, "parse"]), "timeout", "-", "MISS"
    }
    if (!shown) printf "\n3. Explorer first screen: n/a (the explorer does not draw yet)\n"

    if (("keys", "na") in v)
        printf "\n4. Key costs: n/a (%s)\n", v["keys", "na"]
    else if (has("keys", "big_move_ns")) {
        printf "\n4. One key on the row model (in-process, ns per key): 1M-node formatted plan vs 10-node plan\n"
        printf "   38-line pane (the explorer's); 8-line pane (the 10-node plan fills it too); 53 nodes: a\n"
        printf "   plan that fills the 38-line pane (the fair baseline for a full screen, same key and pane);\n"
        printf "   +frame = the key plus laying out the rows it shows (10, 38 and 38 rows); its ratio: 1M / 53\n"
        printf "%-12s %8s %9s %6s %8s %9s %6s %8s %6s %19s %6s  %s\n", "key", "10 nodes", "1M nodes",
            "ratio", "10 (8)", "1M (8)", "ratio", "53 nodes", "ratio", "+frame us 10/53/1M", "ratio",
            "target: <= 2x (38 / 8 lines / full pane)"
        nk = split("move fold search_next jump_id unfold_all search_all", keys, " ")
        for (k = 1; k <= nk; k++) {
            key = keys[k]
            if (!has("keys", "big_" key "_ns")) continue
            t = v["keys", "tiny_" key "_ns"]; b = v["keys", "big_" key "_ns"]
            t8 = v["keys", "tiny_" key "_ns8"]; b8 = v["keys", "big_" key "_ns8"]
            f = v["keys", "fill_" key "_ns"]
            r = ratio(b, t); r8 = ratio(b8, t8); rf = (f > 0) ? ratio(b, f) : 0
            fr = v["keys", "big_" key "_frame_ns"]; tfr = v["keys", "tiny_" key "_frame_ns"]
            ffr = v["keys", "fill_" key "_frame_ns"]
            rfr = (ffr > 0 && fr > 0) ? ratio(fr, ffr) : 0
            if (key == "unfold_all" || key == "search_all")
                verdict = (b < 16e6) ? sprintf("ok: %.2f ms < 16 ms frame", b / 1e6) : sprintf("MISS: %.0f ms, x%.1f a 16 ms frame", b / 1e6, b / 16e6)
            else
                verdict = sprintf("%s / %s / %s", (r <= 2) ? "ok" : sprintf("MISS x%.2f", r / 2),
                    (r8 <= 2) ? "ok" : sprintf("MISS x%.2f", r8 / 2),
                    (f <= 0) ? "-" : (rf <= 2) ? "ok" : sprintf("MISS x%.2f", rf / 2))
            frames = (fr > 0) ? sprintf("%.1f/%.1f/%.1f", tfr / 1000, ffr / 1000, fr / 1000) : "-"
            printf "%-12s %8.0f %9.0f %6.2f %8.0f %9.0f %6.2f %8s %6s %19s %6s  %s\n", key, t, b, r, t8,
                b8, r8, (f > 0) ? sprintf("%.0f", f) : "-", (f > 0) ? sprintf("%.2f", rf) : "-",
                frames, (rfr > 0) ? sprintf("%.2f", rfr) : "-", verdict
        }
        if (has("keys", "big_text_floor_ns") && has("keys", "big_search_all_ns"))
            printf "search_all's floor: one memchr pass over the same text (no match) takes %.1f ms; search_all is %.2fx that\n",
                v["keys", "big_text_floor_ns"] / 1e6,
                ratio(v["keys", "big_search_all_ns"], v["keys", "big_text_floor_ns"])
    }

    if (("valgrind", "status") in v || ("valgrind", "ui_rss_600") in v)
        printf "\n5. Memory over 10,000 keys on the tiny plan (row model in-process, then the explorer)\n"
    if (("valgrind", "status") in v) {
        printf "memcheck exit status %s (0 = no leak, no error)\n", v["valgrind", "status"]
        a = v["valgrind", "heap_peak_1000"]; b = v["valgrind", "heap_peak_10000"]
        printf "massif heap peak: %s B after 1,000 keys, %s B after 10,000 keys (%s)\n", a, b,
            (b <= a * 1.05 + 4096) ? "flat" : "GROWS"
    }
    if (("valgrind", "ui_status") in v)
        printf "the explorer in tmux under valgrind, 10,000 keys: exit status %s, definitely lost %s B, %s errors\n",
            v["valgrind", "ui_status"], v["valgrind", "ui_lost"], v["valgrind", "ui_errors"]
    if (("valgrind", "ui_rss_600") in v) {
        a = v["valgrind", "ui_rss_600"]; b = v["valgrind", "ui_rss_10000"]
        printf "the explorer's RSS (no valgrind): %s KB after 600 keys, %s KB after 10,000 (%s)\n", a, b,
            (b <= a * 1.02 + 64) ? "flat" : "GROWS"
    }
    if (has("diff", "diff") && has("diff", "load"))
        printf "\n6. --diff of two 1M-node plans vs loading both (target: a small multiple)\n%s ms diff, %s ms load, ratio %.2f, peak RSS %.0f MB\n",
            ms(v["diff", "diff"]), ms(v["diff", "load"]), ratio(v["diff", "diff"], v["diff", "load"]),
            v["diff", "diff_rss_kb"] / 1024
    if (has("instr", "formatted_summary") || has("instr", "simple_summary")) {
        printf "\n7. Instructions (callgrind, all threads, millions): the 100,000-operator plans; the same\n"
        printf "   build counts the same on any machine, so compare these across runs, not the times\n"
        printf "%-10s %7s %9s %9s %9s %12s %14s\n", "input", "MB", "load", "--summary", "the rest",
            "load/byte", "--summary/op"
        split("formatted simple", kinds, " ")
        for (j = 1; j <= 2; j++) {
            k = kinds[j]
            if (!has("instr", k "_summary"))
                continue
            p = v["instr", k "_parse"]; s = v["instr", k "_summary"]; b = v["instr", k "_bytes"]
            printf "%-10s %7.1f %9.1f %9.1f %9.1f %12.2f %14.0f\n", k, b / 1e6, p / 1e6, s / 1e6,
                (s - p) / 1e6, ratio(p, b), s / 100000
        }
    }
}
