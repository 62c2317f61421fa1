#!/usr/bin/env python3
"""Old/new share of the floor per benchmark case, from scripts/gpu/compare.sh's tables.

Usage: compare_tables.py DIR   (DIR holds <bench>-old-<round>.txt and <bench>-new-<round>.txt)
Prints one table per bench: the median share of the read-only floor over the rounds, before and
after, and flags a case whose median after is below 97 % of its median before (the 3 % rule).
Reads the CUDA bench's column text (a "%floor" column) and the OpenCL and Vulkan benches'
Markdown tables (a "% of floor" or "share of floor" column); the case is every column before the
first number (in the CUDA text, the first decimal)."""
import glob, os, re, statistics, sys

NUMBER = re.compile(r"^-?[\d.]+(%|×|x)?$")
DECIMAL = re.compile(r"^-?\d+\.\d+$")


def rows_of_markdown(line, header):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if header is None or len(cells) != len(header) or set(line) <= set("|-: \n"):
        return None
    share = next((i for i, h in enumerate(header) if "floor" in h and ("%" in h or "share" in h)), None)
    if share is None or not cells[share].endswith("%"):
        return None
    first_number = next(i for i, c in enumerate(cells) if NUMBER.match(c) or i == share)
    return " / ".join(cells[:first_number]), float(cells[share].rstrip("%"))


def shares(path):
    """{case: share of the floor in %} of one bench output."""
    found, header = {}, None
    for line in open(path, encoding="utf-8", errors="replace"):
        if line.lstrip().startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            row = rows_of_markdown(line, header)
            if row:
                found[row[0]] = row[1]
            elif not set(line) <= set("|-: \n"):
                header = cells
            continue
        header = None
        tokens = line.split()
        percent = [i for i, t in enumerate(tokens) if re.match(r"^\d+%$", t)]
        if not percent or "%floor" in line or line.lstrip().startswith("-"):  # headers, list items
            continue
        # The case ends at the first decimal (every value column has one), so labels that hold
        # whole numbers ("256 EV bins -8:0:32 random") stay whole; else at the first number.
        first_number = next((i for i, t in enumerate(tokens) if DECIMAL.match(t)),
                            next(i for i, t in enumerate(tokens) if NUMBER.match(t)))
        if first_number == 0:
            continue
        found[" ".join(tokens[:first_number])] = float(tokens[percent[0]].rstrip("%"))
    return found


def main(folder):
    benches = sorted({os.path.basename(p).split("-old-")[0] for p in glob.glob(os.path.join(folder, "*-old-*.txt"))})
    flagged = 0
    for bench in benches:
        runs = {side: [shares(p) for p in sorted(glob.glob(os.path.join(folder, f"{bench}-{side}-*.txt")))]
                for side in ("old", "new")}
        print(f"\n## {bench}: median share of the floor, {len(runs['old'])} old / {len(runs['new'])} new rounds\n")
        print("| case | before % | after % | after / before | rounds before | rounds after |")
        print("|---|---:|---:|---:|---|---|")
        cases = [c for c in (runs["old"][0] if runs["old"] else {})]
        for case in cases:
            old = [r[case] for r in runs["old"] if case in r]
            new = [r[case] for r in runs["new"] if case in r]
            if not old or not new:
                continue
            o, n = statistics.median(old), statistics.median(new)
            mark = " **< 97 %**" if n < 0.97 * o else ""
            flagged += bool(mark)
            print(f"| {case} | {o:.0f} | {n:.0f} | {n / o:.2f}{mark} | {' '.join(f'{v:.0f}' for v in old)} "
                  f"| {' '.join(f'{v:.0f}' for v in new)} |")
    print(f"\n{flagged} case(s) below 97 % of their share before")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out/compare")
