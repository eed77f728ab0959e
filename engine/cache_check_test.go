package engine

import (
	"fmt"
	"hash/fnv"
	"maps"
	"os"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/permopa/permopa/builtins"
	"github.com/permopa/permopa/permission"
)

// Every suite of this package runs with the decision cache on, checked:
// an answer the cache serves (a hit), and the answer it would serve right
// after storing one, is compared with an evaluation of the same input over
// the same state; TestMain fails the run on any difference. With -tags
// slow (.ci/run) or PERMOPA_TEST_CACHE=all every answer is checked, so
// every decision of the matrix, adversarial, security and semantics tables
// is the same with the cache on and off; the quick suite checks a sample
// that covers every class of answer (cacheCheckSampled): the check
// evaluates again and replays the recorded file system reads again
// (docs/benchmarks-log.md, "The quick suite"). PERMOPA_TEST_CACHE=off runs the tests
// without the cache, and so do benchmarks (-test.bench): they measure a
// decision as users get it, where a checked hit would evaluate twice.

var cacheMismatches struct {
	sync.Mutex
	list []string
}

func init() {
	if os.Getenv("PERMOPA_TEST_CACHE") == "off" || benchmarking(os.Args[1:]) {
		return
	}
	testDefaultCache = true
	if !cacheCheckAll && os.Getenv("PERMOPA_TEST_CACHE") != "all" {
		testCacheSampled = cacheCheckSampled
	}
	testCacheCheck = func(input ast.Value, cached, fresh permission.Decision) {
		if reflect.DeepEqual(cached, fresh) {
			return
		}
		cacheMismatches.Lock()
		defer cacheMismatches.Unlock()
		cacheMismatches.list = append(cacheMismatches.list, fmt.Sprintf("input %v\n  cached %+v\n  fresh  %+v", input, cached, fresh))
	}
}

// checkedClasses are the classes of answer the quick suite has checked.
var checkedClasses sync.Map

// cacheCheckSampled picks the answers the quick suite checks: a fixed
// sixteenth of the calls (by a hash of the cache key, so the same calls in
// every run), and the first answer of each class, a class being a hit or a
// store with its behavior, step, check and the names of the file system
// built-ins it was recorded with; so every kind of answer, and every kind
// of recorded read Replay repeats, is checked in every run.
func cacheCheckSampled(key string, hit bool, d permission.Decision, rec *builtins.Recording) bool {
	h := fnv.New32a()
	h.Write([]byte(key))
	if h.Sum32()%16 == 0 {
		return true
	}
	names := map[string]bool{}
	for _, c := range rec.Calls {
		names[c.Name] = true
	}
	class := fmt.Sprintf("%t %s %s %s %v", hit, d.Behavior, d.Step, d.Check, slices.Sorted(maps.Keys(names)))
	_, seen := checkedClasses.LoadOrStore(class, true)
	return !seen
}

// benchmarking reports whether args run benchmarks (-test.bench with a
// pattern).
func benchmarking(args []string) bool {
	for i, a := range args {
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name != "test.bench" {
			continue
		}
		if !hasValue && i+1 < len(args) {
			value = args[i+1]
		}
		return value != ""
	}
	return false
}

func TestMain(m *testing.M) {
	// permopa's built-ins are registered before any test runs, as the
	// binary does first thing: registering changes OPA's global built-in and
	// interning tables, which tests running in parallel read while they
	// parse and decide. Not in the fresh process of
	// TestBuiltinNamesIndexedWithPermopas, which checks what a first parse
	// does without it.
	if os.Getenv("PERMOPA_TABLES_FRESH") == "" {
		builtins.Register()
	}
	// The tests allocate much (policy compiles, thousands of decisions)
	// and keep little: with the collector at 400 % instead of Go's 100 %
	// the package takes about a quarter less CPU (docs/development.md,
	// "The quick suite"), for some 400 MB of peak memory instead of 220.
	// Not when GOGC is set or benchmarks run (they measure a decision as
	// users get it), nor under -race (testGCPercent).
	if testGCPercent > 0 && os.Getenv("GOGC") == "" && !benchmarking(os.Args[1:]) {
		debug.SetGCPercent(testGCPercent)
	}
	code := m.Run()
	for _, f := range slices.Backward(atTestExit.list) {
		f()
	}
	cacheMismatches.Lock()
	defer cacheMismatches.Unlock()
	if n := len(cacheMismatches.list); n > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: the decision cache answered %d calls differently from an evaluation:\n", n)
		for _, s := range cacheMismatches.list[:min(n, 20)] {
			fmt.Fprintln(os.Stderr, s)
		}
		code = 1
	}
	os.Exit(code)
}

var atTestExit struct {
	sync.Mutex
	list []func()
}

// AtTestExit runs f when every test of the binary has run (TestMain),
// for fixtures built once and shared by tests that do not run at the
// same time.
func AtTestExit(f func()) {
	atTestExit.Lock()
	defer atTestExit.Unlock()
	atTestExit.list = append(atTestExit.list, f)
}

// The cache leaves tool_use_id out of its key under the embedded policy
// (cache.go, echoToolUseID) because the policy only copies it into the
// decision: decision.rego is the only module that names it.
func TestEmbeddedPolicyOnlyCopiesToolUseID(t *testing.T) {
	mods := defaultModules()
	if len(mods) == 0 {
		t.Fatal("the embedded policy did not compile")
	}
	for name, m := range mods {
		n := 0
		ast.WalkTerms(m, func(x *ast.Term) bool {
			if s, ok := x.Value.(ast.String); ok && s == "tool_use_id" {
				n++
			}
			return false
		})
		if name == "rego/permopa/policy/decision.rego" {
			if n == 0 {
				t.Errorf("%s no longer names tool_use_id", name)
			}
		} else if n > 0 {
			t.Errorf("%s reads tool_use_id: the decision cache's key must then keep it (cache.go, echoToolUseID)", name)
		}
	}
}
