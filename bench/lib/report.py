#!/usr/bin/env python3
"""bench/lib/report.py - result processing for bench/run (Python 3 stdlib only).

  report.py row CSV key=value ...      append one run's row to CSV (parses the
                                       sysbench log, status and I/O snapshots)
  report.py render CSV META OUTDIR [--docs DOCS_DIR]
                                       Markdown tables + gnuplot charts from CSV;
                                       with --docs also the PNGs in DOCS_DIR and the
                                       marked section of DOCS_DIR/BENCHMARKS.md
  report.py interval LOG               last --report-interval line of a running
                                       sysbench as "secs qps p95" (progress display)
"""
import csv
import os
import re
import subprocess
import sys

COLUMNS = [
    "run", "system", "config", "memory", "workload", "threads", "time_s",
    "qps", "tps", "p95_ms", "p99_ms", "errors", "reconnects",
    "vol_read_iops", "vol_write_iops", "vol_read_mibs", "vol_write_mibs",
    "dev_read_iops", "dev_write_iops", "dev_read_mibs", "dev_write_mibs",
    "pool_hit_ratio", "bpe_hit_ratio", "status", "started", "log",
    # write-back, per transaction over the measured interval (strata: its status
    # counters; write/read I/Os: the blkio cgroup's, flushes included)
    "page_writes_txn", "urgent_pages", "log_syncs_txn", "write_ios_txn", "read_ios_txn",
    "dirty_pct", "dirty_series", "iops_cap",
]

# display order and descriptions of the configurations
CONFIGS = [
    ("mariadb", "dw-on", "MariaDB InnoDB, doublewrite ON"),
    ("mariadb", "dw-off", "MariaDB InnoDB, doublewrite OFF"),
    ("strata", "dw", "strata, BPE off, doublewrite"),
    ("strata", "atomic", "strata, BPE off, atomic writes (RWF_ATOMIC)"),
    ("strata", "dw-bpe", "strata, BPE on, doublewrite"),
    ("strata", "atomic-bpe", "strata, BPE on, atomic writes"),
]
# bench/run --before REV: each strata configuration at REV too
BASE_CONFIGS = list(CONFIGS)
CONFIGS += [(s, c + "-before", d + ", at the --before revision") for s, c, d in BASE_CONFIGS if s == "strata"]
# bench/run --ceiling: each strata configuration with the data in memory, unthrottled
CONFIGS += [(s, c + "-mem", d + ", data in memory (CPU ceiling)") for s, c, d in BASE_CONFIGS if s == "strata"]
WORKLOADS = ["oltp_read_only", "oltp_write_only", "oltp_read_write"]

INTERVAL = re.compile(
    r"^\[ (\d+)s \] thds: \d+ tps: ([0-9.]+) qps: ([0-9.]+) .*?lat \(ms,\d+%\): ([0-9.]+)"
    r"(?: err/s: ([0-9.]+))?")


def parse_sysbench(path):
    """Summary numbers of one sysbench run log."""
    out = {"intervals": []}
    try:
        text = open(path, errors="replace").read()
    except OSError:
        return out
    pats = {
        "qps": r"queries:\s+\d+\s+\(([0-9.]+) per sec",
        "tps": r"transactions:\s+\d+\s+\(([0-9.]+) per sec",
        "p95_ms": r"95th percentile:\s+([0-9.]+)",
        "errors": r"ignored errors:\s+(\d+)",
        "reconnects": r"reconnects:\s+(\d+)",
    }
    for k, p in pats.items():
        m = re.search(p, text)
        if m:
            out[k] = m.group(1)
    # the latency histogram (--histogram=on): "value |****   count"
    hist = [(float(a), int(b)) for a, b in
            re.findall(r"^\s+([0-9.]+) \|\**\s+(\d+)\s*$", text, re.M)]
    total = sum(c for _, c in hist)
    if total:
        for pct, key in ((95, "p95_hist"), (99, "p99_ms")):
            need, acc = total * pct / 100.0, 0
            for v, c in hist:
                acc += c
                if acc >= need:
                    out[key] = "%.2f" % v
                    break
    for line in text.splitlines():
        m = INTERVAL.match(line)
        if m:
            out["intervals"].append((int(m.group(1)), float(m.group(3)), float(m.group(4))))
    if "p95_ms" not in out and "p95_hist" in out:
        out["p95_ms"] = out["p95_hist"]
    return out


def kv_file(path):
    d = {}
    try:
        for line in open(path, errors="replace"):
            parts = line.split()
            if len(parts) >= 2:
                d[parts[0]] = parts[1]
    except OSError:
        pass
    return d


def num(d, k):
    try:
        return float(d[k])
    except (KeyError, ValueError):
        return None


def cmd_row(argv):
    csv_path = argv[0]
    a = dict(x.split("=", 1) for x in argv[1:])
    sb = parse_sysbench(a["log"])
    row = {c: "" for c in COLUMNS}
    for k in ("run", "system", "config", "memory", "workload", "threads", "time_s", "started"):
        row[k] = a.get(k, "")
    row["log"] = os.path.basename(a["log"])
    for k in ("qps", "tps", "p95_ms", "p99_ms", "errors", "reconnects"):
        row[k] = sb.get(k, "")
    row["status"] = a.get("status", "ok")
    if row["status"] == "ok" and not row["qps"]:
        row["status"] = "no-result"
    iob, ioa = kv_file(a["io_before"]), kv_file(a["io_after"])
    t0, t1 = num(iob, "t"), num(ioa, "t")
    if t0 is not None and t1 is not None and t1 > t0:
        dt = t1 - t0

        def rate(k, scale=1.0):
            x, y = num(iob, k), num(ioa, k)
            if x is None or y is None:
                return ""
            return "%.1f" % ((y - x) / dt / scale)
        for pre in ("vol", "dev"):
            src = "cg" if pre == "vol" else "dev"
            row[pre + "_read_iops"] = rate(src + "_r_ios")
            row[pre + "_write_iops"] = rate(src + "_w_ios")
            row[pre + "_read_mibs"] = rate(src + "_r_bytes", 1048576.0)
            row[pre + "_write_mibs"] = rate(src + "_w_bytes", 1048576.0)
    sb_, sa = kv_file(a["status_before"]), kv_file(a["status_after"])

    def delta(k):
        x, y = num(sb_, k), num(sa, k)
        return None if x is None or y is None else y - x
    if row["system"] == "mariadb":
        req, rd = delta("Innodb_buffer_pool_read_requests"), delta("Innodb_buffer_pool_reads")
        if req:
            row["pool_hit_ratio"] = "%.4f" % (1 - rd / req)
    else:
        h, m = delta("Strata_pool_hits"), delta("Strata_pool_misses")
        if h is not None and m is not None and h + m > 0:
            row["pool_hit_ratio"] = "%.4f" % (h / (h + m))
        if "bpe" in row["config"]:
            h, m = delta("Strata_bpe_hits"), delta("Strata_bpe_misses")
            if h is not None and m is not None and h + m > 0:
                row["bpe_hit_ratio"] = "%.4f" % (h / (h + m))
    row["iops_cap"] = a.get("iops_cap", "")
    tx = num(row, "tps")
    secs = num(row, "time_s")
    if tx and secs:
        n = tx * secs  # transactions in the measured interval
        if row["system"] == "strata":
            for col, k in (("page_writes_txn", "Strata_page_writes"), ("log_syncs_txn", "Strata_log_syncs")):
                d = delta(k)
                if d is not None:
                    row[col] = "%.2f" % (d / n)
            d = delta("Strata_io_urgent_pages")
            if d is not None:
                row["urgent_pages"] = "%d" % d
        for col, k in (("write_ios_txn", "vol_write_iops"), ("read_ios_txn", "vol_read_iops")):
            v = num(row, k)
            if v is not None:
                row[col] = "%.2f" % (v / tx)
    series = dirty_samples(a.get("samples", ""))
    if series:
        row["dirty_pct"] = "%.0f/%.0f/%.0f" % (min(series), sum(series) / len(series), max(series))
        step = max(1, len(series) // 5)
        row["dirty_series"] = "/".join("%.0f" % x for x in series[::step])
    new = not os.path.exists(csv_path) or os.path.getsize(csv_path) == 0
    with open(csv_path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        if new:
            w.writeheader()
        w.writerow(row)
    # one line for the harness's log
    print("%s %s %s %s: %s QPS, %s TPS, p95 %s ms, p99 %s ms, errors %s, volume r/w IOPS %s/%s, "
          "pool hit %s, BPE hit %s%s" % (
              row["system"], row["config"], row["memory"], row["workload"],
              fmt_int(row["qps"]), fmt_int(row["tps"]), row["p95_ms"] or "-", row["p99_ms"] or "-",
              row["errors"] or "-", fmt_int(row["vol_read_iops"]), fmt_int(row["vol_write_iops"]),
              row["pool_hit_ratio"] or "-", row["bpe_hit_ratio"] or "-",
              "" if row["status"] == "ok" else " [" + row["status"] + "]"))


def dirty_samples(path):
    """Dirty pages as % of the pool, one value per sample line (bench/run's sample_status)."""
    out = []
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError:
        return out
    for line in lines:
        f = line.split()
        kv = dict(zip(f[1::2], f[2::2]))
        for dirty, total in (("Strata_pool_dirty_pages", "Strata_pool_frames"),
                             ("Innodb_buffer_pool_pages_dirty", "Innodb_buffer_pool_pages_total")):
            try:
                out.append(100.0 * float(kv[dirty]) / float(kv[total]))
            except (KeyError, ValueError, ZeroDivisionError):
                pass
    return out


def cmd_interval(argv):
    last = None
    try:
        with open(argv[0], errors="replace") as f:
            for line in f:
                m = INTERVAL.match(line)
                if m:
                    last = m
    except OSError:
        pass
    if last:
        print(last.group(1), "%.0f" % float(last.group(3)), last.group(4))


# ---------------------------------------------------------------- rendering

def fmt_int(v):
    try:
        return "{:,}".format(int(round(float(v))))
    except (TypeError, ValueError):
        return "-"


def fmt_f(v, nd=2):
    try:
        return ("%." + str(nd) + "f") % float(v)
    except (TypeError, ValueError):
        return "-"


def mem_bytes(m):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    m = m.strip().upper()
    if m and m[-1] in units:
        return float(m[:-1]) * units[m[-1]]
    try:
        return float(m)
    except ValueError:
        return 0.0


def load(csv_path):
    with open(csv_path, newline="") as f:
        return list(csv.DictReader(f))


def ordered(rows):
    mems = sorted({r["memory"] for r in rows}, key=mem_bytes)
    wls = [w for w in WORKLOADS if any(r["workload"] == w for r in rows)]
    wls += sorted({r["workload"] for r in rows} - set(wls))
    cfgs = [(s, c) for s, c, _ in CONFIGS if any(r["system"] == s and r["config"] == c for r in rows)]
    return mems, wls, cfgs


def label(s, c):
    return "%s %s" % (s, c)


def pick(rows, s, c, m, w):
    for r in rows:
        if r["system"] == s and r["config"] == c and r["memory"] == m and r["workload"] == w:
            return r
    return None


def ratio(a, b):
    try:
        a, b = float(a["qps"]), float(b["qps"])
        return "%.2f" % (a / b) if b > 0 else "-"
    except (TypeError, ValueError, KeyError):
        return "-"


def markdown(rows, meta):
    mems, wls, cfgs = ordered(rows)
    L = []
    L.append("QPS, one run each (%s s measured after %s s of warm-up, %s threads):" % (
        meta.get("time", "?"), meta.get("warmup", "?"), meta.get("threads", "?")))
    L.append("")
    L.append("| memory | workload | " + " | ".join(label(s, c) for s, c in cfgs) + " |")
    L.append("| --- | --- |" + " --- |" * len(cfgs))
    for m in mems:
        for w in wls:
            cells = []
            for s, c in cfgs:
                r = pick(rows, s, c, m, w)
                cells.append(fmt_int(r["qps"]) if r and r["status"] == "ok" else ("failed" if r else "-"))
            L.append("| %s | %s | %s |" % (m, w, " | ".join(cells)))
    # the seeds' comparisons (SPEC section 4) plus the peer, inside this run
    comps = [
        ("strata BPE on / off (doublewrite)", ("strata", "dw-bpe"), ("strata", "dw")),
        ("strata atomic / doublewrite (BPE off)", ("strata", "atomic"), ("strata", "dw")),
        ("strata atomic + BPE / doublewrite, no BPE", ("strata", "atomic-bpe"), ("strata", "dw")),
        ("MariaDB doublewrite OFF / ON", ("mariadb", "dw-off"), ("mariadb", "dw-on")),
        ("strata atomic + BPE / MariaDB doublewrite ON", ("strata", "atomic-bpe"), ("mariadb", "dw-on")),
    ]
    have = set(cfgs)
    comps = [x for x in comps if x[1] in have and x[2] in have]
    if comps:
        L.append("")
        L.append("QPS ratios inside this run:")
        L.append("")
        L.append("| comparison | " + " | ".join("%s %s" % (m, w) for m in mems for w in wls) + " |")
        L.append("| --- |" + " --- |" * (len(mems) * len(wls)))
        for name, a, b in comps:
            cells = [ratio(pick(rows, *a, m, w), pick(rows, *b, m, w)) for m in mems for w in wls]
            L.append("| %s | %s |" % (name, " | ".join(cells)))
    L.append("")
    L.append("Every run (volume IOPS and MiB/s: the database process's I/O on the data volume, from "
             "its blkio cgroup, averaged over the measured interval; hit ratios: deltas over the "
             "measured interval):")
    L.append("")
    L.append("| system | config | memory | workload | QPS | TPS | p95 ms | p99 ms | errors | "
             "vol read IOPS | vol write IOPS | vol read MiB/s | vol write MiB/s | pool hit | BPE hit |")
    L.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for m in mems:
        for w in wls:
            for s, c in cfgs:
                r = pick(rows, s, c, m, w)
                if not r:
                    continue
                L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    s, c, m, w, fmt_int(r["qps"]), fmt_int(r["tps"]), r["p95_ms"] or "-",
                    r["p99_ms"] or "-",
                    (r["errors"] or "0") if r["status"] == "ok" else r["status"],
                    fmt_int(r["vol_read_iops"]), fmt_int(r["vol_write_iops"]),
                    fmt_f(r["vol_read_mibs"], 1), fmt_f(r["vol_write_mibs"], 1),
                    fmt_f(r["pool_hit_ratio"], 3), fmt_f(r["bpe_hit_ratio"], 3)))
    L += limits(rows, mems, wls, cfgs)
    return "\n".join(L) + "\n"


def ceiling_row(rows, s, c, w):
    """The --ceiling run (data in memory) of configuration c and workload w."""
    for r in rows:
        if r["system"] == s and r["config"] == c + "-mem" and r["workload"] == w and r["status"] == "ok":
            return r
    return None


def limits(rows, mems, wls, cfgs):
    """Each run against its computed limit: the volume's write and read ceilings
    (IOPS cap / I/Os per transaction) and the CPU ceiling (the same workload
    with the data in memory, bench/run --ceiling)."""
    L = ["", "Write-back and limits (per transaction over the measured interval; write/read I/Os from the "
         "blkio cgroup, flushes included; dirty pages as % of the pool, sampled each second: "
         "min/avg/max and every ~4 s; ceilings in TPS: IOPS cap / I/Os per transaction, and the "
         "--ceiling run with the data in memory; the run's TPS as % of the lowest):", "",
         "| system | config | memory | workload | TPS | page writes / txn | urgent pages | log syncs / txn | "
         "write I/Os / txn | read I/Os / txn | dirty % | dirty % over time | write IOPS / cap | "
         "write ceiling | read ceiling | CPU ceiling | % of limit |",
         "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    n = 0
    for m in mems:
        for w in wls:
            for s, c in cfgs:
                r = pick(rows, s, c, m, w)
                if not r or r["status"] != "ok" or c.endswith("-mem"):
                    continue
                cap = num(r, "iops_cap")
                tps = num(r, "tps")
                ceil = {}
                for k, col in (("write", "write_ios_txn"), ("read", "read_ios_txn")):
                    v = num(r, col)
                    if cap and v:
                        ceil[k] = cap / v
                cr = ceiling_row(rows, s, c, w)
                if cr and num(cr, "tps"):
                    ceil["cpu"] = num(cr, "tps")
                lim = min(ceil.values()) if ceil else None
                use = num(r, "vol_write_iops")
                L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    s, c, m, w, fmt_int(tps), r.get("page_writes_txn") or "-", r.get("urgent_pages") or "-",
                    r.get("log_syncs_txn") or "-", r.get("write_ios_txn") or "-", r.get("read_ios_txn") or "-",
                    r.get("dirty_pct") or "-", r.get("dirty_series") or "-",
                    ("%s / %s (%.0f%%)" % (fmt_int(use), fmt_int(cap), 100 * use / cap)) if use is not None and cap else "-",
                    fmt_int(ceil.get("write")), fmt_int(ceil.get("read")), fmt_int(ceil.get("cpu")),
                    ("%.0f%% of %s" % (100 * tps / lim, {v: k for k, v in ceil.items()}[lim])) if lim and tps else "-"))
                n += 1
    return L if n else []


def gnuplot(script, cwd):
    p = subprocess.run(["gnuplot"], input=script, text=True, cwd=cwd,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        sys.stderr.write("gnuplot failed:\n" + p.stdout)
        return False
    return True


def q(s):
    return s.replace('"', "'")


def charts(rows, meta, outdir, logdir):
    """QPS grouped bars (one panel per memory size) and p95-over-time lines."""
    mems, wls, cfgs = ordered(rows)
    made = []
    if not mems or not cfgs:
        return made
    title = meta.get("title", "bench/run")
    # --- QPS bars
    for m in mems:
        with open(os.path.join(outdir, "qps-%s.dat" % m), "w") as f:
            f.write("workload " + " ".join('"%s"' % label(s, c) for s, c in cfgs) + "\n")
            for w in wls:
                vals = []
                for s, c in cfgs:
                    r = pick(rows, s, c, m, w)
                    vals.append(r["qps"] if r and r["qps"] and r["status"] == "ok" else "0")
                f.write('"%s" %s\n' % (w, " ".join(vals)))
    n = len(mems)
    width = max(900, 240 + 90 * len(wls) * len(cfgs) // 2)
    sc = []
    sc.append('set terminal pngcairo noenhanced size %d,%d font "sans,10"' % (width, 380 * n + 40))
    sc.append('set output "bench-qps.png"')
    sc.append("set multiplot layout %d,1 title \"%s\"" % (n, q(title)))
    sc.append("set style data histogram")
    sc.append("set style histogram clustered gap 1")
    sc.append("set style fill solid 0.85 border -1")
    sc.append("set boxwidth 0.9")
    sc.append("set ylabel \"QPS\"")
    sc.append("set yrange [0:*]")
    sc.append("set grid ytics")
    sc.append("set key outside right top vertical")
    sc.append("set format y \"%.0f\"")
    for m in mems:
        sc.append("set title \"buffer pool %s\"" % m)
        sc.append("plot for [i=2:%d] \"qps-%s.dat\" using i:xtic(1) title columnheader(i)" % (
            len(cfgs) + 1, m))
    sc.append("unset multiplot")
    if gnuplot("\n".join(sc) + "\n", outdir):
        made.append("bench-qps.png")
    # --- p95 per second over one run per configuration
    m = mems[0]
    w = "oltp_read_write" if "oltp_read_write" in wls else wls[-1]
    series = []
    for s, c in cfgs:
        r = pick(rows, s, c, m, w)
        if not r or not r["log"]:
            continue
        iv = parse_sysbench(os.path.join(logdir, r["log"]))["intervals"]
        if not iv:
            continue
        fn = "lat-%s-%s.dat" % (s, c)
        with open(os.path.join(outdir, fn), "w") as f:
            for t, qps, p95 in iv:
                f.write("%d %.0f %.2f\n" % (t, qps, p95))
        series.append((fn, label(s, c)))
    if series:
        sc = ['set terminal pngcairo noenhanced size 1000,480 font "sans,10"',
              'set output "bench-latency.png"',
              "set title \"%s: p95 latency per second, %s, buffer pool %s\"" % (q(title), w, m),
              "set xlabel \"seconds into the measured run\"",
              "set ylabel \"p95 latency (ms, log scale)\"",
              "set logscale y", "set grid", "set key outside right top vertical"]
        sc.append("plot " + ", ".join('"%s" using 1:3 with linespoints pt 7 ps 0.5 lw 1.5 title "%s"' % (fn, t)
                                      for fn, t in series))
        if gnuplot("\n".join(sc) + "\n", outdir):
            made.append("bench-latency.png")
    return made


BEGIN = "<!-- bench/run: begin (generated by bench/run; edits inside are overwritten) -->"
END = "<!-- bench/run: end -->"


def docs_section(md, meta, pngs):
    L = [BEGIN, "", "## Matrix: strata vs MariaDB 10.11 on a throttled cloud volume (issue 6)", ""]
    if meta.get("profile") == "smoke":
        L.append("**Smoke run** (`--profile smoke`: a check of the harness with a tiny data set "
                 "and short runs; not a result to compare systems by).")
        L.append("")
    L.append("Machine: %s. %s." % (meta.get("machine", "?"), meta.get("date", "?")))
    L.append("strata at commit %s; %s; %s." % (meta.get("strata_commit", "?"), meta.get("mariadb", "?"),
                                              meta.get("sysbench", "?")))
    L.append("")
    L.append("Command:")
    L.append("")
    L.append("    " + meta.get("command", "bench/run"))
    L.append("    # = " + meta.get("expanded", ""))
    L.append("")
    L.append(meta.get("setup", ""))
    L.append("")
    L.append(md)
    for p in pngs:
        L.append("![%s](%s)" % (p, p))
        L.append("")
    L.append(END)
    return "\n".join(L) + "\n"


def cmd_render(argv):
    csv_path, meta_path, outdir = argv[:3]
    docs = None
    if len(argv) >= 5 and argv[3] == "--docs":
        docs = argv[4]
    meta = {}
    for line in open(meta_path):
        if "=" in line:
            k, v = line.rstrip("\n").split("=", 1)
            meta[k] = v.replace("\\n", "\n")
    rows = load(csv_path)
    md = markdown(rows, meta)
    os.makedirs(outdir, exist_ok=True)
    pngs = charts(rows, meta, outdir, os.path.join(os.path.dirname(csv_path), "logs"))
    section = docs_section(md, meta, pngs)
    with open(os.path.join(outdir, "results.md"), "w") as f:
        f.write(section)
    print(os.path.join(outdir, "results.md"))
    if docs:
        for p in pngs:
            with open(os.path.join(outdir, p), "rb") as src, open(os.path.join(docs, p), "wb") as dst:
                dst.write(src.read())
        path = os.path.join(docs, "BENCHMARKS.md")
        text = open(path).read() if os.path.exists(path) else "# Benchmarks\n"
        if BEGIN in text and END in text:
            a = text.index(BEGIN)
            b = text.index(END) + len(END)
            if b < len(text) and text[b] == "\n":
                b += 1
            text = text[:a] + section + text[b:]
        else:
            text = text.rstrip("\n") + "\n\n" + section
        with open(path, "w") as f:
            f.write(text)
        print(path)


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        sys.exit(2)
    {"row": cmd_row, "render": cmd_render, "interval": cmd_interval}[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
