"""The King James Bible as the bundled language models learn it: the text Debian's bible-kjv
prints (`bible -l4000 gen1:1-rev22:21`; packages bible-kjv and bible-kjv-text, installed by
tools/setup.sh), one verse per line without its number, chapter headings dropped, 4.0 MB of ASCII,
and the held-out split (every 20th block). Standard library and numpy only: no torch."""
import re
import subprocess
import sys

import numpy as np

BIBLE_COMMAND = ["bible", "-l4000", "gen1:1-rev22:21"]
HELD_OUT_EVERY = 20

LICENCE = ("Licence: the text is in the public domain (the package's copyright file: \"The "
           "copyright for the King James Version text of the Bible is expired\"); the `bible` "
           "program (GPL-2+) is only run, not shipped.")


def verses(program="kjv"):
    """The verses as bible-kjv prints them, without their numbers, in order (about 31,100).
    Exits with a message naming `program` when `bible` is missing or prints too little."""
    try:
        proc = subprocess.run(BIBLE_COMMAND, capture_output=True, stdin=subprocess.DEVNULL,
                              check=True)
    except FileNotFoundError:
        sys.exit(f"{program}: error: `bible` not found: install bible-kjv "
                 "(tools/setup.sh does), or give --text FILE")
    found = []
    for line in proc.stdout.decode("ascii").splitlines():
        m = re.match(r"^\s+\d+ (.+)$", line)
        if m:
            found.append(m.group(1).strip())
    if len(found) < 30000:
        sys.exit(f"{program}: error: `{' '.join(BIBLE_COMMAND)}` printed only "
                 f"{len(found)} verses")
    return found


def text_bytes(program="kjv"):
    """The verses one a line, as ASCII bytes."""
    return ("\n".join(verses(program)) + "\n").encode("ascii")


def source_description(size, unit="bytes of ASCII"):
    """The README's paragraph on where the text comes from."""
    return (f"The King James Version of the Bible (1611), from the Debian package "
            f"`bible-kjv-text` as its reader `bible-kjv` prints it (both installed by "
            f"`tools/setup.sh`): `{' '.join(BIBLE_COMMAND)}`, one verse per line without "
            f"its number, chapter headings dropped: {size:,} {unit}. {LICENCE}")


def split_blocks(data, block):
    """(train, validation) of a 1-D numpy array: every HELD_OUT_EVERY-th block of `block`
    elements held out, the others kept in order."""
    index = np.arange(len(data)) // block % HELD_OUT_EVERY == HELD_OUT_EVERY - 1
    return data[~index], data[index]
