#!/usr/bin/python3
"""Write escape sequences a terminal acts on beyond its screen, between
plain markers, in one write, and then the same with each split across
writes.

usage: term-escapes.py [stdout|stderr]

To standard output (default) or standard error: "start|", a clipboard
write (OSC 52), "|osc52|", a DECRQSS query (DCS $ q m ST), "|decrqss|",
a title report request (CSI 21 t), "|title-report|", the same three as
8-bit C1 controls, "|c1|", a title set and red text (SGR), which a filter
must let through, and "|end" and a newline; then the whole line again,
written a byte at a time.
"""
import os
import sys
import time

LINE = (b"start|\x1b]52;c;c2JveC1jbGlwYm9hcmQ=\x07|osc52|"
        b"\x1bP$qm\x1b\\|decrqss|\x1b[21t|title-report|"
        b"\x9d52;c;eA==\x9c\x90$qm\x9c\x9b21t|c1|"
        b"\x1b]2;sbox-title\x07\x1b[31mred\x1b[0m|end\n")

fd = 2 if sys.argv[1:] == ["stderr"] else 1
os.write(fd, LINE)
for b in LINE:
    os.write(fd, bytes([b]))
    if b == 0x1b:
        time.sleep(0.001)
