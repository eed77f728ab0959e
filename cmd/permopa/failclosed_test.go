package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/permopa/permopa/internal/hostile"
)

const secretText = "s3cr3t-KEY-0xDEADBEEF"

// `permopa decide` fails closed when a settings file's deny or ask rules
// cannot be read, as the hooks do: every line is a DENY with code
// settings_unreadable, and no output quotes a file that is not settings.
func TestDecideFailsClosedOnUnreadableSettings(t *testing.T) {
	t.Parallel()
	cases := map[string]func(t *testing.T, dir string){
		"invalid deny rule": func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, ".permopa", "settings.yaml"), "permissions:\n  deny: [\"Bash(rm:*\"]\n  allow: [\"Bash\"]\n")
		},
		"settings linked to a key": func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "home", ".ssh", "id_ed25519"), secretText)
			if err := os.MkdirAll(filepath.Join(dir, ".permopa"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(dir, "home", ".ssh", "id_ed25519"), filepath.Join(dir, ".permopa", "settings.local.yaml")); err != nil {
				t.Fatal(err)
			}
		},
		"settings that are not YAML": func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "xdg", "permopa", "settings.yaml"), "root:"+secretText+":0:0\n: [\n")
		},
	}
	lines := `{"tool_name":"Read","tool_input":{"file_path":"/etc/hosts"}}` + "\n" +
		`{"tool_name":"Bash","tool_input":{"command":"ls"},"permission_mode":"bypassPermissions"}` + "\n"
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			setup(t, dir)
			out, stderr, code := permopaAt(t, dir, lines, isolatedEnv(dir), "decide")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			ds := decisions(t, out)
			if len(ds) != 2 {
				t.Fatalf("%d decisions: %s", len(ds), out)
			}
			for _, d := range ds {
				if d.Behavior != "DENY" || d.Code != "settings_unreadable" {
					t.Errorf("decision %+v, want DENY settings_unreadable", d)
				}
			}
			if !strings.Contains(stderr, "every call is denied") {
				t.Errorf("stderr does not say calls are denied: %s", stderr)
			}
			if strings.Contains(out+stderr, secretText) {
				t.Errorf("the output quotes the file:\n%s\n%s", out, stderr)
			}
		})
	}
}

// `permopa rules add` refuses a destination that is a symbolic link and
// leaves the link and its target alone: a rule never copies a key into a
// project file.
func TestRulesAddRefusesSymlinkedDestination(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := filepath.Join(dir, "home", ".docker", "config.json")
	writeFile(t, key, `{"auths": {"r.example": {"auth": "`+secretText+`"}}}`)
	link := filepath.Join(dir, ".permopa", "settings.local.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(key, link); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := permopaAt(t, dir, "", isolatedEnv(dir), "rules", "add", "--destination", "local", "Bash")
	if code == 0 || !strings.Contains(stderr, "symbolic link") || strings.Contains(out+stderr, secretText) {
		t.Fatalf("rules add through a link: exit %d\n%s\n%s", code, out, stderr)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced")
	}
	if raw, _ := os.ReadFile(key); !strings.Contains(string(raw), secretText) || strings.Contains(string(raw), "Bash") {
		t.Errorf("the target changed: %s", raw)
	}
}

// Pathological inputs through `permopa decide` never let a call through:
// each is refused (a DENY with a stable code, or a safety ASK) within the
// per-decision deadline, and an ordinary call in the same process is
// answered correctly.
func TestDecideHostileInputs(t *testing.T) {
	t.Parallel()
	ordinary := `{"tool_name":"Bash","tool_input":{"command":"git status"},"cwd":"/tmp","tool_use_id":"ok"}`
	for _, in := range sample(hostile.Inputs()) {
		t.Run(in.Name, func(t *testing.T) {
			dir := t.TempDir()
			out, stderr, code := permopaAt(t, dir, ordinary+"\n"+string(in.JSON())+"\n", isolatedEnv(dir), "decide", "--timeout", "1s")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var ds []map[string]any
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var d map[string]any
				if err := json.Unmarshal([]byte(line), &d); err != nil {
					t.Fatalf("output %q: %v", line, err)
				}
				ds = append(ds, d)
			}
			if len(ds) != 2 {
				t.Fatalf("%d decisions", len(ds))
			}
			if ds[0]["behavior"] != "ALLOW" || ds[0]["step"] != "read_only" {
				t.Errorf("the ordinary call: %v", ds[0])
			}
			checkRefused(t, ds[1])
			if p := stableRefusal(in, ds[1]); p != "" {
				t.Error(p)
			}
		})
	}
}

// checkRefused requires a fail-closed answer to a pathological call: not
// ALLOW; a DENY of step error carries a code; an ASK is a safety ASK
// (bypass_immune), which no allow rule or mode silences but DONT_ASK
// denies. ALLOW is right for calls the policy decides without looking
// into the pathological part (a Write's content).
func checkRefused(t *testing.T, d map[string]any) {
	t.Helper()
	if p := refusalProblem(d); p != "" {
		t.Error(p)
	}
}

// stableRefusal requires a call beyond the analyser's limits to be a DENY
// of step error with a stable code (limit_exceeded, or timeout past the
// deadline): "" when it is.
func stableRefusal(in hostile.Input, d map[string]any) string {
	if !in.Refused {
		return ""
	}
	if code, _ := d["code"].(string); d["behavior"] != "DENY" || d["step"] != "error" || (code != "limit_exceeded" && code != "timeout") {
		return fmt.Sprintf("%s: %v, want a DENY with code limit_exceeded or timeout", in.Name, d)
	}
	return ""
}

// refusalProblem is what checkRefused reports ("" when d is a refusal).
func refusalProblem(d map[string]any) string {
	switch d["behavior"] {
	case "DENY":
		if d["step"] == "error" && d["code"] == nil {
			return fmt.Sprintf("a DENY without a code: %v", d)
		}
	case "ASK":
		if d["bypass_immune"] != true && d["step"] != "mode_fallback" {
			return fmt.Sprintf("an ASK that an allow rule could silence: %v", d)
		}
	default:
		if msg, _ := d["message"].(string); d["step"] != "tool_check" || !strings.Contains(msg, "Write") {
			return fmt.Sprintf("let through: %v", d)
		}
	}
	return ""
}
