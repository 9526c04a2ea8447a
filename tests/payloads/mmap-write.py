#!/usr/bin/python3
"""Writes TEXT at the start of FILE through a MAP_SHARED mapping.

Usage: mmap-write.py FILE TEXT
"""
import mmap
import os
import sys

fd = os.open(sys.argv[1], os.O_RDWR)
m = mmap.mmap(fd, 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
m[:len(sys.argv[2])] = sys.argv[2].encode()
m.flush()
