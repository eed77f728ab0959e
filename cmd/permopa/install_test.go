package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// `permopa install claude` keeps the user's settings and their key order,
// shows the change before writing it, is idempotent, and `uninstall`
// removes only permopa's hooks.
func TestInstallClaudeKeepsSettings(t *testing.T) {
	t.Parallel()
	home, proj := t.TempDir(), t.TempDir()
	file := filepath.Join(home, ".claude", "settings.json")
	orig := `{
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(ls:*)"
    ]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Write",
        "hooks": [
          {
            "type": "command",
            "command": "echo mine"
          }
        ]
      }
    ]
  },
  "zzz": 1.50
}
`
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR="}
	// --dry-run: the diff, nothing written.
	out, errOut, code := permopaAt(t, proj, "", env, "install", "claude", "--dry-run")
	if code != 0 || !strings.Contains(out, "+") || !strings.Contains(out, "hook claude") || readFile(t, file) != orig {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = permopaAt(t, proj, "", env, "install", "claude")
	if code != 0 || !strings.Contains(out, "--- "+file) || !strings.Contains(out, "wrote "+file) {
		t.Fatalf("install: exit %d\n%s%s", code, out, errOut)
	}
	got := readFile(t, file)
	// The user's keys keep their order and values; permopa's hooks are
	// there for both events, with this binary's path.
	order := regexp.MustCompile(`(?m)^  "(\w+)"`).FindAllStringSubmatch(got, -1)
	var keys []string
	for _, m := range order {
		keys = append(keys, m[1])
	}
	if strings.Join(keys, ",") != "model,permissions,hooks,zzz" || !strings.Contains(got, "1.50") || !strings.Contains(got, "echo mine") {
		t.Errorf("settings not kept (keys %v):\n%s", keys, got)
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct{ Command string }
		}
	}
	if err := json.Unmarshal([]byte(got), &doc); err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{"PreToolUse", "PermissionRequest"} {
		n := 0
		for _, g := range doc.Hooks[e] {
			for _, h := range g.Hooks {
				if strings.HasSuffix(h.Command, "permopa hook claude || exit 2") {
					n++
				}
			}
		}
		if n != 1 {
			t.Errorf("%s: %d permopa hooks:\n%s", e, n, got)
		}
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v not kept", fi.Mode().Perm())
	}
	// Again: nothing changes.
	out, _, code = permopaAt(t, proj, "", env, "install", "claude")
	if code != 0 || !strings.Contains(out, "already up to date") || readFile(t, file) != got {
		t.Errorf("second install changed something: %s", out)
	}
	// doctor: the hooks are there and answer a harmless call.
	out, errOut, code = permopaAt(t, proj, "", env, "doctor", "claude")
	if code != 0 || strings.Count(out, "answers a harmless call") != 2 || strings.Contains(out, "FAIL") {
		t.Errorf("doctor: exit %d\n%s%s", code, out, errOut)
	}
	// uninstall: only permopa's hooks go.
	out, errOut, code = permopaAt(t, proj, "", env, "uninstall", "claude")
	after := readFile(t, file)
	if code != 0 || strings.Contains(after, "permopa") || !strings.Contains(after, "echo mine") || !strings.Contains(after, `"zzz": 1.50`) {
		t.Errorf("uninstall: exit %d\n%s%s\n%s", code, out, errOut, after)
	}
	// doctor now fails, naming what is missing.
	out, _, code = permopaAt(t, proj, "", env, "doctor", "claude")
	if code == 0 || !strings.Contains(out, "FAIL") {
		t.Errorf("doctor without hooks: exit %d\n%s", code, out)
	}
}

// Project and local scopes write the project's files; a settings file
// that is not JSON (or has comments) is refused, not rewritten.
func TestInstallScopesAndRefusals(t *testing.T) {
	t.Parallel()
	home, proj := t.TempDir(), t.TempDir()
	env := []string{"HOME=" + home}
	for scope, file := range map[string]string{
		"project": filepath.Join(proj, ".claude", "settings.json"),
		"local":   filepath.Join(proj, ".claude", "settings.local.json"),
	} {
		if _, errOut, code := permopaAt(t, proj, "", env, "install", "claude", "--scope", scope); code != 0 {
			t.Fatalf("%s: %s", scope, errOut)
		}
		if !strings.Contains(readFile(t, file), "hook claude") {
			t.Errorf("%s: %s has no hook", scope, file)
		}
	}
	if _, errOut, code := permopaAt(t, proj, "", env, "install", "codex", "--scope", "local"); code == 0 || !strings.Contains(errOut, "scope") {
		t.Errorf("codex has no local scope: exit %d %s", code, errOut)
	}
	gem := filepath.Join(home, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(gem), 0o755)
	withComments := "{\n  // my theme\n  \"theme\": \"dark\"\n}\n"
	os.WriteFile(gem, []byte(withComments), 0o644)
	if _, errOut, code := permopaAt(t, proj, "", env, "install", "gemini"); code == 0 || !strings.Contains(errOut, "comments") || readFile(t, gem) != withComments {
		t.Errorf("a settings file with comments must be refused: exit %d %s", code, errOut)
	}
}

// Gemini CLI: the hook goes in at user scope, and install warns that Gemini
// runs no hooks in a folder it does not trust; doctor fails there until
// the folder is trusted.
func TestInstallGeminiWarnsAboutTrust(t *testing.T) {
	t.Parallel()
	home, proj := t.TempDir(), t.TempDir()
	env := []string{"HOME=" + home, "GEMINI_CLI_TRUSTED_FOLDERS_PATH="}
	out, errOut, code := permopaAt(t, proj, "", env, "install", "gemini", "--mode", "dontAsk")
	if code != 0 || !strings.Contains(errOut, "does not trust") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(readFile(t, filepath.Join(home, ".gemini", "settings.json")), "hook gemini --mode dontAsk") {
		t.Errorf("--mode not in the hook command")
	}
	if out, _, code := permopaAt(t, proj, "", env, "doctor", "gemini"); code == 0 || !strings.Contains(out, "FAIL Gemini CLI trusts") {
		t.Errorf("doctor in an untrusted folder: exit %d\n%s", code, out)
	}
	trusted, _ := json.Marshal(map[string]string{proj: "TRUST_FOLDER"})
	os.WriteFile(filepath.Join(home, ".gemini", "trustedFolders.json"), trusted, 0o644)
	if out, _, code := permopaAt(t, proj, "", env, "doctor", "gemini"); code != 0 {
		t.Errorf("doctor in a trusted folder: exit %d\n%s", code, out)
	}
	out, errOut, code = permopaAt(t, proj, "", env, "install", "gemini", "--scope", "project")
	if code != 0 || !strings.Contains(errOut, "--skip-trust") {
		t.Errorf("project scope must warn about --skip-trust: exit %d %s%s", code, out, errOut)
	}
}

// Codex: the hooks go in one marked block of config.toml, every comment
// and setting kept; install again replaces the block in place; uninstall
// removes it. Without a codex binary the trust cannot be recorded: install
// says so and exits 1 (the e2e tests record it with the real Codex).
func TestInstallCodexKeepsComments(t *testing.T) {
	t.Parallel()
	home, proj := t.TempDir(), t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	file := filepath.Join(codexHome, "config.toml")
	orig := "# my Codex settings\nmodel = \"gpt-5\" # the model\n\n[projects.\"/srv/x\"]\ntrust_level = \"trusted\"\n"
	os.MkdirAll(codexHome, 0o755)
	os.WriteFile(file, []byte(orig), 0o644)
	env := []string{"HOME=" + home, "CODEX_HOME=" + codexHome, "PATH=/nonexistent"}
	out, errOut, code := permopaAt(t, proj, "", env, "install", "codex")
	got := readFile(t, file)
	if code == 0 || !strings.Contains(errOut, "codex is not on PATH") || !strings.Contains(errOut, "/hooks") {
		t.Errorf("without codex: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.HasPrefix(got, orig) || strings.Count(got, "hook codex") != 2 {
		t.Fatalf("config.toml:\n%s", got)
	}
	// The block is replaced in place, even with Codex's trust tables after it.
	os.WriteFile(file, []byte(got+"\n[hooks.state.\"k\"]\ntrusted_hash = \"sha256:00\"\n# after\n"), 0o644)
	permopaAt(t, proj, "", env, "install", "codex", "--command", "permopa-hook codex")
	again := readFile(t, file)
	if strings.Count(again, "permopa-hook codex") != 2 || strings.Contains(again, "permopa hook codex") || !strings.Contains(again, "# after") || !strings.HasPrefix(again, orig) {
		t.Errorf("reinstall:\n%s", again)
	}
	if _, errOut, code := permopaAt(t, proj, "", env, "uninstall", "codex"); code != 0 {
		t.Fatal(errOut)
	}
	after := readFile(t, file)
	if strings.Contains(after, "permopa") || !strings.HasPrefix(after, orig) || !strings.Contains(after, "# after") {
		t.Errorf("uninstall:\n%s", after)
	}
	// A config.toml that is not TOML is not touched.
	os.WriteFile(file, []byte("model = \n"), 0o644)
	if _, errOut, code := permopaAt(t, proj, "", env, "install", "codex"); code == 0 || !strings.Contains(errOut, "not valid TOML") {
		t.Errorf("invalid TOML: exit %d %s", code, errOut)
	}
}

// The matchers install writes are the ones docs/hosts.md documents.
func TestInstallMatchersAreTheDocumentedOnes(t *testing.T) {
	t.Parallel()
	home, proj := t.TempDir(), t.TempDir()
	doc := readFile(t, "../../docs/hosts.md")
	for _, host := range []string{"claude", "gemini"} {
		if _, errOut, code := permopaAt(t, proj, "", []string{"HOME=" + home}, "install", host); code != 0 && host == "claude" {
			t.Fatal(errOut)
		}
	}
	for _, f := range []string{".claude/settings.json", ".gemini/settings.json"} {
		for _, m := range regexp.MustCompile(`"matcher": "([^"]+)"`).FindAllStringSubmatch(readFile(t, filepath.Join(home, f)), -1) {
			if !strings.Contains(doc, `"matcher": "`+m[1]+`"`) {
				t.Errorf("%s: matcher %q is not docs/hosts.md's", f, m[1])
			}
		}
	}
}

// doctor never runs a look-alike hook command: only a plain permopa hook
// command is run for the harmless call.
func TestDoctorRunsOnlyPlainHookCommands(t *testing.T) {
	t.Parallel()
	home, proj := t.TempDir(), t.TempDir()
	file := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	pwned := filepath.Join(proj, "pwned")
	os.WriteFile(file, []byte(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"permopa hook claude && touch `+pwned+`"}]}]}}`), 0o644)
	out, _, code := permopaAt(t, proj, "", []string{"HOME=" + home}, "doctor", "claude")
	if code == 0 || !strings.Contains(out, "not run") {
		t.Errorf("exit %d\n%s", code, out)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("doctor ran a look-alike hook command")
	}
}
