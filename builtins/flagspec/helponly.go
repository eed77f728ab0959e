package flagspec

// helpExits are programs the vocabulary never calls read-only (they write,
// remove or change files) whose only argument --help or --version prints
// and exits before they do anything: GNU coreutils handle both while
// parsing options, and BSD and busybox versions reject "--" as an illegal
// option or print their usage. Checked under strace with GNU coreutils 9.1
// (no file opened for writing, created, removed or changed; docs/shell.md,
// "The vocabulary: flag specs").
var helpExits = map[string]bool{
	"split": true, "csplit": true, "rm": true, "rmdir": true, "mkdir": true, "touch": true, "chmod": true,
	"chown": true, "chgrp": true, "cp": true, "mv": true, "ln": true, "truncate": true, "shred": true,
	"install": true, "mkfifo": true, "mknod": true, "unlink": true, "link": true, "tee": true, "dd": true,
}

// judgeHelpOnly judges "PROG --help" and "PROG --version" for the
// programs of helpExits: exactly one argument, written so.
func judgeHelpOnly(argv []string) (Verdict, bool) {
	if len(argv) != 2 || !helpExits[argv[0]] || argv[1] != "--help" && argv[1] != "--version" {
		return Verdict{}, false
	}
	return Verdict{Known: true, ReadOnly: true}, true
}
