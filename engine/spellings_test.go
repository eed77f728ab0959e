package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// spellingsEngine is an engine whose project settings hold rules, each
// as the given behavior.
func spellingsEngine(t *testing.T, behavior string, rules ...string) *engine.Engine {
	t.Helper()
	path := filepath.Join(t.TempDir(), "settings.yaml")
	body := "permissions:\n  " + behavior + ":\n"
	for _, r := range rules {
		body += "    - '" + strings.ReplaceAll(r, "'", "''") + "'\n"
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	s, problems, err := settings.LoadSettingsFile(path, settings.SourceProject)
	if err != nil || len(problems) > 0 {
		t.Fatalf("settings: %v %v", err, problems)
	}
	s.Home, s.Cwd = "/home/u", "/w"
	eng, err := newEngine(context.Background(), engine.WithSettings(s))
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// spellingRules are the rules of issue 23's spellings, and the commands
// that run what they name under another spelling (or run it hidden).
var spellingRules = []string{"Bash(sed -i:*)", "Bash(chmod -R:*)", "Bash(npm publish:*)", "Bash(docker run:*)", "Bash(rm:*)"}

var spelledOtherwise = map[string]string{
	"sed --in-place s/a/b/ f":                "Bash(sed -i:*)",
	"sed --in-pl s/a/b/ f":                   "Bash(sed -i:*)",
	"sed --in-place=.bak s/a/b/ f":           "Bash(sed -i:*)",
	"chmod --recursive 777 x":                "Bash(chmod -R:*)",
	"chmod --rec 777 x":                      "Bash(chmod -R:*)",
	"npm pub":                                "Bash(npm publish:*)",
	"npm publ":                               "Bash(npm publish:*)",
	"npm --prefix . publish":                 "Bash(npm publish:*)",
	"docker container run x":                 "Bash(docker run:*)",
	"git ls-remote --upload-pack='rm x' .":   "Bash(rm:*)",
	"npm explore lodash -- rm x":             "Bash(rm:*)",
	"echo #c\\\nrm -rf x":                    "Bash(rm:*)",
	"git ls-remote -u 'rm x' origin":         "Bash(rm:*)",
	"sed --in-place s/a/b/ f && echo \r, ok": "Bash(sed -i:*)",
}

// TestSpellingsThroughTheDecision: deny and ask rules stop every spelling
// of what they name, in every mode (BYPASS included); allow rules cover
// only their own words.
func TestSpellingsThroughTheDecision(t *testing.T) {
	t.Parallel()
	deny := spellingsEngine(t, "deny", spellingRules...)
	ask := spellingsEngine(t, "ask", spellingRules...)
	for cmd, rule := range spelledOtherwise {
		for _, mode := range allModes {
			if d := decideInW(deny, cmd, mode); d.Behavior != permission.Deny || d.Step != permission.StepDenyRule || d.MatchedRule == nil || d.MatchedRule.String() != rule {
				t.Errorf("deny, %s: %q: %s/%s by %v, want DENY by %s (%s)", mode, cmd, d.Behavior, d.Step, d.MatchedRule, rule, d.Reason)
			}
		}
		if d := decideInW(ask, cmd, "default"); d.Behavior != permission.Ask || d.Step != permission.StepAskRule || d.MatchedRule == nil || d.MatchedRule.String() != rule {
			t.Errorf("ask: %q: %s/%s by %v, want ASK by %s (%s)", cmd, d.Behavior, d.Step, d.MatchedRule, rule, d.Reason)
		}
	}
	// A moved or hard-linked secret is read.
	secrets := spellingsEngine(t, "deny", "Read(~/.ssh/**)")
	for _, cmd := range []string{"mv ~/.ssh/id_rsa k", "ln ~/.ssh/id_rsa k", "link ~/.ssh/id_rsa k", "cp -l ~/.ssh/id_rsa k"} {
		if d := decideInW(secrets, cmd, "bypassPermissions"); d.Behavior != permission.Deny || d.MatchedRule == nil || d.MatchedRule.String() != "Read(~/.ssh/**)" {
			t.Errorf("%q: %s by %v, want DENY by Read(~/.ssh/**) (%s)", cmd, d.Behavior, d.MatchedRule, d.Reason)
		}
	}
	// Allow rules cover their own words, never another spelling or a word
	// bash does not split.
	allow := spellingsEngine(t, "allow", "Bash(git status:*)", "Bash(npm test)", "Bash(sed -i:*)", "Bash(npm publish:*)")
	for cmd, want := range map[string]string{
		"git status":                permission.Allow,
		"git status\rrm -rf x":      permission.Ask,
		"git status\u00a0rm -rf x":  permission.Ask,
		"npm test":                  permission.Allow,
		"npm t":                     permission.Ask,
		"sed -i s/a/b/ f":           permission.Allow,
		"sed --in-place s/a/b/ f":   permission.Ask,
		"npm publish":               permission.Allow,
		"npm pub":                   permission.Ask,
		"git status #c\\\nrm -rf x": permission.Ask,
	} {
		if d := decideInW(allow, cmd, "default"); d.Behavior != want {
			t.Errorf("allow: %q: %s/%s by %v, want %s (%s)", cmd, d.Behavior, d.Step, d.MatchedRule, want, d.Reason)
		}
	}
}
