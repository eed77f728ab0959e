package engine

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/open-policy-agent/opa/v1/ast"
)

// The decision cache's facts about a compiled policy (uncheckableBuiltins,
// runsDefaultPolicy) walk every module: they are found once per compiler,
// shared by every engine over it, give what the walk gives, and go when the
// compiler does.
func TestPolicyFactsOncePerCompiler(t *testing.T) {
	ctx := context.Background()
	var engines []*Engine
	for range 3 {
		e, err := New(ctx, WithDecisionCache(64, 1<<20))
		if err != nil {
			t.Fatal(err)
		}
		engines = append(engines, e)
	}
	c := engines[0].Compiler()
	for _, e := range engines[1:] {
		if e.Compiler() != c {
			t.Fatal("engines over the embedded policy alone do not share its compile")
		}
	}
	factsByCompiler.mu.Lock()
	f, ok := factsByCompiler.m[weak.Make(c)]
	factsByCompiler.mu.Unlock()
	if !ok {
		t.Fatal("no facts kept for the shared compiler after New")
	}
	if policyFactsOf(c) != f {
		t.Error("the facts of one compiler were found twice")
	}
	if got, want := f.uncheckable(c), uncheckableBuiltins(c); got != want || got != "" {
		t.Errorf("kept %q, the walk finds %q, want \"\" for the embedded policy", got, want)
	}
	if !f.runsDefault(c) {
		t.Error("the embedded policy's compile is not the default policy")
	}
	for _, e := range engines {
		if p := e.cachePolicy.Load(); p == nil || p.disabled != "" || !p.echoToolUseID {
			t.Errorf("engine's cache policy %+v, want enabled, echoing tool_use_id", p)
		}
	}

	// Another policy, with a non-deterministic built-in: its own facts,
	// which disable the cache.
	custom := ast.MustCompileModules(map[string]string{"p.rego": "package permopa.x\n\nr := rand.intn(\"k\", 9)\n"})
	if why := policyFactsOf(custom).uncheckable(custom); !strings.Contains(why, "rand.intn") {
		t.Errorf("a policy calling rand.intn: %q, want the cache disabled for it", why)
	}
	if policyFactsOf(custom).runsDefault(custom) {
		t.Error("a custom policy counted as the default one")
	}
	key := weak.Make(custom)
	custom = nil
	for i := 0; ; i++ {
		runtime.GC()
		factsByCompiler.mu.Lock()
		_, kept := factsByCompiler.m[key]
		factsByCompiler.mu.Unlock()
		if !kept {
			break
		}
		if i == 500 {
			t.Fatal("the facts of a collected compiler are still kept")
		}
		time.Sleep(time.Millisecond) // cleanups run on their own goroutine after a collection
	}
	runtime.KeepAlive(engines)
}
