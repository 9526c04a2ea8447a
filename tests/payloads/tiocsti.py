#!/usr/bin/python3
"""TIOCSTI on stdin, with the request plain and with its high bits set.

Prints "plain INJECTED" or "plain refused ERROR", then the same for
"high" (TIOCSTI | 0xffffffff << 32).
"""
import fcntl
import termios

for name, req in (("plain", termios.TIOCSTI),
                  ("high", termios.TIOCSTI | (0xffffffff << 32))):
    try:
        fcntl.ioctl(0, req, b"#")
        print(name, "INJECTED")
    except (OSError, OverflowError) as e:
        print(name, "refused", e)
