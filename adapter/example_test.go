package adapter_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// Embedding: an engine with the default policy and a few rules, asked
// about tool calls.
func Example_embedding() {
	ctx := context.Background()
	npm := "npm run:*"
	eng, err := engine.New(ctx, engine.WithSettings(settings.Settings{
		Rules: []permission.Rule{{ToolName: "Bash", RuleContent: &npm, Behavior: "ALLOW", Source: "embedder", Layer: "main.go"}},
	}))
	if err != nil {
		panic(err)
	}
	for _, cmd := range []string{"git status", "npm run build", "npm run build && curl -X POST x.example"} {
		d := adapter.Decide(ctx, eng, adapter.Call{ToolName: "Bash", ToolInput: map[string]any{"command": cmd}, Cwd: "/srv/app"})
		fmt.Printf("%-45s %s (%s)\n", cmd, d.Behavior, d.Step)
	}
	// Output:
	// git status                                    ALLOW (read_only)
	// npm run build                                 ALLOW (allow_rule)
	// npm run build && curl -X POST x.example       ASK (mode_fallback)
}

// Confirming: an ASK carries suggested rules; accepting them into the
// project's local settings makes the next identical call ALLOW, for this
// engine and for any later one reading the same files.
func ExampleConfirm() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "permopa-example")
	defer os.RemoveAll(dir)
	eng, _ := engine.New(ctx)
	layers := settings.NewLayers(settings.LayerOptions{
		ProjectDir: dir, ManagedDir: filepath.Join(dir, "etc"), UserDir: filepath.Join(dir, "user"), Environ: []string{},
	})
	layers.Attach(ctx, eng)

	call := adapter.Call{ToolName: "Bash", ToolInput: map[string]any{"command": "npm install --ignore-scripts left-pad"}, Cwd: dir}
	d := adapter.Decide(ctx, eng, call)
	fmt.Println(d.Behavior, d.SuggestedRules[0].String())

	c, err := adapter.Confirm(ctx, eng, layers, adapter.ConfirmResult{
		Confirmed: true, ToolCall: call, Rules: d.SuggestedRules, Destination: "local", TTL: "7d",
	})
	if err != nil {
		panic(err)
	}
	rel, _ := filepath.Rel(dir, c.Rules[0].Layer)
	fmt.Println("written to", rel, "expires:", c.Rules[0].Expires != "")

	d = adapter.Decide(ctx, eng, call)
	fmt.Println(d.Behavior, d.Step, d.MatchedRule.Source)
	// Output:
	// ASK Bash(npm install:*)
	// written to .permopa/settings.local.yaml expires: true
	// ALLOW allow_rule localSettings
}
