// Package reportfile writes the --report-file durably and atomically
// (docs/behaviour.md §5.2, §5.3).
//
// Every write goes to a fresh temporary file `<file>.<pid>.<random>.tmp` in
// the target's directory, created with O_CREAT|O_EXCL (so a symlink planted
// at that name is never followed: O_EXCL fails on any existing name,
// symlink or not), and is then renamed over the target. A reader therefore
// sees either the previous report or the new one, never a torn file.
//
// When atomic replacement fails on the first write (a bind-mounted file:
// rename gives EBUSY; a directory the process may not write; a name too
// long for a temporary one), the Writer says so once (Options.Warn) and
// from then on rewrites the target in place, still refusing anything that
// is not a regular file. In place it never truncates first: it grows the
// file with spaces, writes the new report over the old one padded with
// spaces in one call, and only then shortens it, so between any two system
// calls — and after a disk-full error — the file holds the old or the new
// report as valid JSON (see writeInPlace for the one window left). When
// that fails too, Write returns an error and the caller must stop (exit 1)
// before the agent gets its next answer.
//
// New removes temporary files that killed writers left beside the target:
// exact temporary names whose pid is no running process.
//
// # Notes
//
//   - The target must be a regular file or not exist yet. /dev/null,
//     directories, FIFOs, sockets and devices are refused, and so is any
//     path on a kernel pseudo file system (/proc, /sys, …), whose "regular
//     files" are not files. A FIFO or device is never opened, so a check
//     cannot hang.
//   - Symlinks are followed once, when the Writer is created: the report is
//     written to the link's final target, and the link itself stays.
//   - No fsync by default: the contract is atomic replacement, which
//     survives the proxy being killed (the page cache belongs to the
//     kernel). Options.Sync adds an fsync before the rename for power-loss
//     durability, at a cost of milliseconds per write on ext4.
//   - Several proxies writing one file overwrite each other: the last
//     writer wins. Stale temporary files are recognised by pid in this
//     pid namespace: a live writer in another namespace (container) that
//     shares the directory can lose its temporary file, and then writes
//     that report in place.
package reportfile
