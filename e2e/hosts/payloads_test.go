//go:build hostse2e

package hosts_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Host payloads read as the host reads them (issue 24, docs/hosts.md):
// the shapes of each host's tool calls that permopa must read exactly as
// the host does, sent by the mock model to the real CLI, with what happens
// under permopa's hook. Each Codex row also says what Codex itself does
// with the shape (a run without the hook), so that the table documents
// the host and a hostile shape is shown to be one Codex really applies.

// codexPatchModel is a model Codex's bundled catalog offers apply_patch to
// as a freeform (custom) tool, the form Codex's own models use. Codex
// 0.171 knows no other: a catalog entry with apply_patch_tool_type
// "function" is refused ("unknown variant `function`, expected
// `freeform`").
const codexPatchModel = "gpt-5.5"

// The initial contents of the files the patches touch.
const (
	readmeText = "a project\n"
	hostsText  = "127.0.0.1 localhost\n"
	victimText = "keep me\n"
)

// codexPatchRow is one apply_patch shape. In the patch, {{OUT}} is a
// directory outside the project that an Edit deny rule covers.
type codexPatchRow struct {
	name  string
	patch string
	// hostile are the files (relative to the project, or under {{OUT}})
	// the shape would change; with the hook none changes.
	hostile []string
	// hostApplies: without permopa's hook Codex changes every hostile
	// file (the shape is one Codex reads as the header it looks like);
	// false: Codex alone changes none (it refuses or cannot apply it).
	hostApplies bool
	// reason is a substring of what the model is told with the hook.
	reason string
}

// codexPatchRows: the shapes of Codex's own parser tests (padded markers
// and headers) and of issue 24, each hiding a hostile header behind a
// benign file the rules allow, so that a reading that misses the header
// allows the whole patch.
var codexPatchRows = []codexPatchRow{
	{
		name:        "space-indented add of a git hook",
		patch:       "*** Begin Patch\n*** Add File: notes/ok.txt\n+ok\n   *** Add File: .git/hooks/pre-commit\n+#!/bin/sh\n+touch pwned\n*** End Patch\n",
		hostile:     []string{".git/hooks/pre-commit"},
		hostApplies: true,
		reason:      "no rule can approve",
	},
	{
		name:        "tab-indented update outside the project",
		patch:       "*** Begin Patch\n*** Add File: notes/ok.txt\n+ok\n\t*** Update File: {{OUT}}/hosts\n@@\n-127.0.0.1 localhost\n+6.6.6.6 localhost\n*** End Patch\n",
		hostile:     []string{"{{OUT}}/hosts"},
		hostApplies: true,
		reason:      "Edit(//",
	},
	{
		name:        "indented delete of permopa's settings",
		patch:       "*** Begin Patch\n*** Add File: notes/ok.txt\n+ok\n  *** Delete File: .permopa/settings.yaml\n*** End Patch\n",
		hostile:     []string{".permopa/settings.yaml"},
		hostApplies: true,
		reason:      "no rule can approve",
	},
	{
		name:        "padded patch markers (Codex's fixtures 018 and 020)",
		patch:       " *** Begin Patch \n*** Add File: notes/ok.txt\n+ok\n*** Delete File: {{OUT}}/victim.txt\n *** End Patch \n",
		hostile:     []string{"{{OUT}}/victim.txt"},
		hostApplies: true,
		reason:      "Edit(//",
	},
	{
		name:        "CRLF lines, tab-indented delete",
		patch:       "*** Begin Patch\r\n*** Add File: notes/ok.txt\r\n+ok\r\n\t*** Delete File: {{OUT}}/victim.txt\r\n*** End Patch\r\n",
		hostile:     []string{"{{OUT}}/victim.txt"},
		hostApplies: true,
		reason:      "Edit(//",
	},
	{
		name:        "header indented with a no-break space",
		patch:       "*** Begin Patch\n*** Add File: notes/ok.txt\n+ok\n\u00a0*** Delete File: {{OUT}}/victim.txt\n*** End Patch\n",
		hostile:     []string{"{{OUT}}/victim.txt"},
		hostApplies: true,
		reason:      "Edit(//",
	},
	{
		name:        "header with trailing white space",
		patch:       "*** Begin Patch\n*** Add File: notes/ok.txt\n+ok\n*** Delete File: {{OUT}}/victim.txt \t\n*** End Patch\n",
		hostile:     []string{"{{OUT}}/victim.txt"},
		hostApplies: true,
		reason:      "Edit(//",
	},
	{
		name:        "heredoc-wrapped patch",
		patch:       "<<'EOF'\n*** Begin Patch\n*** Add File: notes/ok.txt\n+ok\n  *** Add File: .git/hooks/post-checkout\n+#!/bin/sh\n*** End Patch\nEOF\n",
		hostile:     []string{".git/hooks/post-checkout"},
		hostApplies: true,
		reason:      "no rule can approve",
	},
	{
		name:        "move to outside the project",
		patch:       "*** Begin Patch\n*** Update File: README.md\n*** Move to: {{OUT}}/moved.sh\n@@\n-a project\n+echo pwned\n*** End Patch\n",
		hostile:     []string{"README.md", "{{OUT}}/moved.sh"},
		hostApplies: true,
		reason:      "Edit(//",
	},
	{
		name:        "tab-indented move to outside the project",
		patch:       "*** Begin Patch\n*** Update File: README.md\n\t*** Move to: {{OUT}}/moved.sh\n@@\n-a project\n+echo pwned\n*** End Patch\n",
		hostile:     []string{"README.md", "{{OUT}}/moved.sh"},
		hostApplies: false,
		// Codex verifies the patch before its PreToolUse hooks run: the
		// hook never sees a patch Codex refuses.
		reason: "apply_patch verification failed",
	},
	{
		name:    "header-like context line",
		patch:   "*** Begin Patch\n*** Update File: README.md\n@@\n *** Add File: {{OUT}}/x\n-a project\n+b\n*** End Patch\n",
		hostile: []string{"README.md", "{{OUT}}/x"},
		// Codex accepts the patch, its hook denies it; alone, Codex
		// finds no such context line in README.md and changes nothing.
		hostApplies: false,
		reason:      "Edit(//",
	},
	{
		name:        "tab-indented header right after a change",
		patch:       "*** Begin Patch\n*** Update File: README.md\n@@\n-a project\n+b\n\t*** Update File: {{OUT}}/hosts\n@@\n-127.0.0.1 localhost\n+6.6.6.6 localhost\n*** End Patch\n",
		hostile:     []string{"README.md", "{{OUT}}/hosts"},
		hostApplies: false,
		reason:      "apply_patch verification failed", // as above
	},
}

// codexPatchCall is one Codex run (codex exec, full access: Codex's own
// sandbox stops nothing, only the hook can) whose model sends patch as the
// apply_patch tool's input, or (shell) as `apply_patch <<'EOF'` run by the shell tool
// exec_command, which Codex intercepts and applies itself; the project
// then also allows Bash(apply_patch:*), the rule a human accepts when
// asked about such a command. The project's trusted settings allow edits
// in the project and deny them under a directory outside it, which
// {{OUT}} in the patch names. With hook false, permopa is not installed.
// It returns the run, that directory and Codex's output.
func codexPatchCall(t *testing.T, bin, name, patch string, shell, hook bool) (*hostRun, string, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "outside")
	writeFile(t, filepath.Join(out, "hosts"), hostsText)
	writeFile(t, filepath.Join(out, "victim.txt"), victimText)
	patch = strings.ReplaceAll(patch, "{{OUT}}", out)
	tool, args, allow := "apply_patch", map[string]any{"__custom_input": patch}, ""
	if shell {
		tool, args, allow = "exec_command", map[string]any{"cmd": "apply_patch <<'EOF'\n" + patch + "EOF\n"}, "\n    - \"Bash(apply_patch:*)\""
	}
	r := newHostRun(t, "codex", scenario{name: "apply-patch " + name}, tool, args)
	writeFile(t, filepath.Join(r.proj, ".permopa", "settings.yaml"), `permissions:
  allow:
    - "Write(/**)"
    - "Edit(/**)"`+allow+`
  deny:
    - "Edit(/`+out+`/**)"
`)
	r.trust()
	r.mock.start(r.mock.openaiResponses())
	writeFile(t, filepath.Join(r.home, ".codex", "config.toml"), strings.Replace(codexProvider(r.mock.url), `model = "mock-model"`, `model = "`+codexPatchModel+`"`, 1))
	if hook {
		if got := r.install("codex", "--codex", bin); !strings.Contains(got, "trusted 2 permopa hook(s)") {
			t.Fatalf("permopa install codex did not record the trust:\n%s", got)
		}
	}
	res, err := run(t, 150*time.Second, r.proj, []string{
		"HOME=" + r.home, "CODEX_HOME=" + filepath.Join(r.home, ".codex"), "PERMOPA_E2E_KEY=dummy",
	}, bin, "exec", "--skip-git-repo-check", "-s", "danger-full-access", r.mock.marker)
	if err != nil {
		t.Logf("codex exited: %v", err)
	}
	if !r.mock.toolCalled() {
		t.Fatalf("Codex never offered %s to %s or never asked the model:\n%s\n--- model API requests:\n%s", tool, codexPatchModel, res, r.mock.log())
	}
	return r, out, res
}

// changed says whether the file at rel (relative to proj, or under out
// for {{OUT}}) differs from what the run started with.
func changed(proj, out, rel string) bool {
	p := filepath.Join(proj, rel)
	if strings.HasPrefix(rel, "{{OUT}}") {
		p = strings.Replace(rel, "{{OUT}}", out, 1)
	}
	initial, existed := map[string]string{
		filepath.Join(proj, "README.md"):              readmeText,
		filepath.Join(proj, ".permopa/settings.yaml"): "",
		filepath.Join(out, "hosts"):                   hostsText,
		filepath.Join(out, "victim.txt"):              victimText,
	}[p]
	b, err := os.ReadFile(p)
	if err != nil {
		return existed // deleted (or never there)
	}
	if !existed {
		return true // created
	}
	return initial != "" && string(b) != initial
}

// TestCodexPatchShapes: apply_patch as Codex's model API sends it (a
// freeform tool), each shape run by the real Codex without and with
// permopa's hook. The benign patch is written with the hook; no hostile
// file changes with it, and the model is told why.
func TestCodexPatchShapes(t *testing.T) {
	codexPatchTable(t, codexPatchRows, false)
}

// TestCodexShellPatchShapes: the same patches run from Codex's shell tool
// (`apply_patch <<'EOF'`), which Codex applies itself, under an accepted
// Bash(apply_patch:*): the hook decides the files too (docs/hosts.md).
func TestCodexShellPatchShapes(t *testing.T) {
	var rows []codexPatchRow
	for _, row := range codexPatchRows[:3] {
		row.patch = strings.TrimPrefix(row.patch, "<<'EOF'\n")
		rows = append(rows, row)
	}
	codexPatchTable(t, rows, true)
}

func codexPatchTable(t *testing.T, rows []codexPatchRow, shell bool) {
	bin, _ := hostBinary(t, "codex")
	t.Run("benign patch in the project", func(t *testing.T) {
		t.Parallel()
		limit <- struct{}{}
		defer func() { <-limit }()
		r, out, res := codexPatchCall(t, bin, "benign", "*** Begin Patch\n*** Add File: notes/ok.txt\n+ok\n*** Update File: README.md\n@@\n-a project\n+a patched project\n*** End Patch\n", shell, true)
		result, _ := r.mock.toolResult()
		if !changed(r.proj, out, "notes/ok.txt") || !changed(r.proj, out, "README.md") {
			t.Errorf("the benign patch was not applied (tool result %q):\n%s\n--- model API requests:\n%s", result, res, r.mock.log())
		}
	})
	for _, row := range rows {
		for _, hook := range []bool{false, true} {
			name := row.name + "/codex alone"
			if hook {
				name = row.name + "/with permopa"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				limit <- struct{}{}
				defer func() { <-limit }()
				r, out, res := codexPatchCall(t, bin, row.name, row.patch, shell, hook)
				result, got := r.mock.toolResult()
				fail := func(format string, args ...any) {
					t.Helper()
					t.Errorf(format+"\n--- tool result: %q\n--- codex output:\n%s\n--- model API requests:\n%s", append(args, result, res, r.mock.log())...)
				}
				for _, h := range row.hostile {
					c := changed(r.proj, out, h)
					switch {
					case hook && c:
						fail("%s changed through permopa's hook", h)
					case !hook && row.hostApplies && !c:
						fail("Codex alone did not change %s: the shape is not one Codex applies (update the row)", h)
					case !hook && !row.hostApplies && c:
						fail("Codex alone changed %s: Codex applies this shape (update the row)", h)
					}
				}
				if hook && (!got || !strings.Contains(result, row.reason)) {
					fail("the model was not told %q", row.reason)
				}
			})
		}
	}
}

// loopbackPage serves a page on loopback and counts the requests it gets:
// the URL a web_fetch may fetch without leaving the machine.
func loopbackPage(t *testing.T) (string, func() int) {
	t.Helper()
	var mu sync.Mutex
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("PERMOPA-LOOPBACK-PAGE\n"))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/ok", func() int { mu.Lock(); defer mu.Unlock(); return hits }
}

// TestGeminiWebFetchShapes: web_fetch as Gemini CLI's model API declares
// it (the URLs in prompt, up to 20; url only in Gemini's direct mode),
// under WebFetch(domain:evil.example) and an allow rule for a loopback
// page. Every shape naming evil.example is blocked by the deny rule and
// the model is told so; the call is decided as a whole, so the loopback
// page it also names is not fetched. A prompt naming only the loopback
// page reaches the tool, which then refuses a private host itself (Gemini
// CLI's own check, recorded here). Nothing leaves the machine: the denied
// calls never run, and the only page allowed is on loopback.
func TestGeminiWebFetchShapes(t *testing.T) {
	bin, _ := hostBinary(t, "gemini")
	const rule = "WebFetch(domain:evil.example)"
	rows := []struct {
		name    string
		args    func(page string) map[string]any
		allowed bool
	}{
		{"prompt only (Gemini's usual form)", func(string) map[string]any {
			return map[string]any{"prompt": "summarize https://evil.example/x"}
		}, false},
		{"prompt mixing an allowed and a denied URL", func(page string) map[string]any {
			return map[string]any{"prompt": "compare " + page + " with https://evil.example/x"}
		}, false},
		{"allowed url, denied URL in prompt", func(page string) map[string]any {
			return map[string]any{"url": page, "prompt": "summarize https://evil.example/x"}
		}, false},
		{"denied URL after a newline and a tab", func(page string) map[string]any {
			return map[string]any{"prompt": "summarize " + page + "\n\thttps://evil.example/x"}
		}, false},
		{"upper-case scheme and host", func(string) map[string]any {
			return map[string]any{"prompt": "summarize HTTPS://EVIL.EXAMPLE/x"}
		}, false},
		{"user info before the host", func(string) map[string]any {
			return map[string]any{"prompt": "summarize https://docs.example.com@evil.example/x"}
		}, false},
		{"host with a trailing dot and a port", func(string) map[string]any {
			return map[string]any{"prompt": "summarize https://evil.example.:443/x"}
		}, false},
		{"only the allowed page", func(page string) map[string]any {
			return map[string]any{"prompt": "summarize " + page}
		}, true},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			limit <- struct{}{}
			defer func() { <-limit }()
			page, hits := loopbackPage(t)
			r := newHostRun(t, "gemini", scenario{name: "web_fetch " + row.name}, "web_fetch", row.args(page))
			writeFile(t, filepath.Join(r.proj, ".permopa", "settings.yaml"), `permissions:
  allow:
    - "WebFetch(domain:127.0.0.1)"
  deny:
    - "`+rule+`"
`)
			r.trust()
			r.mock.start(r.mock.gemini())
			writeFile(t, filepath.Join(r.home, ".gemini", "settings.json"), geminiSettings)
			r.install("gemini")
			out := geminiRun(t, bin, r, "--skip-trust", "--approval-mode", "yolo")
			result, got := r.mock.toolResult()
			fail := func(format string, args ...any) {
				t.Helper()
				t.Errorf(format+"\n--- tool result: %q\n--- gemini output:\n%s\n--- model API requests:\n%s", append(args, result, out, r.mock.log())...)
			}
			if !r.mock.toolCalled() {
				fail("Gemini never offered web_fetch or never asked the model")
				return
			}
			if row.allowed {
				// The hook let the call through to the tool, which refuses
				// a private host itself (Gemini CLI 0.61's own check).
				if !got || strings.Contains(result, "permopa") || !strings.Contains(result, "[Blocked Host] "+page) {
					fail("the allowed call did not reach web_fetch")
				}
				return
			}
			if !got || !strings.Contains(result, "permopa DENY") || !strings.Contains(result, rule) {
				fail("the model was not told of the deny rule %s", rule)
			}
			if n := hits(); n != 0 {
				fail("the loopback page was fetched %d times: the call ran", n)
			}
		})
	}
}

// TestClaudeWebFetchShapes: Claude Code's WebFetch with URLs whose host a
// browser reads otherwise than a naive parser (docs/rules.md, WebFetch),
// under WebFetch(domain:evil.example): the real Claude Code never fetches
// them, and the model is told permopa's answer. A browser reads
// `https://evil.example\@docs.example.com/` as host evil.example.
func TestClaudeWebFetchShapes(t *testing.T) {
	bin, _ := hostBinary(t, "claude")
	const rule = "WebFetch(domain:evil.example)"
	for _, row := range []struct{ name, url, reason string }{
		{"backslash before the user info", `https://evil.example\@docs.example.com/`, rule},
		{"plain denied host", "https://evil.example/x", rule},
		{"upper-case host with a trailing dot", "https://EVIL.EXAMPLE./x", rule},
	} {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			limit <- struct{}{}
			defer func() { <-limit }()
			r := newHostRun(t, "claude", scenario{name: "WebFetch " + row.name}, "WebFetch", map[string]any{"url": row.url, "prompt": "summarize"})
			writeFile(t, filepath.Join(r.proj, ".permopa", "settings.yaml"), "permissions:\n  deny:\n    - \""+rule+"\"\n")
			r.trust()
			r.mock.start(r.mock.anthropic())
			r.install("claude")
			out, err := run(t, 150*time.Second, r.proj, []string{
				"HOME=" + r.home, "ANTHROPIC_BASE_URL=" + r.mock.url, "ANTHROPIC_API_KEY=sk-ant-e2e",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "IS_SANDBOX=1",
				// WebFetch is offered at once, not deferred behind ToolSearch.
				"ENABLE_TOOL_SEARCH=false",
			}, bin, "-p", r.mock.marker, "--output-format", "json", "--permission-mode", "bypassPermissions")
			if err != nil {
				t.Logf("claude exited: %v", err)
			}
			result, got := r.mock.toolResult()
			if !r.mock.toolCalled() || !got || !strings.Contains(result, "permopa DENY") || !strings.Contains(result, row.reason) {
				t.Errorf("the model was not told %q\n--- tool result: %q\n--- claude output:\n%s\n--- model API requests:\n%s", row.reason, result, out, r.mock.log())
			}
		})
	}
}
