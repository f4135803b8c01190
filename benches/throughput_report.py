#!/usr/bin/env python3
"""Prints benches/throughput.sh's tables and targets from its results.

    throughput_report.py RESULTS WORK_DIR CORES LOAD_AT_START COMMAND

RESULTS has a line a run: `build|command|input|wall s|CPU s|peak KiB`, build being `after`
(this build), `before` (--baseline) or `-` (jq, cat, the peers). Each command's best wall time
and best CPU time over its runs are kept, and its largest peak. "x jq" is jq's time over the
command's (above 1: faster than jq), of wall time (what a user waits; scribe may use a second
core) and of CPU time (which a machine shared with other work disturbs less).
"""
import datetime
import os
import sys

REAL = ["stream", "session"]
GENERATED = ["gen-stream", "gen-session"]
SCRIBE = ["jsonl", "events", "html", "md", "text", "jsonl --stable", "html --stable"]
PEERS = ["claude-code-log (html)", "claude-code-transcripts json (html)"]


def load(path):
    """{(build, command, input): [wall, cpu, kib]}: the best times and the largest peak."""
    best = {}
    for line in open(path):
        build, name, inp, wall, cpu, kib = line.rstrip("\n").split("|")
        b = best.setdefault((build, name, inp), [float(wall), float(cpu), int(kib)])
        b[0], b[1] = min(b[0], float(wall)), min(b[1], float(cpu))
        b[2] = max(b[2], int(kib))
    return best


class Results:
    """The kept figures, and the ratios the tables and targets are made of."""

    def __init__(self, best):
        self.best = best

    def get(self, build, name, inp):
        return self.best.get((build, name, inp))

    def x_jq(self, build, name, inp, which):
        """jq's time over the command's: which is 0 (wall) or 1 (CPU)."""
        jq, cmd = self.get("-", "jq -c .", inp), self.get(build, name, inp)
        if not jq or not cmd:
            return None
        return jq[which] / max(cmd[which], 0.0005)

    def over(self, build, name, base, inp, which):
        """The command's time over another's (--stable over a plain run)."""
        cmd, ref = self.get(build, name, inp), self.get(build, base, inp)
        if not cmd or not ref:
            return None
        return cmd[which] / max(ref[which], 0.0005)


def cell(value, fmt):
    return "" if value is None else format(value, fmt)


def headline(r, build, title):
    """One table: the real inputs' times, ratios and peaks, the generated inputs' ratios (the
    baselines and peers in this build's table only)."""
    print(f"\n### {title}\n")
    head = "| command |"
    rule = "|---|"
    for inp in REAL:
        head += f" {inp}: wall s | x jq (wall) | x jq (CPU) | peak MB |"
        rule += "---:|---:|---:|---:|"
    for inp in GENERATED:
        head += f" {inp}: x jq (wall) | x jq (CPU) |"
        rule += "---:|---:|"
    print(head)
    print(rule)
    rows = [(build, f"scribe --to {f}") for f in SCRIBE]
    if build == "after":
        shared = ["cat", "jq -c .", "parse floor (serde, IgnoredAny)"]
        rows = [("-", n) for n in shared] + rows + [("-", n) for n in PEERS]
    for b, name in rows:
        if not any(r.get(b, name, inp) for inp in REAL + GENERATED):
            continue
        line = f"| {name} |"
        for inp in REAL:
            got = r.get(b, name, inp)
            line += (f" {got[0]:.3f} | {cell(r.x_jq(b, name, inp, 0), '.2f')} "
                     f"| {cell(r.x_jq(b, name, inp, 1), '.2f')} | {got[2] / 1024:.1f} |"
                     if got else " | | | |")
        for inp in GENERATED:
            line += (f" {cell(r.x_jq(b, name, inp, 0), '.2f')} "
                     f"| {cell(r.x_jq(b, name, inp, 1), '.2f')} |")
        print(line)


def guard(r):
    """Before (--baseline) against after, command by command: ratios to jq and peaks."""
    print("\n### Before (--baseline) and after\n")
    print("| input | command | x jq before (wall) | after | change | x jq before (CPU) | after "
          "| change | peak MB before | after | |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for inp in REAL + GENERATED:
        for f in SCRIBE:
            name = f"scribe --to {f}"
            before, after = r.get("before", name, inp), r.get("after", name, inp)
            if not before or not after:
                continue
            line, flags = f"| {inp} | {name} |", []
            for which in (0, 1):
                xb, xa = r.x_jq("before", name, inp, which), r.x_jq("after", name, inp, which)
                change = xa / xb - 1
                if change < -0.10:
                    flags.append("more than 10 % worse (" + ("wall" if which == 0 else "CPU") + ")")
                line += f" {xb:.2f} | {xa:.2f} | {change:+.1%} |"
            if after[2] > before[2]:
                flags.append("peak higher")
            line += f" {before[2] / 1024:.1f} | {after[2] / 1024:.1f} | {'; '.join(flags)} |"
            print(line)


def verdict(value, ok):
    return "n/a" if value is None else ("met" if ok(value) else "NOT met")


def targets(r):
    """The targets on the real inputs, each as a ratio of this run, wall and CPU."""
    print("\n### Targets (real content, this build)\n")
    print("| target | input | wall | CPU | |")
    print("|---|---|---:|---:|---|")
    for inp in REAL:
        w, c = (r.x_jq("after", "scribe --to jsonl", inp, k) for k in (0, 1))
        print(f"| `--to jsonl` at least 8x `jq -c .` | {inp} | {cell(w, '.2f')} "
              f"| {cell(c, '.2f')} | {verdict(w, lambda v: v >= 8)} (wall), "
              f"{verdict(c, lambda v: v >= 8)} (CPU) |")
    html = r.get("after", "scribe --to html", "session")
    peers = [p for p in (r.get("-", n, "session") for n in PEERS) if p]
    if html and peers:
        w = min(p[0] for p in peers) / html[0]
        c = min(p[1] for p in peers) / html[1]
        print(f"| `--to html` at least 20x faster than the faster peer | session | {w:.1f} "
              f"| {c:.1f} | {verdict(w, lambda v: v >= 20)} (wall), "
              f"{verdict(c, lambda v: v >= 20)} (CPU) |")
    for f in ["jsonl", "html"]:
        for inp in REAL:
            w, c = (r.over("after", f"scribe --to {f} --stable", f"scribe --to {f}", inp, k)
                    for k in (0, 1))
            print(f"| `--stable --to {f}` at most 1.5x `--to {f}` | {inp} | {cell(w, '.2f')} "
                  f"| {cell(c, '.2f')} | {verdict(w, lambda v: v <= 1.5)} (wall), "
                  f"{verdict(c, lambda v: v <= 1.5)} (CPU) |")
    for f in SCRIBE:
        got = r.get("after", f"scribe --to {f}", "calls")
        if got:
            print(f"| 100 000 calls in one message under 2 s, `--to {f}` | calls | "
                  f"{got[0]:.3f} s | {got[1]:.3f} s | {verdict(got[0], lambda v: v < 2)} "
                  f"(wall), {verdict(got[1], lambda v: v < 2)} (CPU); peak "
                  f"{got[2] / 1024:.0f} MB |")


def main():
    results, work, cores, load_start, command = sys.argv[1:6]
    r = Results(load(results))
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                  if l.startswith("model name")), "?")
    load_end = open("/proc/loadavg").read().split()[0]
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"`{command}`, {now}, {model}, {cores} cores, load average {load_start} at the start "
          f"and {load_end} at the end")
    sizes = ", ".join(f"{inp} {os.path.getsize(os.path.join(work, inp + '.jsonl')) / 1e6:.0f} MB"
                      for inp in REAL + GENERATED + ["calls"])
    print(f"\nInputs: {sizes} (calls: one message of 100 000 tool calls)")
    headline(r, "after", "This build")
    if any(k[0] == "before" for k in r.best):
        headline(r, "before", "Before (--baseline)")
        guard(r)
    targets(r)


if __name__ == "__main__":
    main()
