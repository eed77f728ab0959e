package main_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/permopa/permopa/adapter/opaplugin"
)

// claudeMatcherDoc is the matcher `permopa install claude` writes.
const claudeMatcherDoc = "Bash|Read|Write|Edit|MultiEdit|NotebookEdit|Glob|Grep|WebFetch|mcp__.*"

// docCommands are the hook commands of docs/hosts.md's snippets, from its
// JSON blocks (hooks.<event>[].hooks[].command) and TOML blocks (command = "...").
func docCommands(t *testing.T) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile("../../docs/hosts.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```(json|toml)\n(.*?)```").FindAllStringSubmatch(string(raw), -1)
	out := map[string][]string{}
	for _, b := range blocks {
		var cmds []string
		if b[1] == "json" {
			var doc struct {
				Hooks map[string][]struct {
					Matcher string
					Hooks   []struct{ Type, Command, URL, OnFailure string }
				}
			}
			if err := json.Unmarshal([]byte(b[2]), &doc); err != nil {
				t.Fatalf("docs/hosts.md: a JSON snippet does not parse: %v\n%s", err, b[2])
			}
			for event, groups := range doc.Hooks {
				for _, g := range groups {
					for _, h := range g.Hooks {
						if h.Type == "http" {
							// Claude Code's http hooks: permopa's hook route,
							// blocking when it fails (TestInstallClaudeHTTPHook
							// runs them against a server).
							if event == "BeforeTool" || !strings.HasSuffix(h.URL, opaplugin.HookClaudePath) || h.OnFailure != "block" || g.Matcher != claudeMatcherDoc {
								t.Errorf("%s: http hook %+v is not the one `permopa install claude --server` writes", event, h)
							}
							continue
						}
						if h.Type != "command" || h.Command == "" {
							t.Errorf("%s: hook %+v is not a command", event, h)
						}
						cmds = append(cmds, h.Command)
					}
				}
			}
		} else {
			for _, m := range regexp.MustCompile(`(?m)^command = "(.*)"$`).FindAllStringSubmatch(b[2], -1) {
				cmds = append(cmds, m[1])
			}
		}
		for _, c := range cmds {
			f := strings.Fields(c)
			if len(f) < 3 || f[0] != "permopa" || f[1] != "hook" {
				t.Errorf("snippet command %q is not `permopa hook <host>`", c)
				continue
			}
			out[f[2]] = append(out[f[2]], c)
		}
	}
	return out
}

// Every install snippet of docs/hosts.md, run as the host would run it (a
// shell command with permopa on PATH), answers recorded payloads of its host.
func TestHostsDocSnippets(t *testing.T) {
	t.Parallel()
	cmds := docCommands(t)
	for _, host := range []string{"claude", "codex", "gemini"} {
		if len(cmds[host]) == 0 {
			t.Fatalf("docs/hosts.md has no snippet for %s", host)
		}
	}
	cwd, home := hookWorkspace(t)
	type probe struct {
		file  string
		exit  int
		check string // substring of stdout+stderr
	}
	probes := map[string][]probe{
		"claude": {
			{"claude/pretooluse-bash-readonly.json", 0, `"permissionDecision":"allow"`},
			{"claude/pretooluse-bash-compound-deny.json", 0, `"permissionDecision":"deny"`},
			{"claude/permissionrequest-bash-deny.json", 0, `"behavior":"deny"`},
			{"claude/empty.txt", 0, `"permissionDecision":"deny"`},
		},
		"codex": {
			{"codex/pretooluse-bash-readonly.json", 0, ""},
			{"codex/pretooluse-bash-ask.json", 2, "--destination local 'Bash(npm install:*)'"},
			{"codex/permissionrequest-bash-deny.json", 0, `"behavior":"deny"`},
			{"codex/malformed.txt", 2, "not JSON"},
		},
		"gemini": {
			{"gemini/beforetool-shell-readonly.json", 0, `"decision":"allow"`},
			{"gemini/beforetool-shell-deny.json", 0, `"decision":"deny"`},
			{"gemini/empty.txt", 0, `"decision":"deny"`},
		},
	}
	path := filepath.Dir(permopaBin) + string(os.PathListSeparator) + os.Getenv("PATH")
	// q: in the quick suite, the first snippet of each hook binary (of all
	// hosts) runs as a process through the shell, the others in process
	// (issue 25, the quick suite: the shell and `|| exit 2` are one
	// mechanism, the hosts' payloads are judged in process).
	var q quickFirst
	for host, hostCmds := range cmds {
		seen := map[string]bool{}
		var distinct []string
		for _, command := range hostCmds {
			if !seen[command] {
				seen[command] = true
				distinct = append(distinct, command)
			}
		}
		hostProbes := sample(probes[host])
		for n, command := range distinct {
			// Without -tags slow, the sample's probes are dealt out among
			// the host's snippets in turn, every snippet running one at
			// least; with it, every snippet runs every probe. Each probe
			// is a process through the shell, but for the second and later
			// probes of a snippet in the quick suite: `permopa hook ...`
			// run in process, its failure made exit 2 as the snippet's
			// `|| exit 2` does, and so is the first probe of a snippet whose
			// binary an earlier snippet ran as a process already (q above).
			first := true
			for j, p := range hostProbes {
				mine := j%len(distinct) == n || n >= len(hostProbes) && j == n%len(hostProbes)
				if !slowTests && !mine {
					continue
				}
				raw, err := os.ReadFile(filepath.Join("../../adapter/testdata/hooks", p.file))
				if err != nil {
					t.Fatal(err)
				}
				stdin := strings.ReplaceAll(string(raw), "{{CWD}}", cwd)
				hookLine, orExit2 := strings.CutSuffix(command, " || exit 2")
				process := first && q.take("shell "+strings.Fields(hookLine)[0])
				first = false
				if !process && orExit2 {
					stdout, stderr, code := permopaAt(t, "", stdin, []string{"HOME=" + home, "PATH=" + path}, strings.Fields(hookLine)[1:]...)
					if code != 0 {
						code = 2
					}
					if code != p.exit || !strings.Contains(stdout+stderr, p.check) {
						t.Errorf("%q < %s in process: exit %d stdout %q stderr %q; want exit %d and %q", command, p.file, code, stdout, stderr, p.exit, p.check)
					}
					continue
				}
				cmd := exec.Command("sh", "-c", command)
				cmd.Stdin = strings.NewReader(stdin)
				cmd.Env = append(os.Environ(), "HOME="+home, "PATH="+path)
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				err = cmd.Run()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				if code != p.exit || !strings.Contains(out.String()+errb.String(), p.check) {
					t.Errorf("%q < %s: exit %d stdout %q stderr %q; want exit %d and %q", command, p.file, code, out.String(), errb.String(), p.exit, p.check)
				}
			}
		}
	}
}

// The snippets' matchers select every tool of the recorded payloads of
// their host, so the tested payloads are the ones the host sends to permopa.
func TestHostsDocMatchers(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../docs/hosts.md")
	if err != nil {
		t.Fatal(err)
	}
	// Each matcher line is followed (within its group) by its command.
	re := regexp.MustCompile(`(?s)matcher"? ?[:=] "([^"]*)".*?permopa hook (\w+)`)
	found := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(string(raw), -1) {
		matcher, host := m[1], m[2]
		found[host] = true
		rx, err := regexp.Compile("^(?:" + matcher + ")$")
		if err != nil {
			t.Fatalf("%s matcher %q: %v", host, matcher, err)
		}
		files, _ := filepath.Glob(filepath.Join("../../adapter/testdata/hooks", host, "*.json"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			var p struct {
				ToolName string `json:"tool_name"`
			}
			if err := json.Unmarshal(b, &p); err != nil {
				t.Fatal(err)
			}
			if !rx.MatchString(p.ToolName) {
				t.Errorf("%s matcher %q does not select %s (%s)", host, matcher, p.ToolName, filepath.Base(f))
			}
		}
	}
	for _, h := range []string{"claude", "codex", "gemini"} {
		if !found[h] {
			t.Errorf("no matcher found for %s", h)
		}
	}
}
