package flagspec

import (
	"strings"
	"testing"
)

// Verdict.Terminal: the programs that read keys or commands from their
// terminal when they have one (a pager, man, git's pager, top), and the
// options that turn it off (@m). Independent of ReadOnly; the analyser
// counts it only for a command that may keep a terminal the agent types
// into later (docs/shell.md, "Terminal input").
func TestTerminalUse(t *testing.T) {
	t.Parallel()
	reads := []string{
		"less README.md", "less -R +G log.txt", "more README.md", "zless a.gz", "zmore a.gz",
		"man ls", "man 5 passwd", "info coreutils", "bat README.md", "batcat -n x.go",
		"git log", "git show HEAD", "git diff", "git blame x.go", "git status", "git -C sub log",
		"git help log", "git --no-optional-locks log",
		"top", "top -n 1",
		"journalctl -u ssh", "systemctl status ssh", "hostnamectl status", "loginctl list-sessions",
		"dmesg -H", "dpkg -l", "dpkg-query -l", "gh pr view 1",
	}
	none := []string{
		"cat README.md", "grep -r x .", "ls -la", "head -5 x", "bc -l",
		"man -k printf", "man -f ls", "man -w ls", "bat -P README.md", "bat --no-paging x", "bat -pp x",
		"git --no-pager log", "git -P log", "git --no-pager -C sub diff",
		"top -b -n 1", "top -bn1", "top --batch-mode",
		"journalctl --no-pager -u ssh", "systemctl --no-pager status ssh", "systemctl status --no-pager ssh",
		"hostnamectl --no-pager status", "dmesg --nopager -H", "dpkg-query --no-pager -l",
	}
	for _, c := range reads {
		if v := Judge(strings.Fields(c)); v.Terminal == "" {
			t.Errorf("%q: no terminal use (read-only %v, %s)", c, v.ReadOnly, v.Reason)
		}
	}
	for _, c := range none {
		if v := Judge(strings.Fields(c)); v.Terminal != "" {
			t.Errorf("%q: terminal use %q", c, v.Terminal)
		}
	}
	// The mark says nothing of read-only: today's answers stand.
	for _, c := range []string{"less README.md", "man ls", "git log", "top -n 1"} {
		if v := Judge(strings.Fields(c)); !v.ReadOnly {
			t.Errorf("%q: not read-only (%s)", c, v.Reason)
		}
	}
}
