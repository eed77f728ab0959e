//go:build hostse2e

package hosts_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/permopa/permopa/builtins/flagspec"
)

// Shell state between tool calls (docs/shell.md, "Shell state"): the
// analyser judges a state change (a variable, an alias, a shell option, a
// function) that nothing later in the same call sees as harmless, which is
// sound only while the host runs each call in a fresh shell. Two calls in
// one session: the first changes every kind of state and cds into sub/, the
// second prints what survived. The environment, aliases, options and
// functions must be gone; the working directory may carry over (Claude
// Code keeps it) but then the second call's payload must name it, so that
// permopa resolves the call's paths where they run. A host version that
// starts keeping shell state fails here.
const (
	shellStateSet = `printf 'shell:'; tr '\0' ' ' < /proc/$$/cmdline; echo; ` +
		`printf 'params:[%s][%s][%s][%s][%s]\n' "$0" "$#" "$1" "${BASH_SOURCE[0]}" "$*"; ` +
		`printf 'argv0:'; tr '\0' '\n' < /proc/$$/cmdline | head -n 1; printf 'argc:'; tr -cd '\0' < /proc/$$/cmdline | wc -c; ` +
		`shopt -q expand_aliases && echo before-expand_aliases=on || echo before-expand_aliases=off; ` +
		`export PERMOPA_PROBE=1; permopa_var=1; alias permopa_probe=true; shopt -s expand_aliases; set -o noglob; ` +
		`permopa_fn() { :; }; cd sub`
	shellStateShow = `echo "pwd=$PWD"; echo "env=${PERMOPA_PROBE-unset}"; echo "var=${permopa_var-unset}"; ` +
		`alias permopa_probe >/dev/null 2>&1 && echo alias=kept || echo alias=gone; ` +
		`shopt -q expand_aliases && echo expand_aliases=on || echo expand_aliases=off; ` +
		`case $- in *f*) echo noglob=on;; *) echo noglob=off;; esac; ` +
		`declare -F permopa_fn >/dev/null 2>&1 && echo fn=kept || echo fn=gone`
)

func TestShellStateBetweenCalls(t *testing.T) {
	type host struct {
		name, tool string
		args       func(cmd string) map[string]any
		// cwdKept: the host carries the working directory to the next call.
		cwdKept bool
		run     func(t *testing.T, bin string, r *hostRun) string
	}
	hosts := []host{
		{"claude", "Bash", func(c string) map[string]any { return map[string]any{"command": c, "description": "e2e"} }, true,
			func(t *testing.T, bin string, r *hostRun) string {
				r.mock.start(r.mock.anthropic())
				r.install("claude")
				out, err := run(t, 150*time.Second, r.proj, []string{
					"HOME=" + r.home, "ANTHROPIC_BASE_URL=" + r.mock.url, "ANTHROPIC_API_KEY=sk-ant-e2e",
					"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "IS_SANDBOX=1",
				}, bin, "-p", r.mock.marker, "--output-format", "json", "--permission-mode", "bypassPermissions")
				if err != nil {
					t.Logf("claude exited: %v", err)
				}
				return out
			}},
		{"codex", "exec_command", func(c string) map[string]any { return map[string]any{"cmd": c} }, false,
			func(t *testing.T, bin string, r *hostRun) string {
				r.mock.start(r.mock.openaiResponses())
				writeFile(t, filepath.Join(r.home, ".codex", "config.toml"), codexProvider(r.mock.url))
				r.install("codex", "--codex", bin)
				out, err := run(t, 150*time.Second, r.proj, []string{
					"HOME=" + r.home, "CODEX_HOME=" + filepath.Join(r.home, ".codex"), "PERMOPA_E2E_KEY=dummy",
				}, bin, "exec", "--skip-git-repo-check", "-s", "danger-full-access", r.mock.marker)
				if err != nil {
					t.Logf("codex exited: %v", err)
				}
				return out
			}},
		{"gemini", "run_shell_command", func(c string) map[string]any { return map[string]any{"command": c} }, false,
			func(t *testing.T, bin string, r *hostRun) string {
				r.mock.start(r.mock.gemini())
				writeFile(t, filepath.Join(r.home, ".gemini", "settings.json"), geminiSettings)
				r.install("gemini")
				return geminiRun(t, bin, r, "--skip-trust", "--approval-mode", "yolo")
			}},
	}
	for _, h := range hosts {
		t.Run(h.name, func(t *testing.T) {
			t.Parallel()
			bin, _ := hostBinary(t, h.name)
			limit <- struct{}{}
			defer func() { <-limit }()
			r := newHostRun(t, h.name, scenario{name: "shell-state"}, h.tool, h.args(shellStateSet), h.args(shellStateShow))
			// Both calls are allowed by rule, so that they run in every host's mode.
			writeFile(t, filepath.Join(r.proj, ".permopa", "settings.yaml"), "permissions:\n  allow:\n    - \"Bash\"\n")
			r.trust()
			if err := os.MkdirAll(filepath.Join(r.proj, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			r.capture = filepath.Join(t.TempDir(), "payloads.jsonl")
			out := h.run(t, bin, r)
			res := r.mock.allResults()
			if len(res) != 2 {
				t.Fatalf("the host answered %d of the 2 calls\n--- host output:\n%s\n--- model API requests:\n%s", len(res), out, r.mock.log())
			}
			t.Logf("%s, first call:\n%s\nsecond call:\n%s", h.name, res[0], res[1])
			if !strings.Contains(res[0], "shell:") {
				t.Fatalf("the first call did not run: %s", res[0])
			}
			// The host's own script around the command runs in the same
			// shell after it (Gemini CLI's EXIT trap writes to
			// $_bgpids_file): a variable it reads must never be one a
			// read-only command may assign.
			wrapper, _, _ := strings.Cut(res[0][strings.Index(res[0], "shell:"):], "before-expand_aliases=")
			for _, m := range wrapperAssign.FindAllStringSubmatch(wrapper, -1) {
				if n := m[1]; !strings.HasPrefix(strings.ToLower(n), "permopa_") && flagspec.ShellLocalName(n) {
					t.Errorf("%s's shell wrapper uses the variable %s, which a read-only command may assign (flagspec.ShellLocalName):\n%s", h.name, n, res[0])
				}
			}
			// The hooks mark every Bash call positional_empty (docs/hosts.md,
			// "Shell state between calls"): the host runs bash -c COMMAND
			// with no words after it, so $1... $@ $* are empty, $# is 0 and
			// BASH_SOURCE is empty. $0 is the path the host started bash
			// with, which permopa leaves unknown; it must be that path.
			argv0 := lineValue(res[0], "argv0:")
			if !hasLine(res[0], "argc:3") {
				t.Errorf("%s ran its shell with other words than bash -c COMMAND (argc:3), which positional_empty assumes:\n%s", h.name, res[0])
			}
			if !strings.HasPrefix(argv0, "/") || filepath.Base(argv0) != "bash" {
				t.Errorf("%s ran the command with argv[0] %q, not an absolute path of bash:\n%s", h.name, argv0, res[0])
			}
			if want := "params:[" + argv0 + "][0][][][]"; !hasLine(res[0], want) {
				t.Errorf("%s: the command's $0 $# $1 ${BASH_SOURCE[0]} $* are not %q, which positional_empty assumes:\n%s", h.name, want, res[0])
			}
			before := "off"
			if hasLine(res[0], "before-expand_aliases=on") {
				before = "on"
			}
			for _, want := range []string{"env=unset", "var=unset", "alias=gone", "noglob=off", "fn=gone", "expand_aliases=" + before} {
				if !strings.Contains(res[1], want) {
					t.Errorf("%s kept shell state from one call to the next: the second call does not show %q:\n%s", h.name, want, res[1])
				}
			}
			ran := r.proj
			if h.cwdKept {
				ran = filepath.Join(r.proj, "sub")
			}
			if !hasLine(res[1], "pwd="+ran) {
				t.Errorf("%s: the second call ran in another directory than %s:\n%s", h.name, ran, res[1])
			}
			// What permopa was told: every payload of the second call names
			// the directory it ran in.
			seen := 0
			all := payloads(t, r.capture)
			for _, p := range all {
				if !strings.Contains(p.raw, "fn=gone") {
					continue
				}
				seen++
				if p.Cwd != ran {
					t.Errorf("%s: the second call ran in %s, its payload says cwd %q", h.name, ran, p.Cwd)
				}
			}
			if seen == 0 {
				t.Errorf("%s: no hook payload of the second call was captured (%d payloads: %.2000s)", h.name, len(all), fmt.Sprint(all))
			}
		})
	}
}

// wrapperAssign finds the assignments in a host's shell wrapper.
var wrapperAssign = regexp.MustCompile(`(?:^|[\s;&|(])([A-Za-z_][A-Za-z0-9_]*)=`)

type payload struct {
	Cwd string `json:"cwd"`
	raw string
}

// payloads reads the captured hook payloads (JSON objects one after the
// other, on one line or several).
func payloads(t *testing.T, file string) []payload {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("no hook payload captured: %v", err)
	}
	defer f.Close()
	var out []payload
	dec := json.NewDecoder(f)
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return out
		}
		var p payload
		if json.Unmarshal(raw, &p) == nil {
			p.raw = string(raw)
			out = append(out, p)
		}
	}
}

// lineValue is what follows prefix on the first line of text that starts
// with it (after the host's "Output: " label).
func lineValue(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimPrefix(strings.TrimSpace(l), "Output: ")
		if v, ok := strings.CutPrefix(l, prefix); ok {
			return v
		}
	}
	return ""
}

// hasLine reports whether text holds line, whole (after the host's
// "Output: " label).
func hasLine(text, line string) bool {
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l == line || l == "Output: "+line {
			return true
		}
	}
	return false
}

// The hooks tell permopa that the host runs each call in a shell of its
// own (input shell_per_call): a variable set at the end of the command is
// read-only, so Claude Code runs it in default mode without asking, and
// the same assignment followed by a program is asked (and, headless,
// refused).
func TestShellPerCallThroughTheHook(t *testing.T) {
	bin, _ := hostBinary(t, "claude")
	cases := []struct {
		name, command string
		ran           bool
	}{
		{"state-at-the-end", `ls >/dev/null; PERMOPA_STAMP=$(date +%s)`, true},
		{"state-then-program", `PERMOPA_STAMP=$(date +%s); ls`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			limit <- struct{}{}
			defer func() { <-limit }()
			sc := scenario{name: c.name, command: c.command}
			r := newHostRun(t, "claude", sc, "Bash", map[string]any{"command": c.command + "; echo PERMOPA-RAN", "description": "e2e"})
			r.mock.start(r.mock.anthropic())
			r.install("claude")
			out, err := run(t, 150*time.Second, r.proj, []string{
				"HOME=" + r.home, "ANTHROPIC_BASE_URL=" + r.mock.url, "ANTHROPIC_API_KEY=sk-ant-e2e",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "IS_SANDBOX=1",
			}, bin, "-p", r.mock.marker, "--output-format", "json", "--permission-mode", "default")
			if err != nil {
				t.Logf("claude exited: %v", err)
			}
			res, _ := r.mock.toolResult()
			if ran := strings.Contains(res, "PERMOPA-RAN"); ran != c.ran {
				t.Errorf("%s: ran = %v, want %v; tool result %q\n%s", c.command, ran, c.ran, res, out)
			}
		})
	}
}

// Gemini CLI's shell wrapper writes `jobs -p` to $_bgpids_file in an EXIT
// trap of the command's own shell: a command that points the variable at
// a project file would truncate it after permopa judged it read-only. It
// is not read-only, so in yolo mode permopa's ASK stops it and the file
// keeps its content.
func TestGeminiWrapperVariable(t *testing.T) {
	bin, _ := hostBinary(t, "gemini")
	sc := scenario{name: "wrapper-variable", command: "_bgpids_file=victim/keep.txt"}
	r := newHostRun(t, "gemini", sc, "run_shell_command", map[string]any{"command": sc.command})
	r.mock.start(r.mock.gemini())
	writeFile(t, filepath.Join(r.home, ".gemini", "settings.json"), geminiSettings)
	r.install("gemini")
	out := geminiRun(t, bin, r, "--skip-trust", "--approval-mode", "yolo")
	if b, err := os.ReadFile(filepath.Join(r.proj, "victim", "keep.txt")); err != nil || string(b) != "precious\n" {
		t.Errorf("victim/keep.txt was overwritten through Gemini CLI's $_bgpids_file (now %q, %v):\n%s", b, err, out)
	}
	if !r.mock.toolCalled() {
		t.Errorf("the model's call was never made:\n%s", out)
	}
}

// Codex keeps a call's process when it has not finished (exec_command
// with a terminal returns a session), and write_stdin sends it text
// later. That text reaches only the stdin of the command permopa judged:
// a read-only command reads it as data (read x; echo "$x"), and a command
// that would run its stdin (bash, sh, eval "$x") is not read-only. The
// test records whether Codex's PreToolUse hook sees write_stdin and that
// the process is the first call's.
func TestCodexWriteStdin(t *testing.T) {
	bin, _ := hostBinary(t, "codex")
	first := map[string]any{"cmd": `read -r x; echo "got:$x"; export PERMOPA_PROBE=1; echo "env=$PERMOPA_PROBE"`, "tty": true, "yield_time_ms": 2000}
	second := map[string]any{"__tool": "write_stdin", "session_id": "$SESSION", "chars": "hello\n", "yield_time_ms": 3000}
	r := newHostRun(t, "codex", scenario{name: "write-stdin"}, "exec_command", first, second)
	writeFile(t, filepath.Join(r.proj, ".permopa", "settings.yaml"), "permissions:\n  allow:\n    - \"Bash\"\n")
	r.trust()
	r.capture = filepath.Join(t.TempDir(), "payloads.jsonl")
	r.mock.start(r.mock.openaiResponses())
	writeFile(t, filepath.Join(r.home, ".codex", "config.toml"), codexProvider(r.mock.url))
	r.install("codex", "--codex", bin)
	out, err := run(t, 150*time.Second, r.proj, []string{
		"HOME=" + r.home, "CODEX_HOME=" + filepath.Join(r.home, ".codex"), "PERMOPA_E2E_KEY=dummy",
	}, bin, "exec", "--skip-git-repo-check", "-s", "danger-full-access", r.mock.marker)
	if err != nil {
		t.Logf("codex exited: %v", err)
	}
	res := r.mock.allResults()
	t.Logf("results: %q", res)
	var names []string
	for _, p := range payloads(t, r.capture) {
		var v struct {
			Tool string `json:"tool_name"`
		}
		json.Unmarshal([]byte(p.raw), &v)
		names = append(names, v.Tool)
	}
	t.Logf("hook payloads' tool names: %q", names)
	if len(res) != 2 {
		t.Fatalf("Codex answered %d of the 2 calls:\n%s\n%s", len(res), out, r.mock.log())
	}
	if !strings.Contains(res[0], "session ID") {
		t.Fatalf("exec_command finished at once, no session to write to: %q", res[0])
	}
	if !strings.Contains(res[1], "got:hello") || !strings.Contains(res[1], "env=1") {
		t.Errorf("write_stdin's text did not reach the first call's process as its data: %q", res[1])
	}
}

// Codex's hook payload for exec_command names only the command (no tty,
// no session: captured with 0.171), so permopa cannot tell a call that
// keeps a terminal the agent types into later (write_stdin, which no hook
// sees) and marks every Codex Bash call stdin_terminal (docs/hosts.md,
// "Shell state between calls"). A pager is then not read-only: under the
// default settings `less README.md` is blocked, and `!touch pwned` typed
// into it afterwards finds no pager to run it. The third call records the
// pager variables Codex sets (PAGER=cat GIT_PAGER=cat TERM=dumb with 0.171).
func TestCodexWriteStdinPager(t *testing.T) {
	bin, _ := hostBinary(t, "codex")
	first := map[string]any{"cmd": "less README.md", "tty": true, "yield_time_ms": 2000}
	second := map[string]any{"__tool": "write_stdin", "session_id": "$SESSION", "chars": "!touch pwned\n", "yield_time_ms": 2000}
	// The hook marks Codex's inputs git_pager_cat (git then keeps no
	// terminal use, docs/hosts.md): Codex must run the command with it.
	third := map[string]any{"cmd": "printenv GIT_PAGER", "tty": true, "yield_time_ms": 2000}
	r := newHostRun(t, "codex", scenario{name: "write-stdin-pager"}, "exec_command", first, second, third)
	r.capture = filepath.Join(t.TempDir(), "payloads.jsonl")
	r.mock.start(r.mock.openaiResponses())
	writeFile(t, filepath.Join(r.home, ".codex", "config.toml"), codexProvider(r.mock.url))
	r.install("codex", "--codex", bin)
	out, err := run(t, 150*time.Second, r.proj, []string{
		"HOME=" + r.home, "CODEX_HOME=" + filepath.Join(r.home, ".codex"), "PERMOPA_E2E_KEY=dummy",
	}, bin, "exec", "--skip-git-repo-check", "-s", "danger-full-access", r.mock.marker)
	if err != nil {
		t.Logf("codex exited: %v", err)
	}
	res := r.mock.allResults()
	t.Logf("results: %q", res)
	for _, p := range payloads(t, r.capture) {
		t.Logf("payload: %s", p.raw)
	}
	if _, err := os.Stat(filepath.Join(r.proj, "pwned")); err == nil {
		t.Fatalf("text typed into less after the call ran a command (pwned exists):\n%s\n%s", out, r.mock.log())
	}
	// Before the mark, less was read-only and ran (and pwned was made).
	if len(res) == 0 || !strings.Contains(res[0], "blocked by PreToolUse hook: permopa") {
		t.Fatalf("less README.md under Codex was not blocked: %q\n%s", res, out)
	}
	if len(res) < 3 || !regexp.MustCompile(`(?m)^cat\r?$`).MatchString(res[2]) {
		t.Fatalf("printenv GIT_PAGER under Codex did not print cat (the hook's git_pager_cat no longer holds): %q\n%s", res, out)
	}
}
