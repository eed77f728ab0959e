package permission_test

import (
	"errors"
	"fmt"

	"github.com/permopa/permopa/permission"
)

// A decision as `permopa decide` prints it or a server answers it.
func ExampleParseDecision() {
	line := []byte(`{"behavior": "ASK", "message": "Bash needs approval (mode DEFAULT)",
		"reason": "no rule or check decided; the mode asks", "step": "mode_fallback",
		"bypass_immune": false, "matched_rule": null,
		"suggested_rules": [{"tool_name": "Bash", "rule_content": "npm run build", "behavior": "ALLOW", "source": "suggested"}],
		"tool_use_id": "toolu_1"}`)
	d, err := permission.ParseDecision(line)
	if err != nil {
		fmt.Println("block:", err)
		return
	}
	switch d.Behavior {
	case permission.Allow:
		fmt.Println("run it")
	case permission.Ask:
		fmt.Println("ask; offer", d.SuggestedRules[0])
	default:
		fmt.Println("denied:", d.Message)
	}
	// Output: ask; offer Bash(npm run build)
}

// Anything that is not a decision is an error, never an ALLOW.
func ExampleParseDecision_notADecision() {
	_, err := permission.ParseDecision([]byte(`{"behavior": "allow"}`))
	fmt.Println(err)
	// Output: the decision has behavior "allow" (want ALLOW, DENY or ASK)
}

// A fault is a DENY with step "error" and a stable code.
func ExampleFailClosed() {
	d := permission.FailClosed(permission.CodeTimeout, "no decision within 5s")
	fmt.Println(d.Behavior, d.Step, d.Code)
	// Output: DENY error timeout
}

// A refused request carries a code a program can test.
func ExampleError() {
	var err error = permission.NewError(permission.CodeInvalidTTL, errors.New(`ttl "soon" does not parse`))
	var perr *permission.Error
	if errors.As(err, &perr) {
		fmt.Println(perr.Code+":", perr.Message)
	}
	// Output: invalid_ttl: ttl "soon" does not parse
}

func ExampleRule_String() {
	content := "npm run:*"
	fmt.Println(permission.Rule{ToolName: "Bash", RuleContent: &content, Behavior: permission.Allow})
	fmt.Println(permission.Rule{ToolName: "WebFetch", Behavior: permission.Deny})
	// Output:
	// Bash(npm run:*)
	// WebFetch
}
