package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/permopa/permopa/builtins/flagspec"
)

// Shell-state builtins in a shell per call, run by the real bash in each
// host's shape (docs/hosts.md, "Shell state between calls"): Claude Code's
// `source SNAPSHOT && eval 'CMD' && pwd -P >| FILE`, with a snapshot that
// turns on expand_aliases and history (the snapshot records the user's
// `set -o` options), Gemini CLI's `( trap 'jobs -p > "$_bgpids_file"' EXIT;
// CMD )` after its `shopt -u` guard, and Codex's plain `bash -c CMD`, with
// HISTFILE set in the environment. A case judged read-only must show no
// effect under strace (no file written, renamed or removed but the hosts'
// own, no program run but those it names); a hostile one must be judged not
// read-only, and where it is run, show its effect (MARK created or the
// history file written), so that the refusal is known to be needed.
type shellStateCase struct {
	class, cmd string
	readOnly   bool
	runs       []string // programs a read-only case runs (execve)
	env        []string // extra environment (hostile values)
	bites      bool     // hostile: running it writes or runs something
	shapes     []string // the hosts' shapes it is run in (none: all three)
	quick      bool     // run in the quick suite (one case per class)
}

var shellStateCases = []shellStateCase{
	// shopt at the end: any bash 5.2 option but expand_aliases
	// (TestShellStateShoptOptionsAtTheEnd runs every one).
	{class: "shopt", cmd: `shopt -u compat31`, readOnly: true, quick: true},
	{class: "shopt", cmd: `shopt -s cdable_vars`, readOnly: true},
	{class: "shopt", cmd: `shopt -s promptvars`, readOnly: true},
	{class: "shopt", cmd: `ls; shopt -s extdebug sourcepath`, readOnly: true, runs: []string{"ls"}},
	{class: "shopt", cmd: `shopt -s expand_aliases; alias jobs='touch MARK'`, bites: true, shapes: []string{"gemini"}, quick: true},
	{class: "shopt", cmd: "shopt -s expand_aliases\nalias ls='touch MARK'\nls", bites: true, shapes: []string{"codex"}},
	{class: "shopt", cmd: `shopt -s expand_aliases`},
	{class: "shopt", cmd: `shopt -s cdable_vars; cd h`},
	{class: "shopt", cmd: `shopt -s compat31; ls`},
	{class: "shopt", cmd: `shopt -s globstar; cat **/*.txt`},
	{class: "shopt", cmd: `shopt -s nullglob; ls *.txt`},
	{class: "shopt", cmd: `shopt -s patsub_replacement; x=a; echo "${x/a/&}"`},
	{class: "shopt", cmd: `shopt -s no_such_option`},
	{class: "shopt", cmd: `shopt -s $x`},
	{class: "shopt", cmd: `shopt -so history`},
	// history: -c anywhere, -a with no other history, -r/-n at the end.
	{class: "history", cmd: `history -c`, readOnly: true, quick: true},
	{class: "history", cmd: `history -c; ls`, readOnly: true, runs: []string{"ls"}},
	{class: "history", cmd: `history -a`, readOnly: true},
	{class: "history", cmd: `history -r`, readOnly: true},
	{class: "history", cmd: `history -n`, readOnly: true},
	{class: "history", cmd: `history -r "$HISTFILE"`, readOnly: true},
	// With history on (Claude Code's snapshot) and HISTFILE set, bash
	// appends at exit the lines history -s added.
	{class: "history", cmd: `history -s 'echo x'`, bites: true, shapes: []string{"claude"}, quick: true},
	{class: "history", cmd: `history -s x; history -a`, bites: true},
	{class: "history", cmd: `set -o history; history -s x; history -a`, bites: true},
	{class: "history", cmd: `history -w /tmp/x`},
	{class: "history", cmd: `history -w`, bites: true},
	{class: "history", cmd: `history -a; history -s x`},
	{class: "history", cmd: `history -r $HISTFILE`},
	{class: "history", cmd: `history -r "$f"`},
	{class: "history", cmd: `history -r ~/.ssh/id_rsa`},
	{class: "history", cmd: `history -r; ls`},
	{class: "history", cmd: `history -d 1`},
	{class: "history", cmd: `history -p '!!'`},
	// set: a literal start other than - or + makes the rest positional.
	{class: "set", cmd: "set SCRIPTPATH=`dirname \"$SCRIPT\"`", readOnly: true, runs: []string{"dirname"}, quick: true},
	{class: "set", cmd: `set -- $x`, readOnly: true},
	{class: "set", cmd: `set a$x -x`, readOnly: true},
	{class: "set", cmd: `set $x`},
	{class: "set", cmd: `set -$x`},
	{class: "set", cmd: `set *$x`},
	{class: "set", cmd: `set "$x" a`},
	{class: "set", cmd: `set -o $x`},
	{class: "set", cmd: `set x=$(touch MARK)`, bites: true},
	// alias at the end: Claude Code's pwd -P is parsed before it exists.
	{class: "alias", cmd: `alias pwd='touch MARK'`, readOnly: true, quick: true},
	{class: "alias", cmd: `alias pwd='echo -n $(/bin/pwd) | pbcopy'`, readOnly: true},
	{class: "alias", cmd: `alias jobs='touch MARK'`},
	{class: "alias", cmd: "alias pwd='touch MARK'\npwd", shapes: []string{"claude"}, bites: true},
	{class: "alias", cmd: `alias ls='touch MARK'; eval ls`},
	// unset of names known only at run time: an array element's subscript
	// runs its substitutions (PIPESTATUS is an array in every bash).
	{class: "unset", cmd: `unset $(echo "$a" | /usr/bin/cut -d = -f 1)`, env: []string{"a=PIPESTATUS[$(touch${IFS}MARK)]"}, bites: true, shapes: []string{"codex"}, quick: true},
	{class: "unset", cmd: "unset `printenv |grep G4 |awk 'BEGIN{FS=\"=\";}{printf(\"%s \",$1);}'`", env: []string{"X=a\nPIPESTATUS[$(touch${IFS}MARKG4)]=1"}, bites: true, shapes: []string{"codex"}},
	{class: "unset", cmd: `unset array[$RANDOM%4]`},
	{class: "unset", cmd: `unset $x; ls`},
	{class: "unset", cmd: `unset _bgpids_file`},
	{class: "unset", cmd: `unset -f $x`},
	// Prompts at the end: never shown by a shell that is not interactive.
	{class: "prompt", cmd: `PROMPT_COMMAND='touch MARK'`, readOnly: true, quick: true},
	{class: "prompt", cmd: `PROMPT_COMMAND='echo "$(date +"%Y/%m/%d (%H:%M)") $(history 1 |cut -c 7-)" >> MARK'`, readOnly: true},
	{class: "prompt", cmd: `PS1='$(touch MARK)'`, readOnly: true},
	{class: "prompt", cmd: `ls; PS0='$(touch MARK)' PS2='$(touch MARK)'`, readOnly: true, runs: []string{"ls"}},
	// PS4 is expanded when set -x traces Claude Code's pwd -P.
	{class: "prompt", cmd: `set -x; PS4='$(touch MARK)'`, bites: true, shapes: []string{"claude"}},
	{class: "prompt", cmd: `PROMPT_COMMAND='touch MARK'; ls`},
	{class: "prompt", cmd: `PROMPT_COMMAND='touch MARK'; bash -i`},
	{class: "prompt", cmd: `PROMPT_COMMAND='touch MARK' bash -i`},
	{class: "prompt", cmd: `export PROMPT_COMMAND='touch MARK'`},
	{class: "prompt", cmd: `PROMPT_COMMAND="$(touch MARK)"`, bites: true},
	{class: "prompt", cmd: `read -e -p "${myprompt@P}"`, env: []string{"myprompt=$(touch MARK)"}, bites: true, shapes: []string{"codex"}},
	// jobs -x runs its command.
	{class: "jobs", cmd: `jobs -x echo %1`, readOnly: true, quick: true},
	{class: "jobs", cmd: `jobs -x touch MARK`, bites: true},
	{class: "jobs", cmd: `jobs -x rm x`},
	{class: "jobs", cmd: `jobs -x cat %1`},
	{class: "jobs", cmd: `jobs -x %1`},
}

// TestShellStateBuiltinsJudged: the analyser's verdict on every case, in a
// shell per call and (never read-only) without it.
func TestShellStateBuiltinsJudged(t *testing.T) {
	t.Parallel()
	for _, c := range shellStateCases {
		a := analyze(c.cmd, shellPerCallOpts)
		if a.ReadOnly != c.readOnly {
			t.Errorf("%s: %q: read-only %v in a shell per call, want %v:\n%s", c.class, c.cmd, a.ReadOnly, c.readOnly, brief(a))
		}
		if !c.readOnly {
			if a := analyze(c.cmd, conformanceOpts); a.ReadOnly {
				t.Errorf("%s: %q: read-only without ShellPerCall:\n%s", c.class, c.cmd, brief(a))
			}
		}
	}
	// history -r names the history file it reads.
	a := analyze(`history -r "$HISTFILE"`, shellPerCallOpts)
	if want := filepath.Join(shellPerCallOpts.Home, ".history"); !strings.Contains(strings.Join(a.Reads, " "), want) {
		t.Errorf("history -r \"$HISTFILE\" does not name the read of %s: %v", want, a.Reads)
	}
}

// TestShellStateBuiltinsAgainstBash runs the quick cases in the real bash,
// a read-only one in Claude Code's shape only (the rest, and every shape:
// TestShellStateBuiltinsAgainstBashAll, -tags slow).
func TestShellStateBuiltinsAgainstBash(t *testing.T) {
	t.Parallel()
	for _, c := range shellStateCases {
		if c.quick {
			if len(c.shapes) == 0 {
				c.shapes = []string{"claude"}
			}
			proveShellStateCase(t, c)
		}
	}
}

// hostShapes are the scripts each host runs a command in.
var hostShapes = map[string]func(dir, cmd string) string{
	"claude": func(dir, cmd string) string {
		return "source " + dir + "/snap.sh && eval " + shellQuote(cmd) + " && pwd -P >| " + dir + "/cwd"
	},
	"gemini": func(dir, cmd string) string {
		return "shopt -u promptvars nullglob extglob nocaseglob dotglob; _bgpids_file=" + dir + "/bgpids.tmp\n(\n  trap 'jobs -p > \"$_bgpids_file\"' EXIT\n" +
			cmd + "\n)\n__code=$?\nexit $__code"
	},
	"codex": func(_, cmd string) string { return cmd },
}

var (
	traceWriteOpen = regexp.MustCompile(`open(?:at)?\(.*"([^"]*)", [^)]*O_(?:WRONLY|RDWR|CREAT|APPEND)`)
	traceChange    = regexp.MustCompile(`^(?:\d+ +)?(?:rename|renameat2?|unlink|unlinkat|chown|fchownat|mkdir|mkdirat|symlink|link|truncate)\("([^"]*)"`)
	traceExec      = regexp.MustCompile(`execve\("([^"]*)"`)
)

// proveShellStateCase runs c.cmd in each of its hosts' shapes under strace
// and checks what it did against what the analyser said.
func proveShellStateCase(t *testing.T, c shellStateCase) {
	t.Helper()
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	shapes := c.shapes
	if len(shapes) == 0 {
		shapes = []string{"claude", "gemini", "codex"}
	}
	for _, shape := range shapes {
		dir := t.TempDir()
		for _, sub := range []string{"h", "w"} {
			if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		os.WriteFile(filepath.Join(dir, "hf"), []byte("echo old\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "snap.sh"), []byte("unalias -a 2>/dev/null || true\nshopt -s expand_aliases\nset -o history\n"), 0o644)
		cmd := strings.ReplaceAll(c.cmd, "MARK", dir+"/w/MARK")
		trace := filepath.Join(dir, "trace")
		run := exec.Command(d.strace, "-f", "-e", "trace=%file,%process,write", "-o", trace, d.bash, "-c", hostShapes[shape](dir, cmd))
		run.Dir = filepath.Join(dir, "w")
		run.Env = []string{"HOME=" + dir + "/h", "PATH=/usr/bin:/bin", "HISTFILE=" + dir + "/hf"}
		for _, e := range c.env {
			run.Env = append(run.Env, strings.ReplaceAll(e, "MARK", dir+"/w/MARK"))
		}
		run.Stdin = nil
		out, _ := run.CombinedOutput()
		b, err := os.ReadFile(trace)
		if err != nil {
			t.Fatalf("%s %q: no trace: %v %s", shape, c.cmd, err, out)
		}
		var effects []string
		own := map[string]bool{"/dev/null": true, "/dev/tty": true, dir + "/cwd": true, dir + "/bgpids.tmp": true}
		for _, l := range strings.Split(string(b), "\n") {
			if m := traceWriteOpen.FindStringSubmatch(l); m != nil && !own[m[1]] && !strings.Contains(l, "= -1 ") {
				effects = append(effects, l)
			}
			if m := traceChange.FindStringSubmatch(l); m != nil && !strings.Contains(l, "= -1 ") {
				effects = append(effects, l)
			}
			if m := traceExec.FindStringSubmatch(l); m != nil && m[1] != d.bash && !strings.Contains(l, "= -1 ") {
				name := filepath.Base(m[1])
				ok := false
				for _, r := range c.runs {
					ok = ok || r == name
				}
				if !ok {
					effects = append(effects, l)
				}
			}
		}
		_, markErr := os.Stat(filepath.Join(dir, "w", "MARK"))
		if markErr == nil {
			effects = append(effects, "MARK created")
		}
		if _, err := os.Stat(filepath.Join(dir, "w", "MARKG4")); err == nil {
			effects = append(effects, "MARKG4 created")
		}
		switch {
		case c.readOnly && len(effects) > 0:
			t.Errorf("%s: %q (judged read-only) in %s's shell: %s\n%s", c.class, c.cmd, shape, strings.Join(effects, "\n"), out)
		case c.bites && len(effects) == 0:
			t.Errorf("%s: %q (hostile) in %s's shell did nothing: the case proves no refusal\n%s", c.class, c.cmd, shape, out)
		}
	}
}

// TestShellStateShoptOptionsAtTheEnd: every option the analyser accepts at
// the end of the shell is judged read-only there both ways, and not before
// a later command (the slow test runs each in the hosts' shapes).
func TestShellStateShoptOptionsAtTheEnd(t *testing.T) {
	t.Parallel()
	n := 0
	for _, o := range shoptOptionsForTest() {
		for _, f := range []string{"-s", "-u"} {
			c := "shopt " + f + " " + o
			ro := analyze(c, shellPerCallOpts).ReadOnly
			if ro != flagspec.ShoptOptionAtEnd(o) {
				t.Errorf("%q: read-only %v at the end, want %v", c, ro, !ro)
			}
			if ro {
				n++
			}
		}
	}
	if n < 100 {
		t.Errorf("only %d shopt changes read-only at the end", n)
	}
}

// shoptOptionsForTest are bash 5.2's options (shopt's listing) and one it
// does not have.
func shoptOptionsForTest() []string {
	return strings.Fields(`autocd assoc_expand_once cdable_vars cdspell checkhash checkjobs checkwinsize cmdhist
		compat31 compat32 compat40 compat41 compat42 compat43 compat44 complete_fullquote direxpand dirspell
		dotglob execfail expand_aliases extdebug extglob extquote failglob force_fignore globasciiranges
		globskipdots globstar gnu_errfmt histappend histreedit histverify hostcomplete huponexit
		inherit_errexit interactive_comments lastpipe lithist localvar_inherit localvar_unset login_shell
		mailwarn no_empty_cmd_completion nocaseglob nocasematch noexpand_translation nullglob
		patsub_replacement progcomp progcomp_alias promptvars restricted_shell shift_verbose sourcepath
		varredir_close xpg_echo array_expand_once`)
}
