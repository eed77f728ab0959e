package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// Issue 23: secrets the credential list missed. Each path is a credential
// read through the decision, for the Read tool and for cat alike, in every
// mode (docs/reads.md, "Credential paths").
func TestSecretsTheListMissed(t *testing.T) {
	t.Parallel()
	home, proj := "/home/u", "/home/u/proj"
	eng := newTestEngine(t, settings.Settings{Home: home, Cwd: proj})
	secrets := []string{
		// Shell and client histories (SECURITY.md promises shell histories).
		"~/.local/share/fish/fish_history", "~/.config/fish/fish_history", "~/.sh_history", "~/.ksh_history",
		"~/.ash_history", "~/.zhistory", "~/.histfile", "~/.sqlite_history", "~/.rediscli_history", "~/.dbshell",
		"~/.irb_history", "~/.pry_history", "~/.lesshst", "~/.viminfo", "~/.local/state/nvim/shada/main.shada",
		"~/.local/share/nvim/shada/main.shada",
		// Container secrets.
		"/var/run/secrets/kubernetes.io/serviceaccount/token", "/run/secrets/kubernetes.io/serviceaccount/token",
		"/run/secrets/db_password",
		// A project's own secrets.
		"config/master.key", "config/credentials/production.key", "terraform.tfstate", "terraform.tfstate.backup",
		"infra/prod.tfstate",
		// Token stores of common tools.
		"~/.my.cnf", "~/.gem/credentials", "~/.config/glab-cli/config.yml", "~/.mc/config.json", "~/.fly/config.yml",
		"~/.config/ngrok/ngrok.yml", "~/.ngrok2/ngrok.yml", "~/.config/hcloud/cli.toml", "~/.circleci/cli.yml",
		"~/.config/composer/auth.json", "~/.composer/auth.json", "~/.config/sops/age/keys.txt",
		"~/.config/configstore/firebase-tools.json", "~/.tsh/keys/proxy/u", "~/.minikube/profiles/minikube/client.key",
		// Stores that were on the list already (the brief's checklist).
		"~/.config/gh/hosts.yml", "~/.docker/config.json", "~/.netrc", "~/.pgpass", "~/.git-credentials", "~/.npmrc",
		"~/.pypirc", "~/.kube/config", "~/.gnupg/private-keys-v1.d/x.key", "~/.aws/credentials",
		"~/.config/gcloud/credentials.db", "~/.azure/accessTokens.json",
	}
	var cats []string
	for _, p := range secrets {
		cats = append(cats, "cat "+p)
	}
	checkTable(t, eng, proj, map[outcome][]string{credential: cats})
	for _, p := range secrets {
		for _, mode := range allModes {
			d := eng.Decide(context.Background(), map[string]any{
				"tool_name": "Read", "tool_input": map[string]any{"file_path": p}, "cwd": proj, "permission_mode": mode,
			})
			if want := safetyAsk[mode]; d.Behavior != want[0] || d.Step != want[1] {
				t.Errorf("%s: Read %s: %s/%s (%s), want %v", mode, p, d.Behavior, d.Step, d.Message, want)
			}
		}
	}
	// Near misses stay ordinary reads.
	checkTable(t, eng, proj, map[outcome][]string{readOnly: {
		"cat config/master.key.example", "cat src/tfstate.go", "cat ~/.config/fish/config.fish", "cat ~/.vimrc",
		"cat variables.tf", "cat config/credentials.yml.enc",
	}})
}

// Issue 23: files that make tools run code later, and the agents'
// instruction files, are a safety ASK to write in ACCEPT_EDITS (and
// DEFAULT), for the file tools and Bash writes alike, relaxable by a
// project's dangerous_paths.code_running (docs/protected-paths.md).
func TestCodeRunningFilesIssue23(t *testing.T) {
	t.Parallel()
	s := newProtectedSetup(t, "permissions:\n  allow: [\"Bash(echo:*)\", \"Bash(cp:*)\"]\n")
	relaxed := newProtectedSetup(t, "dangerous_paths:\n  code_running:\n    remove: [\"conftest.py\", \"CLAUDE.md\"]\n")
	files := []struct {
		path, reason string
		relaxable    bool
	}{
		{".yarnrc", "makes tools run code", false}, {"sub/.yarnrc.yml", "makes tools run code", false},
		{".npmrc", "", false}, {".pnpmfile.cjs", "makes tools run code", false},
		{"pnpm-workspace.yaml", "makes tools run code", false}, {"bunfig.toml", "makes tools run code", false},
		{".cargo/config.toml", "makes tools run code", false}, {".cargo/config", "makes tools run code", false},
		{"rust-toolchain.toml", "makes tools run code", false},
		{"conftest.py", "makes tools run code", true}, {"tests/unit/conftest.py", "makes tools run code", true},
		{".pylintrc", "makes tools run code", false}, {"pylintrc", "makes tools run code", false},
		{".pdbrc", "makes tools run code", false}, {".gitattributes", "makes tools run code", false},
		{"sub/.gitattributes", "makes tools run code", false}, {".lesskey", "makes tools run code", false},
		{".manpath", "makes tools run code", false}, {"man_db.conf", "makes tools run code", false},
		{".envrc", "", false},
		{"AGENTS.md", "instructions the agent follows", false}, {"CLAUDE.md", "instructions the agent follows", true},
		{"CLAUDE.local.md", "instructions the agent follows", false}, {"GEMINI.md", "instructions the agent follows", false},
		{"pkg/AGENTS.md", "instructions the agent follows", false}, {".cursorrules", "instructions the agent follows", false},
		{".github/copilot-instructions.md", "instructions the agent follows", false},
	}
	for _, f := range files {
		calls := []struct {
			tool  string
			input map[string]any
		}{
			{"Write", map[string]any{"file_path": f.path, "content": "x"}},
			{"Edit", map[string]any{"file_path": f.path, "old_string": "a", "new_string": "b"}},
			{"Bash", map[string]any{"command": "echo x > " + f.path}},
			{"Bash", map[string]any{"command": "echo x >> ./" + f.path}},
			{"Bash", map[string]any{"command": "cp /tmp/x " + f.path}},
		}
		for _, c := range calls {
			for _, mode := range []string{"default", "acceptEdits"} {
				d := s.decide(c.tool, c.input, mode)
				if d.Behavior != permission.Ask || d.Step != permission.StepToolCheck || !d.BypassImmune ||
					!strings.Contains(d.Message, f.reason) {
					t.Errorf("%s: %s %v: %s/%s (%s), want a safety ASK naming %q", mode, c.tool, c.input, d.Behavior, d.Step, d.Message, f.reason)
				}
			}
			if d := s.decide(c.tool, c.input, "dontAsk"); d.Behavior != permission.Deny {
				t.Errorf("dontAsk: %s %v: %s (%s), want DENY", c.tool, c.input, d.Behavior, d.Message)
			}
			d := relaxed.decide(c.tool, c.input, "acceptEdits")
			if f.relaxable != (d.Behavior == permission.Allow) {
				t.Errorf("relaxed project, acceptEdits: %s %v: %s/%s (%s), relaxable %v", c.tool, c.input, d.Behavior, d.Step, d.Message, f.relaxable)
			}
		}
	}
	// Reading them stays a read; files that only look alike stay edits.
	for _, f := range []string{"src/conftest_helpers.py", "docs/agents.md.bak", "yarnrc.txt", "Makefile", "src/lib.rs"} {
		if d := s.decide("Write", map[string]any{"file_path": f, "content": "x"}, "acceptEdits"); d.Behavior != permission.Allow {
			t.Errorf("acceptEdits: Write %s: %s/%s (%s), want ALLOW", f, d.Behavior, d.Step, d.Message)
		}
	}
	if d := s.decide("Read", map[string]any{"file_path": "CLAUDE.md"}, "default"); d.Behavior != permission.Allow {
		t.Errorf("Read CLAUDE.md: %s (%s), want ALLOW", d.Behavior, d.Message)
	}
}
