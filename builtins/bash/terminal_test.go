package bash

import (
	"strings"
	"testing"
)

// A command that may keep a terminal the agent types into after the call
// (Options.StdinTerminal, set by the Codex hook) is not read-only when a
// program of it reads keys or commands from that terminal: less's !cmd
// runs what the agent types later (docs/shell.md, "Terminal input").
// Without the mark, the answers are today's.
func TestStdinTerminal(t *testing.T) {
	t.Parallel()
	tty := Options{Cwd: conformanceOpts.Cwd, Home: conformanceOpts.Home, ShellPerCall: true, StdinTerminal: true}
	plain := Options{Cwd: conformanceOpts.Cwd, Home: conformanceOpts.Home, ShellPerCall: true}
	interactive := []string{
		"less README.md", "more README.md", "cat README.md | less", "grep x README.md | less -R",
		"man ls", "info coreutils", "git log", "git log --oneline -5", "git show HEAD", "git diff",
		"git blame README.md", "git -C . log", "top", "top -n 1", "bat README.md",
		"journalctl -u ssh", "systemctl status ssh", "ls && less README.md", "(less README.md)",
		"echo $(git log -1)", "timeout 5 less README.md", "env less README.md", "nice git log",
		"find . -name '*.md' -exec less {} +",
	}
	for _, c := range interactive {
		a := Analyze(c, tty)
		if a.ReadOnly {
			t.Errorf("%q with stdin_terminal: read-only:\n%s", c, brief(a))
		} else if !strings.Contains(strings.Join(a.Reasons, "; ")+strings.Join(a.NotReadOnly, "; "), "terminal") {
			t.Errorf("%q with stdin_terminal: not read-only, but not for its terminal: %v %v", c, a.Reasons, a.NotReadOnly)
		}
		if c == "find . -name '*.md' -exec less {} +" || c == "env less README.md" {
			continue // judged however the vocabulary judges them without a terminal
		}
		if a := Analyze(c, plain); !a.ReadOnly {
			t.Errorf("%q without stdin_terminal: not read-only (today's answer changed): %v", c, a.Reasons)
		}
	}
	// Options that turn the terminal off, and programs that read no keys.
	for _, c := range []string{"git --no-pager log", "git -P log -5", "git --no-pager diff | cat", "top -b -n 1",
		"man -k printf", "bat -P README.md", "journalctl --no-pager -u ssh", "systemctl --no-pager status ssh",
		"cat README.md", "grep -r x .", "read -r x; echo \"$x\"", "head README.md", "wc -l README.md"} {
		if a := Analyze(c, tty); !a.ReadOnly {
			t.Errorf("%q with stdin_terminal: not read-only:\n%s", c, brief(a))
		}
	}
	// A pager variable set by the command is a command the program runs:
	// not read-only with or without the mark (PAGER=cat does not turn off
	// git's core.pager, and the analysis does not read values of them).
	for _, c := range []string{"PAGER=cat git log", "GIT_PAGER=cat git log", "GIT_PAGER=less git log",
		"export GIT_PAGER=cat; git log", "MANPAGER=cat man ls", "LESS=-X less README.md"} {
		for _, o := range []Options{tty, plain} {
			if a := Analyze(c, o); a.ReadOnly {
				t.Errorf("%q (stdin_terminal %v): read-only", c, o.StdinTerminal)
			}
		}
	}
}

// A host that runs every command with GIT_PAGER=cat (Options.GitPagerCat,
// set by the Codex hook: Codex 0.171 does, e2e/hosts
// TestCodexWriteStdinPager) keeps git from paging: GIT_PAGER beats
// core.pager and pager.<cmd>, so git is read-only under the terminal mark
// again, unless the command changes that environment or git runs another
// program (docs/shell.md, "Terminal input").
func TestGitPagerCat(t *testing.T) {
	t.Parallel()
	cat := Options{Cwd: conformanceOpts.Cwd, Home: conformanceOpts.Home, ShellPerCall: true, StdinTerminal: true, GitPagerCat: true}
	for _, c := range []string{"git log", "git log --oneline -5", "git show HEAD", "git diff", "git blame README.md",
		"git -C . log", "echo $(git log -1)", "timeout 5 git log", "nice git log", "git help -a", "TERM=xterm git log",
		"git log | cat", "git status && git diff"} {
		if a := Analyze(c, cat); !a.ReadOnly {
			t.Errorf("%q with git_pager_cat: not read-only:\n%s", c, brief(a))
		}
	}
	// Only git: other pagers keep their terminal use.
	for _, c := range []string{"less README.md", "man ls", "git log | less", "top", "journalctl -u ssh", "git log && less README.md"} {
		if a := Analyze(c, cat); a.ReadOnly {
			t.Errorf("%q with git_pager_cat: read-only", c)
		}
	}
	// The command changes the pager environment, forces or configures a
	// pager, or git runs another program (man, grep -O's pager).
	hostile := []string{
		"GIT_PAGER=less git log", "export GIT_PAGER=less; git log", "unset GIT_PAGER; git log",
		"unset -v GIT_PAGER; git log", "GIT_PAGER=less; git log", "declare -x GIT_PAGER=less; git log",
		"read GIT_PAGER; git log", "printf -v GIT_PAGER less; git log", "PAGER=less git log",
		"env -u GIT_PAGER git log", "env -i git log", "env git log", "env GIT_PAGER=less git log",
		"exec -c git log", "sudo git log", "git -c core.pager=less log", "git -c pager.log=less log",
		"git --config-env=core.pager=X log", "git -p log", "git --paginate log", "git help log",
		"git grep -Oless x", "git grep -O x", "git grep --open-files-in-pager=less x",
	}
	for _, c := range hostile {
		if a := Analyze(c, cat); a.ReadOnly {
			t.Errorf("%q with git_pager_cat: read-only", c)
		}
	}
	// Without the terminal mark the option changes nothing; without the
	// option git stays not read-only under the mark.
	tty := cat
	tty.GitPagerCat = false
	if a := Analyze("git log", tty); a.ReadOnly {
		t.Errorf("git log with stdin_terminal and no git_pager_cat: read-only")
	}
	plain := cat
	plain.StdinTerminal = false
	for _, c := range append([]string{"git log"}, hostile...) {
		want := Analyze(c, Options{Cwd: cat.Cwd, Home: cat.Home, ShellPerCall: true}).ReadOnly
		if a := Analyze(c, plain); a.ReadOnly != want {
			t.Errorf("%q with git_pager_cat alone: read-only %v, want %v", c, a.ReadOnly, want)
		}
	}
}
