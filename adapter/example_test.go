package adapter_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/settings"
)

// Embedding: an engine with the default policy and a few rules, asked
// about tool calls.
func Example_embedding() {
	ctx := context.Background()
	npm := "npm run:*"
	eng, err := engine.New(ctx, engine.WithSettings(settings.Settings{
		Rules: []engine.Rule{{ToolName: "Bash", RuleContent: &npm, Behavior: "ALLOW", Source: "embedder", Layer: "main.go"}},
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

	call := adapter.Call{ToolName: "Bash", ToolInput: map[string]any{"command": "npm install left-pad"}, Cwd: dir}
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

// The executor guard (ai4j's shape): a malformed call is rejected before
// the policy, a DENY is a tool error the model sees, an ASK is a typed
// error the host catches to ask a human.
func ExampleGuard() {
	ctx := context.Background()
	rm := "rm:*"
	eng, _ := engine.New(ctx, engine.WithSettings(settings.Settings{
		Rules: []engine.Rule{{ToolName: "Bash", RuleContent: &rm, Behavior: "DENY", Source: "embedder"}},
	}))
	shell := adapter.ExecutorFunc(func(_ context.Context, c adapter.Call) (string, error) {
		return "ran: " + c.ToolInput["command"].(string), nil
	})
	guard := adapter.NewGuard(adapter.EnginePolicy(eng), shell, adapter.EnvironmentSandbox)

	for _, call := range []adapter.Call{
		{ToolName: "Bash", ToolInput: map[string]any{"command": "ls -la"}, ToolUseID: "c1"},
		{ToolName: "Bash", ToolInput: map[string]any{}, ToolUseID: "c2"},
		{ToolName: "Bash", ToolInput: map[string]any{"command": "rm -r build"}, ToolUseID: "c3"},
		{ToolName: "Bash", ToolInput: map[string]any{"command": "make deploy"}, ToolUseID: "c4"},
	} {
		out, err := guard.Execute(ctx, call)
		var approval *adapter.ApprovalRequiredError
		switch {
		case errors.As(err, &approval):
			fmt.Println(call.ToolUseID, "ask the user:", approval.Decision.SuggestedRules[0].String())
			// The user says yes, once.
			if c, _ := adapter.Confirm(ctx, eng, nil, adapter.ConfirmResult{Confirmed: true, ToolCall: call}); c.Approved {
				out, _ = guard.RunApproved(ctx, call)
				fmt.Println(call.ToolUseID, out)
			}
		case err != nil:
			fmt.Println(call.ToolUseID, adapter.ToolErrorResult(call, err))
		default:
			fmt.Println(call.ToolUseID, out)
		}
	}
	// Output:
	// c1 ran: ls -la
	// c2 TOOL_ERROR: {"callId":"c2","error":"Bash requires a non-empty command","errorType":"invalid_tool_call","tool":"Bash"}
	// c3 TOOL_ERROR: {"callId":"c3","error":"Tool permission denied: Bash (Bash is denied by rule Bash(rm:*))","errorType":"permission_denied","tool":"Bash"}
	// c4 ask the user: Bash(make deploy)
	// c4 ran: make deploy
}

// The ai4j factories, and a step whose every call is denied: the host
// stops with ALL_TOOLS_DENIED.
func ExampleDecideStep() {
	ctx := context.Background()
	policy := adapter.AllOf(
		adapter.AllowTools("search", "weather", "bash"),
		adapter.RequireApprovalForTools([]string{"bash"}, "shell needs approval"),
	)
	step := adapter.DecideStep(ctx, policy, []adapter.Call{
		{ToolName: "bash", ToolInput: map[string]any{"command": "ls"}},
		{ToolName: "browser", ToolInput: map[string]any{"url": "https://x.example"}},
	})
	for i, d := range step.Decisions {
		fmt.Println(step.Calls[i].ToolName, d.Behavior, d.Message)
	}
	step.Resolve(0, adapter.Confirmation{Approved: false, Message: "Permission denied by user"})
	fmt.Println(step.StopReason())
	// Output:
	// bash ASK shell needs approval
	// browser DENY tool is not in the allow list
	// ALL_TOOLS_DENIED
}
