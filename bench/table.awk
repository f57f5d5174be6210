# table.awk: results.tsv (input, key, value) -> the tables `make bench` prints.
# Targets (issue 6): parse <= 3x wc -l, peak RSS <= 2x input, first screen <= 1.2x parse,
# keys <= 2x the tiny plan's cost, global keys (unfold all, search all) < 16 ms.
BEGIN { n = 0 }
{
    if (!($1 in seen)) { seen[$1] = 1; if ($1 != "keys" && $1 != "valgrind") order[++n] = $1 }
    v[$1, $2] = $3
}
function has(i, k) { return ((i, k) in v) && v[i, k] != "" && v[i, k] != "nan" }
function ratio(a, b) { return (b > 0) ? a / b : 0 }
function mark(r, limit) { return (r <= limit) ? "ok" : sprintf("MISS x%.2f", r / limit) }
function ms(s) { return sprintf("%.0f", s * 1000) }
END {
    printf "\n1. Parse + model (sparkplan core, -O2) vs wc -l on the same file (wall; cpu = user+sys);\n"
    printf "   peak RSS vs input size\n"
    printf "   read = reading the file into fresh memory (the floor for any loader that keeps it)\n"
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

    shown = 0
    for (j = 1; j <= n; j++) {
        i = order[j]
        if (!has(i, "print") && !has(i, "json")) continue
        if (!shown++) {
            printf "\n2. Output throughput: sparkplan --print / --json to a file vs cat of a file the same size\n"
            printf "   (emit = the run minus the parse-only run of table 1: the cost of writing alone)\n"
            printf "%-10s %9s %8s %8s %6s %6s %9s %8s %8s %6s %6s\n", "input", "print MB", "ms",
                "cat ms", "ratio", "emit", "json MB", "ms", "cat ms", "ratio", "emit"
        }
        printf "%-10s", i
        if (has(i, "print"))
            printf " %9.1f %8s %8s %6.2f %6.2f", v[i, "print_bytes"] / 1e6, ms(v[i, "print"]),
                ms(v[i, "print_cat"]), ratio(v[i, "print"], v[i, "print_cat"]),
                ratio(v[i, "print"] - v[i, "parse"], v[i, "print_cat"])
        else
            printf " %9s %8s %8s %6s %6s", "-", "-", "-", "-", "-"
        if (has(i, "json"))
            printf " %9.1f %8s %8s %6.2f %6.2f", v[i, "json_bytes"] / 1e6, ms(v[i, "json"]),
                ms(v[i, "json_cat"]), ratio(v[i, "json"], v[i, "json_cat"]),
                ratio(v[i, "json"] - v[i, "parse"], v[i, "json_cat"])
        printf "\n"
    }
    if (!shown) printf "\n2. Output throughput: n/a (sparkplan --print/--json not built yet)\n"

    shown = 0
    for (j = 1; j <= n; j++) {
        i = order[j]
        if (!(( i, "screen") in v)) continue
        if (!shown++) {
            printf "\n3. Explorer: start to first full screen (tmux, 120x40) vs parse alone\n"
            printf "%-10s %10s %9s %6s %s\n", "input", "screen ms", "parse ms", "ratio", "(<=1.2)"
        }
        if (has(i, "screen")) {
            r = ratio(v[i, "screen"], v[i, "parse"])
            printf "%-10s %10s %9s %6.2f %s\n", i, ms(v[i, "screen"]), ms(v[i, "parse"]), r, mark(r, 1.2)
        } else
            printf "%-10s %10s %9s %6s %s\n", i, "timeout", ms(v[i, "parse"]), "-", "MISS"
    }
    if (!shown) printf "\n3. Explorer first screen: n/a (the explorer does not draw yet)\n"

    if (("keys", "na") in v)
        printf "\n4. Key costs: n/a (%s)\n", v["keys", "na"]
    else {
        printf "\n4. One key on the row model: 1M-node plan vs 10-node plan (ns per key)\n"
        printf "%-14s %10s %12s %8s %s\n", "key", "10 nodes", "1M nodes", "ratio", "target"
        nk = split("move fold unfold_all search_next jump_id search_all", keys, " ")
        for (k = 1; k <= nk; k++) {
            key = keys[k]
            if (!has("keys", "big_" key)) continue
            t = v["keys", "tiny_" key]; b = v["keys", "big_" key]
            r = ratio(b, t)
            if (key == "unfold_all" || key == "search_all")
                verdict = (b < 16e6) ? "ok (< 16 ms frame)" : sprintf("MISS %.1f ms", b / 1e6)
            else
                verdict = (r <= 2) ? "ok (<= 2x)" : sprintf("MISS x%.2f", r / 2)
            printf "%-14s %10.0f %12.0f %8.2f %s\n", key, t, b, r, verdict
        }
    }

    if (("valgrind", "status") in v) {
        printf "\n5. 10,000 keys on the tiny plan under valgrind\n"
        printf "memcheck exit status %s (0 = no leak, no error)\n", v["valgrind", "status"]
        a = v["valgrind", "heap_peak_1000"]; b = v["valgrind", "heap_peak_10000"]
        printf "massif heap peak: %s B after 1,000 keys, %s B after 10,000 keys (%s)\n", a, b,
            (b <= a * 1.05 + 4096) ? "flat" : "GROWS"
    }
}
