#!/bin/sh
# write-attack.sh DIR: every way of changing DIR (which holds a file
# "victim" and a directory "sub" with a file "keep"), each reported as
# NAME=ok or NAME=fail, after a first line "started".
cd "$1" || exit 9
echo started
try() {
	n=$1
	shift
	if "$@" 2>/dev/null; then echo "$n=ok"; else echo "$n=fail"; fi
}
try overwrite sh -c "echo changed >victim"
try append sh -c "echo more >>victim"
try truncate truncate -s 0 victim
try chmod chmod 0600 victim
try touch touch -d 2001-01-01 victim
try create sh -c "echo new >new"
try mkdir mkdir newdir
try symlink ln -s / link
try hardlink ln victim hardlink
try remove rm -f sub/keep
try rename mv victim renamed
