package engine_test

import (
	"context"
	"testing"

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
