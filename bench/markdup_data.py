"""Adds simulated PCR and optical duplicates to the SAM stream of a benchmark BAM (read on
stdin, written to stdout; a second, smaller stream of every tenth fragment to the file
named by --small), for bench/make-markdup-data.sh.

Every fragment is renamed after the Illumina pattern instrument:run:flowcell:lane:tile:x:y.
Fragment ids sit on a grid of 250-pixel cells, one id per cell and tile (256 tiles, ids
dealt to the tiles in turn), jittered by under 100 pixels, so two different ids never come
within Picard's optical distance (100) of each other. A share of the fragments (--share)
get 1 to 3 copies: the same alignments and tags (mates, positions, CIGARs), each copy with
its own id (a new cell, so another tile) or, for the optical share, the original's tile
and a place 5 to 60 pixels away; in some copies one base or a run of qualities changes, so
that the copy may become the best-scored read of its set. The fragments go to two read
groups of one sample (two libraries); a few copies go to the other library, where they
are not duplicates. Flags 0x400 are cleared. Everything is drawn from the fragment's
number and --seed, so the output is the same on every run.

Input names must be mason's (<prefix>.<number>, as in ../shared/data/make-bench-bams.sh).
"""

import argparse
import math
import random
import sys

TILES = 256  # 4 lanes x 64 tiles
CELL = 250  # pixels between grid cells
MAX_COPIES = 3
BASES = "ACGT"


def tile_name(slot):
    """The lane and tile number of tile slot 0..255 (lanes 1-4, tiles 1101-1132 and 2101-2132)."""
    lane, within = divmod(slot, 64)
    surface, swath_tile = divmod(within, 32)
    return lane + 1, (surface + 1) * 1000 + 100 + swath_tile + 1


def place(ident, per_row, rng):
    """The lane, tile, x and y of fragment id `ident` (its cell, jittered)."""
    slot, cell = ident % TILES, ident // TILES
    row, col = divmod(cell, per_row)
    lane, tile = tile_name(slot)
    return lane, tile, 1000 + col * CELL + rng.randrange(100), 1000 + row * CELL + rng.randrange(100)


def read_name(lane, tile, x, y):
    return f"SF0001:7:HSFBENCHX:{lane}:{tile}:{x}:{y}"


class Fragment:
    """What is drawn once per fragment number: its name, library and its copies."""

    def __init__(self, number, args, per_row):
        rng = random.Random(args.seed * 1_000_003 + number)
        self.library = rng.randrange(2)
        lane, tile, x, y = place(number * (MAX_COPIES + 1), per_row, rng)
        self.name = read_name(lane, tile, x, y)
        self.copies = []  # (name, library, seed of its changes)
        if rng.random() < args.share:
            count = rng.choices((1, 2, 3), weights=(75, 17, 8))[0]
            for c in range(1, count + 1):
                if rng.random() < args.optical:
                    name = read_name(lane, tile, x + rng.choice((-1, 1)) * rng.randrange(5, 61),
                                     y + rng.choice((-1, 1)) * rng.randrange(5, 61))
                else:
                    name = read_name(*place(number * (MAX_COPIES + 1) + c, per_row, rng))
                library = 1 - self.library if rng.random() < args.other_library else self.library
                self.copies.append((name, library, rng.getrandbits(32)))


def change(fields, seed, flag):
    """Changes, in a copy's record, one base (a quarter of copies) and/or a run of
    qualities (another quarter: raised or lowered by up to 5)."""
    rng = random.Random(seed * 4 + (flag & 0xC0))
    seq, qual = fields[9], fields[10]
    if seq == "*" or qual == "*":
        return
    draw = rng.random()
    if draw < 0.25:
        i = rng.randrange(len(seq))
        old = seq[i].upper()
        fields[9] = seq[:i] + rng.choice([b for b in BASES if b != old]) + seq[i + 1:]
    elif draw < 0.5:
        start = rng.randrange(len(qual))
        end = min(len(qual), start + rng.randrange(5, 40))
        delta = rng.choice((-5, -3, -1, 1, 3, 5))
        run = "".join(chr(min(74, max(35, ord(q) + delta))) for q in qual[start:end])
        fields[10] = qual[:start] + run + qual[end:]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pairs", type=int, required=True, help="fragment numbers run below this (sizes the grid of names)")
    p.add_argument("--seed", type=int, default=60)
    p.add_argument("--share", type=float, default=0.14, help="fragments that get copies")
    p.add_argument("--optical", type=float, default=0.25, help="copies placed as optical duplicates")
    p.add_argument("--other-library", type=float, default=0.05, help="copies put in the other library")
    p.add_argument("--sample", default="normal")
    p.add_argument("--small", help="also write every tenth fragment (with its copies) here")
    args = p.parse_args()
    per_row = max(1, math.ceil(math.sqrt(args.pairs * (MAX_COPIES + 1) / TILES)))
    small = open(args.small, "w") if args.small else None
    outs = [sys.stdout] + ([small] if small else [])
    groups = [f"{args.sample}.lib{i + 1}" for i in range(2)]
    header_done = False
    # A fragment's draws depend on its number alone: kept from its first record to its
    # second (a fragment with more records draws them again).
    cache = {}
    out = sys.stdout
    for line in sys.stdin:
        if line.startswith("@"):
            if not line.startswith("@RG"):
                for o in outs:
                    o.write(line)
            continue
        if not header_done:
            header_done = True
            for o in outs:
                for g in groups:
                    o.write(f"@RG\tID:{g}\tSM:{args.sample}\tLB:{g}\tPL:ILLUMINA\n")
                o.write(f"@PG\tID:markdup-data\tPN:make-markdup-data.sh\tCL:markdup_data.py --seed {args.seed}"
                        f" --share {args.share} --optical {args.optical}\n")
        fields = line.rstrip("\n").split("\t")
        prefix, _, number = fields[0].rpartition(".")
        if not prefix or not number.isdigit():
            sys.exit(f"markdup_data.py: read name {fields[0]!r} is not <prefix>.<number> (mason's)")
        number = int(number)
        frag = cache.pop(number, None)
        if frag is None:
            frag = cache[number] = Fragment(number, args, per_row)
        flag = int(fields[1])
        fields[1] = str(flag & ~0x400)
        tags = [t for t in fields[11:] if not t.startswith("RG:Z:")]
        targets = [out] + ([small] if small and number % 10 == 0 else [])
        fields[0] = frag.name
        fields[11:] = tags + [f"RG:Z:{groups[frag.library]}"]
        text = "\t".join(fields) + "\n"
        for copy_name, library, seed in frag.copies:
            copy = list(fields)
            copy[0] = copy_name
            copy[-1] = f"RG:Z:{groups[library]}"
            change(copy, seed, flag)
            text += "\t".join(copy) + "\n"
        for o in targets:
            o.write(text)
    if small:
        small.close()


if __name__ == "__main__":
    main()
