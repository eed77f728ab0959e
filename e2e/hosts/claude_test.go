//go:build hostse2e

package hosts_test

import (
	"testing"
	"time"
)

// Claude Code, headless (claude -p): nobody can answer a permission
// prompt, so an ASK is reported to the model as a denial. Each mode of
// docs/hosts.md's Claude Code table, with what the user sees.
func TestClaudeCode(t *testing.T) {
	bin, _ := hostBinary(t, "claude")
	const permopaReason = "permopa"
	cases := []struct {
		mode string
		sc   scenario
		want outcome
	}{
		{"default", scDeny, outcome{false, "Bash(rm -rf:*)"}},
		{"default", scAllow, outcome{true, ""}},
		{"default", scAskRule, outcome{false, "needs approval by rule"}},
		{"default", scNoRule, outcome{false, "permopa rules add"}},
		{"default", scRead, outcome{true, "victim"}},
		{"manual", scDeny, outcome{false, "Bash(rm -rf:*)"}},
		{"acceptEdits", scAllow, outcome{true, ""}},
		{"plan", scAllow, outcome{false, permopaReason}},
		{"auto", scAllow, outcome{true, ""}},
		{"auto", scAskRule, outcome{false, "needs approval by rule"}},
		// No rule: permopa leaves the call to auto mode, which runs a
		// file command in the working directory unasked (as it would
		// without the hook) and sends the rest to its classifier.
		{"auto", scNoRule, outcome{true, ""}},
		{"dontAsk", scDeny, outcome{false, "Bash(rm -rf:*)"}},
		{"dontAsk", scAllow, outcome{true, ""}},
		{"dontAsk", scNoRule, outcome{false, "nobody can answer"}},
		{"bypassPermissions", scDeny, outcome{false, "Bash(rm -rf:*)"}},
		{"bypassPermissions", scAllow, outcome{true, ""}},
		{"bypassPermissions", scAskRule, outcome{false, "needs approval by rule"}},
		{"bypassPermissions", scNoRule, outcome{true, ""}},
	}
	for _, c := range cases {
		t.Run(c.mode+"/"+c.sc.name, func(t *testing.T) {
			t.Parallel()
			limit <- struct{}{}
			defer func() { <-limit }()
			r := newHostRun(t, "claude", c.sc, "Bash", map[string]any{"command": c.sc.command, "description": "e2e"})
			r.mock.start(r.mock.anthropic())
			r.install("claude")
			out, err := run(t, 150*time.Second, r.proj, []string{
				"HOME=" + r.home, "ANTHROPIC_BASE_URL=" + r.mock.url, "ANTHROPIC_API_KEY=sk-ant-e2e",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "IS_SANDBOX=1",
			}, bin, "-p", r.mock.marker, "--output-format", "json", "--permission-mode", c.mode)
			if err != nil {
				t.Logf("claude exited: %v", err)
			}
			r.check(c.sc, c.want, out)
		})
	}
}
