//go:build hostse2e

package hosts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Interactive Claude Code (in tmux): Claude Code's own ask rule for a
// command that a permopa allow rule allows. PreToolUse's allow does not
// override Claude Code's ask rule, so Claude Code wants to ask, and the
// PermissionRequest hook must not answer for the human: the dialog shows,
// and the command does not run unasked.
func TestClaudeCodeInteractiveAskRuleReachesTheUser(t *testing.T) {
	bin, _ := hostBinary(t, "claude")
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("tmux is needed for the interactive test: %v", err)
	}
	sc := scenario{"claude-ask-rule", "touch allowed-by-rule", "allowed-by-rule"}
	r := newHostRun(t, "claude", sc, "Bash", map[string]any{"command": sc.command, "description": "e2e"})
	r.mock.start(r.mock.anthropic())
	const key = "sk-ant-e2e-interactive-0123456789"
	writeFile(t, filepath.Join(r.home, ".claude.json"), `{
  "hasCompletedOnboarding": true,
  "theme": "dark",
  "customApiKeyResponses": {"approved": ["`+key[len(key)-20:]+`"], "rejected": []},
  "projects": {"`+r.proj+`": {"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}}
}
`)
	writeFile(t, filepath.Join(r.home, ".claude", "settings.json"), `{
  "permissions": {
    "ask": ["Bash(touch allowed-by-rule)"]
  }
}
`)
	r.install("claude")
	session := "permopa-e2e-" + filepath.Base(r.home)
	env := []string{"HOME=" + r.home, "ANTHROPIC_BASE_URL=" + r.mock.url, "ANTHROPIC_API_KEY=" + key,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "PATH=" + os.Getenv("PATH")}
	args := []string{"new-session", "-d", "-s", session, "-x", "200", "-y", "50", "-c", r.proj, "env"}
	args = append(args, env...)
	args = append(args, bin, "--permission-mode", "default", r.mock.marker)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	defer func() {
		exec.Command("tmux", "kill-session", "-t", session).Run()
		// Claude Code writes its session files for a moment after the
		// hangup; the temporary home is removed after that.
		time.Sleep(3 * time.Second)
	}()
	var screen string
	deadline := time.Now().Add(120 * time.Second)
	for time.Now().Before(deadline) {
		out, _ := exec.Command("tmux", "capture-pane", "-p", "-t", session).Output()
		screen = string(out)
		if strings.Contains(screen, "Do you want") || strings.Contains(screen, "proceed") {
			break
		}
		if exists(filepath.Join(r.proj, sc.marker)) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if exists(filepath.Join(r.proj, sc.marker)) {
		t.Fatalf("the command ran without the question Claude Code's ask rule asks for:\n%s\n%s", screen, r.mock.log())
	}
	if !strings.Contains(screen, "Do you want") && !strings.Contains(screen, "proceed") {
		t.Fatalf("no permission dialog on the screen:\n%s\n--- requests:\n%s", screen, r.mock.log())
	}
	t.Logf("the dialog reached the user:\n%s", screen)
}
