package explain_test

import (
	"context"
	"fmt"

	"github.com/permopa/permopa/adapter/explain"
	"github.com/permopa/permopa/engine"
)

// What each decision point saw for a read-only Bash command.
func ExampleDecide() {
	ctx := context.Background()
	eng, err := engine.New(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	ex, err := explain.Decide(ctx, eng, map[string]any{
		"tool_name": "Bash", "tool_input": map[string]any{"command": "git status"}, "cwd": "/srv/app",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ex.Decision.Behavior, ex.Decision.Step)
	for _, p := range ex.Points {
		fmt.Println(p.Point, p.Step, p.Status)
	}
	// Output:
	// ALLOW read_only
	// 1 deny_rule passed
	// 2 ask_rule passed
	// 3 read_only decided
	// 4 tool_check not reached
	// 5 allow_rule not reached
	// 6 mode_fallback not reached
}
