package main_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 24, through the binary: a repository's .permopa/settings.yaml that
// nests too deeply or holds too many values makes the hook block every call
// (settings_unreadable) and decide name the file and the bound, instead of
// making each hook call take ~100 MB.
func TestHookRefusesHostileProjectSettings(t *testing.T) {
	t.Parallel()
	var rules strings.Builder
	rules.WriteString("permissions:\n  deny:\n")
	for i := 0; i < 30000; i++ {
		fmt.Fprintf(&rules, "    - \"Bash(c%d:*)\"\n", i)
	}
	for name, body := range map[string]string{
		// Each is a valid settings file with only an unknown key or deny
		// rules: read without the bounds, the call is allowed.
		"nested lists": "permissions:\n  deny: [\"Bash(rm:*)\"]\nnotes: " + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + "\n",
		"30,000 rules": rules.String(),
	} {
		dir := t.TempDir()
		project := filepath.Join(dir, "proj")
		file := filepath.Join(project, ".permopa", "settings.yaml")
		writeFile(t, file, body)
		env := []string{"HOME=" + dir, "PERMOPA_CONFIG_DIR=" + filepath.Join(dir, "user")}
		payload := fmt.Sprintf(`{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":%q,"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":%q},"tool_use_id":"t1"}`, project, filepath.Join(project, "README"))
		out, stderr, _ := permopaEnv(t, payload, env, "hook", "claude")
		if !strings.Contains(out, `"deny"`) || !strings.Contains(out+stderr, "settings_unreadable") && !strings.Contains(out+stderr, file) {
			t.Errorf("%s: the hook did not block: %s %s", name, out, stderr)
		}
		out, stderr, _ = permopaAt(t, project, `{"tool_name":"Read","tool_input":{"file_path":"README"}}`, env, "decide")
		if !strings.Contains(out, "settings_unreadable") || !strings.Contains(stderr, file) {
			t.Errorf("%s: decide: %s %s", name, out, stderr)
		}
	}
}
