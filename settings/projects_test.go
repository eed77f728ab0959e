package settings_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// A project's own layers, attached to an engine, apply their rules to the
// calls made in that project only (Settings.Projects), after the engine's
// layers and without touching them: a reload of the engine's layers keeps
// them, allow_managed_rules_only silences their allow rules, and AddRules
// writes the project's files.
func TestProjectLayers(t *testing.T) {
	ctx := context.Background()
	tr := newTree(t)
	tr.write(t, filepath.Join(tr.managed, "settings.yaml"), "permissions:\n  deny: [\"Bash(curl:*)\"]\n")
	eng, layers, problems := tr.attach(t)
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	app := filepath.Join(tr.root, "app")
	file := tr.write(t, filepath.Join(app, ".permopa", "settings.yaml"), "permissions:\n  allow: [\"Bash(npm test)\", \"Bash(curl:*)\"]\n  deny: [\"Bash(git push:*)\"]\n  defaultMode: bypassPermissions\n")
	tr.write(t, filepath.Join(app, "package.json"), `{"scripts": {"test": "echo ok"}}`)
	pl := settings.NewProjectLayers(app, app)
	pl.SetUserDir(tr.user)
	tr.trust(t, app)
	if problems := pl.Attach(ctx, eng); len(problems) != 0 {
		t.Fatal(problems)
	}
	if d := decide(eng, bashCall(app, "git push")); d.Behavior != permission.Deny || d.MatchedRule.Source != settings.SourceProject || d.MatchedRule.Layer != file {
		t.Fatalf("project deny: %+v", d)
	}
	if d := decide(eng, bashCall(tr.proj, "git push")); d.Behavior != permission.Ask {
		t.Fatalf("another cwd: %+v", d)
	}
	if d := decide(eng, bashCall(app, "curl -s example.com")); d.Behavior != permission.Deny || d.MatchedRule.Source != settings.SourceManaged {
		t.Fatalf("managed deny: %+v", d)
	}
	if s := eng.Settings(); s.DefaultMode != "" || len(s.Rules) != 1 {
		t.Fatalf("the project changed the engine's own settings: %+v", s)
	}
	if d := decide(eng, bashCall(app, "npm test")); d.Behavior != permission.Allow {
		t.Fatalf("project allow: %+v", d)
	}

	tr.write(t, filepath.Join(tr.managed, "settings.yaml"), "allow_managed_rules_only: true\n")
	if problems := layers.Reload(ctx); len(problems) != 0 {
		t.Fatal(problems)
	}
	if d := decide(eng, bashCall(app, "npm test")); d.Behavior != permission.Ask {
		t.Fatalf("project allow under allow_managed_rules_only: %+v", d)
	}
	if d := decide(eng, bashCall(app, "git push")); d.Behavior != permission.Deny {
		t.Fatalf("project deny after the engine's reload: %+v", d)
	}

	written, err := pl.AddRules(ctx, settings.DestinationLocal, "", []permission.Rule{{ToolName: "Bash", RuleContent: ptr("make:*"), Behavior: permission.Deny}}, 0)
	if err != nil || len(written) != 1 || written[0].Layer != filepath.Join(app, ".permopa", "settings.local.yaml") {
		t.Fatalf("%+v %v", written, err)
	}
	if d := decide(eng, bashCall(app, "make all")); d.Behavior != permission.Deny || d.MatchedRule.Source != settings.SourceLocal {
		t.Fatalf("after AddRules: %+v", d)
	}
	if err := eng.RemoveProject(ctx, app); err != nil {
		t.Fatal(err)
	}
	if d := decide(eng, bashCall(app, "git push")); d.Behavior != permission.Ask {
		t.Fatalf("after RemoveProject: %+v", d)
	}
}
