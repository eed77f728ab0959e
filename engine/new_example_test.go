package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/settings"
)

// engine.New reads no settings; LoadLayers reads the layers `permopa
// decide` reads. The zero LayerOptions are the command line's defaults
// (/etc/permopa, PERMOPA_* variables, the working directory's .permopa,
// ~/.config/permopa); here they point into a temporary tree so that the
// output does not depend on the machine.
func ExampleNew_layers() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "permopa-example")
	defer os.RemoveAll(dir)
	write := func(rel, content string) string {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
	write("etc/settings.yaml", "permissions:\n  deny: [\"Bash(curl:*)\"]\n")
	team := write("team.yaml", "permissions:\n  ask: [\"Bash(git push:*)\"]\n")
	write("proj/.permopa/settings.yaml", "permissions:\n  allow: [\"Bash(make test)\"]\n")
	write("home/.config/permopa/settings.yaml", "permissions:\n  allow: [\"Bash(npm install:*)\"]\n")

	// The user trusts the project (`permopa trust`): its allow rules count.
	digests, _ := settings.ProjectFileDigests(filepath.Join(dir, "proj"))
	_ = settings.RecordTrust(filepath.Join(dir, "home/.config/permopa"), filepath.Join(dir, "proj"), digests)

	bare, _ := engine.New(ctx)
	call := func(cmd string) map[string]any {
		return map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "cwd": filepath.Join(dir, "proj")}
	}
	fmt.Println("engine.New alone:", bare.Decide(ctx, call("make test")).Behavior)

	settings, problems := settings.LoadLayers(settings.LayerOptions{
		ManagedDir:  filepath.Join(dir, "etc"),                  // default /etc/permopa
		CommandLine: []string{team},                             // permopa decide --settings team.yaml
		Environ:     []string{"PERMOPA_DENY=Bash(rm -rf:*)"},    // default os.Environ()
		ProjectDir:  filepath.Join(dir, "proj"),                 // default the working directory
		UserDir:     filepath.Join(dir, "home/.config/permopa"), // default ~/.config/permopa
	})
	for _, p := range problems {
		fmt.Println("problem:", p)
	}
	eng, err := engine.New(ctx, engine.WithSettings(settings))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, cmd := range []string{"curl https://example.com", "git push", "rm -rf build", "make test", "npm install --ignore-scripts lodash"} {
		d := eng.Decide(ctx, call(cmd))
		fmt.Printf("%s: %s by %s (%s)\n", cmd, d.Behavior, d.MatchedRule, d.MatchedRule.Source)
	}
	// Output:
	// engine.New alone: ASK
	// curl https://example.com: DENY by Bash(curl:*) (managedSettings)
	// git push: ASK by Bash(git push:*) (cliSettings)
	// rm -rf build: DENY by Bash(rm -rf:*) (envSettings)
	// make test: ALLOW by Bash(make test) (projectSettings)
	// npm install --ignore-scripts lodash: ALLOW by Bash(npm install:*) (userSettings)
}
