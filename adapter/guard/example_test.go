package guard_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/adapter/guard"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// The executor guard (ai4j's shape): a malformed call is rejected before
// the policy, a DENY is a tool error the model sees, an ASK is a typed
// error the host catches to ask a human.
func ExampleGuard() {
	ctx := context.Background()
	rm := "rm:*"
	eng, _ := engine.New(ctx, engine.WithSettings(settings.Settings{
		Rules: []permission.Rule{{ToolName: "Bash", RuleContent: &rm, Behavior: "DENY", Source: "embedder"}},
	}))
	shell := guard.ExecutorFunc(func(_ context.Context, c adapter.Call) (string, error) {
		return "ran: " + c.ToolInput["command"].(string), nil
	})
	g := guard.New(guard.EnginePolicy(eng), shell, guard.EnvironmentSandbox)

	for _, call := range []adapter.Call{
		{ToolName: "Bash", ToolInput: map[string]any{"command": "ls -la"}, ToolUseID: "c1"},
		{ToolName: "Bash", ToolInput: map[string]any{}, ToolUseID: "c2"},
		{ToolName: "Bash", ToolInput: map[string]any{"command": "rm -r build"}, ToolUseID: "c3"},
		{ToolName: "Bash", ToolInput: map[string]any{"command": "make deploy"}, ToolUseID: "c4"},
	} {
		out, err := g.Execute(ctx, call)
		var approval *guard.ApprovalRequiredError
		switch {
		case errors.As(err, &approval):
			fmt.Println(call.ToolUseID, "ask the user:", approval.Decision.SuggestedRules[0].String())
			// The user says yes, once.
			if c, _ := adapter.Confirm(ctx, eng, nil, adapter.ConfirmResult{Confirmed: true, ToolCall: call}); c.Approved {
				out, _ = g.RunApproved(ctx, call)
				fmt.Println(call.ToolUseID, out)
			}
		case err != nil:
			fmt.Println(call.ToolUseID, guard.ToolErrorResult(call, err))
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
	policy := guard.AllOf(
		guard.AllowTools("search", "weather", "bash"),
		guard.RequireApprovalForTools([]string{"bash"}, "shell needs approval"),
	)
	step := guard.DecideStep(ctx, policy, []adapter.Call{
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
