package settings_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/settings"
)

// Layered settings: the project allows what the user's settings deny, and
// the deny wins; the decision names the rule and its layer. Attach keeps
// the engine in step with the files, and Watch reloads them when they change.
func ExampleLayers() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "permopa-layers")
	defer os.RemoveAll(dir)
	write := func(rel, content string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	write("proj/.permopa/settings.yaml", "permissions:\n  allow: [\"Bash(git push:*)\", \"Bash(make:*)\"]\n")
	write("user/settings.json", `{"permissions": {"deny": ["Bash(git push --force:*)"]}}`)
	// The project's allow rules count once the user trusts its files
	// (`permopa trust`).
	digests, _ := settings.ProjectFileDigests(filepath.Join(dir, "proj"))
	if err := settings.RecordTrust(filepath.Join(dir, "user"), filepath.Join(dir, "proj"), digests); err != nil {
		fmt.Println(err)
	}

	eng, _ := engine.New(ctx)
	layers := settings.NewLayers(settings.LayerOptions{
		ProjectDir: filepath.Join(dir, "proj"), UserDir: filepath.Join(dir, "user"),
		ManagedDir: filepath.Join(dir, "etc"), Environ: []string{},
	})
	for _, p := range layers.Attach(ctx, eng) {
		fmt.Println("problem:", p)
	}
	if err := layers.Watch(ctx, nil); err == nil {
		defer layers.Close()
	}
	for _, cmd := range []string{"make test", "git push --force origin main"} {
		d := eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "cwd": dir})
		rel, _ := filepath.Rel(dir, d.MatchedRule.Layer)
		fmt.Printf("%s: %s by %s (%s, %s)\n", cmd, d.Behavior, d.MatchedRule, d.MatchedRule.Source, rel)
	}
	// Output:
	// make test: ALLOW by Bash(make:*) (projectSettings, proj/.permopa/settings.yaml)
	// git push --force origin main: DENY by Bash(git push --force:*) (userSettings, user/settings.json)
}
