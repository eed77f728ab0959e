package builtins

import (
	"context"
	"fmt"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"
)

// Options adds the built-ins to one query, with or without Register (other
// tests in this binary register them globally).
func TestOptions(t *testing.T) {
	opts := append(Options(), rego.Query(`x := permopa.glob.match_any(["src/**"], ["src/a.go"], {"cwd": "/w", "mode": "all"})`))
	rs, err := rego.New(opts...).Eval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].Bindings["x"] == nil {
		t.Fatalf("result %v", rs)
	}
	if got := fmt.Sprint(rs[0].Bindings["x"]); got != "0" {
		t.Errorf("x = %v, want 0", got)
	}
}
