package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
)

var registerStall = sync.OnceFunc(func() {
	// A built-in that ignores its context, as a parser busy with a huge
	// input does.
	rego.RegisterBuiltin1(&rego.Function{
		Name: "permopa_replay_test.stall",
		Decl: types.NewFunction(types.Args(types.N), types.B),
	}, func(_ rego.BuiltinContext, a *ast.Term) (*ast.Term, error) {
		ms, _ := a.Value.(ast.Number).Int()
		time.Sleep(time.Duration(ms) * time.Millisecond)
		return ast.BooleanTerm(true), nil
	})
})

const stallPolicy = `package permopa.policy

decision := {"behavior": "ALLOW", "message": "late", "reason": "late", "step": "read_only", "suggested_rules": []} if permopa_replay_test.stall(input.tool_input.stall_ms)
`

// TestReplayTimeoutIsReported: a call the candidate (or the base) policy
// gives no decision for within its deadline is listed as TIMEOUT with the
// engine's DENY, counted apart, never as a DENY that narrowed the call,
// and trips both gates unless it was already ALLOW; the traced decision
// of a call with a masked field has the same deadline.
func TestReplayTimeoutIsReported(t *testing.T) {
	t.Parallel()
	registerStall()
	policy := filepath.Join(t.TempDir(), "stall.rego")
	if err := os.WriteFile(policy, []byte(stallPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.WithoutDefaultPolicy(), engine.WithPolicyPaths(policy), engine.WithTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	line := func(id string, stall int, recorded string, erased ...string) {
		ev := map[string]any{
			"input":  map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "ls", "stall_ms": stall}, "tool_use_id": id, "cwd": "/tmp"},
			"result": map[string]any{"behavior": recorded, "step": "mode_fallback"},
		}
		if len(erased) > 0 {
			ev["custom"] = map[string]any{"permopa_erased": erased}
		}
		b, _ := json.Marshal(ev)
		log.Write(append(b, '\n'))
	}
	line("quick", 0, "ASK")
	line("slow", 30000, "ASK")
	line("slow-allowed", 30000, "ALLOW")
	line("slow-masked", 30000, "DENY", "/input/tool_input/content")
	src := Source{Name: "log", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(log.Bytes())), nil }}
	calls := map[string]*Call{}
	widened := &GateCounter{Gate: GateAllowWidened}
	anyChange := &GateCounter{Gate: GateAny}
	sum, err := Run(ctx, []Source{src}, Options{Candidate: eng, Jobs: 2, OnCall: func(c *Call) error {
		calls[c.ToolUseID] = c
		widened.Add(c)
		anyChange.Add(c)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if c := calls["quick"]; c == nil || c.Change != Widened {
		t.Errorf("the quick call: %+v, want widened", c)
	}
	for _, id := range []string{"slow", "slow-allowed", "slow-masked"} {
		c := calls[id]
		if c == nil || c.Change != TimedOut || c.New == nil || c.New.Behavior != permission.Deny || c.New.Code != permission.CodeTimeout {
			t.Errorf("%s: %+v, want a TIMEOUT with the engine's DENY (code timeout)", id, c)
		}
	}
	if sum.TimedOut != 3 || sum.Narrowed != 0 || sum.Widened != 1 || sum.Behaviors["ASK → TIMEOUT"] != 1 || sum.Behaviors["ASK → DENY"] != 0 || sum.Changed() != 4 {
		t.Errorf("summary %+v: want 3 timed out, counted apart from narrowed calls", sum)
	}
	if widened.Calls != 3 || anyChange.Calls != 4 {
		t.Errorf("gates: allow-widened %d (want the widened call and the 2 timed out that were not ALLOW), any %d (want 4)", widened.Calls, anyChange.Calls)
	}
	var out bytes.Buffer
	rep := NewTextReport(&out, ReportOptions{})
	_ = rep.Call(calls["slow"])
	_ = rep.Finish(sum)
	for _, want := range []string{"TIMEOUT Bash", "code timeout", "3 calls had no decision within the deadline", "ASK → TIMEOUT"} {
		if !bytes.Contains(out.Bytes(), []byte(want)) {
			t.Errorf("the text report does not say %q:\n%s", want, out.String())
		}
	}
}

// TestInsightsTimeoutIsNoDenial: a call the policy gives no decision for
// within its deadline is counted as timed out, in no breakdown, never as
// a DENY.
func TestInsightsTimeoutIsNoDenial(t *testing.T) {
	t.Parallel()
	registerStall()
	policy := filepath.Join(t.TempDir(), "stall.rego")
	if err := os.WriteFile(policy, []byte(stallPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var log bytes.Buffer
	for _, stall := range []int{0, 30000} {
		b, _ := json.Marshal(map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "ls", "stall_ms": stall}, "cwd": "/tmp"})
		log.Write(append(b, '\n'))
	}
	src := Source{Name: "log", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(log.Bytes())), nil }}
	in, err := RunInsights(ctx, []Source{src}, InsightsOptions{Jobs: 2, Engine: func(ctx context.Context) (*engine.Engine, error) {
		return engine.New(ctx, engine.WithoutDefaultPolicy(), engine.WithPolicyPaths(policy), engine.WithTimeout(time.Second))
	}})
	if err != nil {
		t.Fatal(err)
	}
	if in.Calls != 2 || in.TimedOut != 1 || in.Behaviors[permission.Allow] != 1 || in.Behaviors[permission.Deny] != 0 {
		t.Errorf("%d calls, %d timed out, behaviors %v; want the stalled call timed out, not denied", in.Calls, in.TimedOut, in.Behaviors)
	}
}
