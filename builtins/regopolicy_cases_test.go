package builtins_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/cover"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// runRegoTests runs every Rego test of modules through OPA's tester, as
// `permopa test` does (with cov, measuring coverage), and returns how
// many passed and failed and a line for each failure (the tester's
// report) or inconsistency. With quick, the tests with test cases
// (test_x[name]) are judged by judgeCases instead, and those it does not
// pass run again through OPA's tester, whose verdict stands.
func runRegoTests(ctx context.Context, modules map[string]*ast.Module, cov *cover.Cover, quick bool) (passed, failed int, problems []string, err error) {
	store := inmem.New()
	txn := storage.NewTransactionOrDie(ctx, store)
	defer store.Abort(ctx, txn)

	compiler := ast.NewCompiler().WithEnablePrintStatements(true)
	runner := newRunner(compiler, store, modules)
	if cov != nil {
		runner = runner.SetCoverageQueryTracer(cov)
	}
	if quick {
		runner = runner.Filter(plainTestsFilter(modules))
	}
	judge := func(results []*tester.Result) {
		for _, r := range results {
			switch {
			case r.Error != nil:
				failed++
				problems = append(problems, fmt.Sprintf("%s.%s: error: %v", r.Package, r.Name, r.Error))
			case r.Fail:
				failed++
				problems = append(problems, fmt.Sprintf("%s.%s: FAIL (%s)\n%s", r.Package, r.Name, r.Location, r.SubResults))
			default:
				passed++
			}
		}
	}
	results, err := runTests(ctx, runner, txn)
	if err != nil {
		return 0, 0, nil, err
	}
	judge(results)
	if !quick {
		return passed, failed, problems, nil
	}
	// compiler is compiled now, with the tester's stages (its test-case
	// calls injected).
	var again []string
	total := 0
	for _, m := range compiler.Modules {
		for _, rule := range m.Rules {
			name, ok := testName(rule)
			if !ok {
				continue
			}
			total++
			if !hasCases(rule) {
				continue
			}
			if judgeCases(ctx, compiler, store, txn, rule) {
				passed++
			} else {
				again = append(again, regexp.QuoteMeta(name))
			}
		}
	}
	if len(again) > 0 {
		retry := newRunner(ast.NewCompiler().WithEnablePrintStatements(true), store, modules).
			Filter("^(?:" + strings.Join(again, "|") + ")$")
		results, err := runTests(ctx, retry, txn)
		if err != nil {
			return 0, 0, nil, err
		}
		if len(results) != len(again) {
			problems = append(problems, fmt.Sprintf("%d tests run again through OPA's tester, %d results", len(again), len(results)))
		}
		judge(results)
	}
	// Every test rule is judged once, one way or the other.
	if passed+failed != total {
		problems = append(problems, fmt.Sprintf("%d tests judged, %d test rules", passed+failed, total))
	}
	return passed, failed, problems, nil
}

// newRunner is OPA's tester as TestRegoPolicy runs it (`permopa test`'s
// settings: print statements, built-in errors raised).
func newRunner(c *ast.Compiler, store storage.Store, modules map[string]*ast.Module) *tester.Runner {
	return tester.NewRunner().
		SetCompiler(c).
		SetStore(store).
		SetModules(modules).
		RaiseBuiltinErrors(true).
		SetTimeout(2 * time.Minute)
}

// runTests runs the tests r selects and collects their results.
func runTests(ctx context.Context, r *tester.Runner, txn storage.Transaction) ([]*tester.Result, error) {
	ch, err := r.RunTests(ctx, txn)
	if err != nil {
		return nil, err
	}
	var out []*tester.Result
	for res := range ch {
		out = append(out, res)
	}
	return out, nil
}

// testName is the name OPA's tester runs rule under and filters it by
// (data.pkg.test_x: the package, then the rule's ground reference up to
// the first test_ or todo_test_ term), and whether rule is a test.
func testName(rule *ast.Rule) (string, bool) {
	var ref ast.Ref
	for _, term := range rule.Head.Ref().GroundPrefix() {
		ref = ref.Append(term)
		var n string
		switch v := term.Value.(type) {
		case ast.Var:
			n = string(v)
		case ast.String:
			n = string(v)
		}
		if strings.HasPrefix(n, tester.TestPrefix) || strings.HasPrefix(n, tester.SkipTestPrefix) {
			return rule.Module.Package.Path.Extend(ref).String(), true
		}
	}
	return "", false
}

// hasCases: rule is a test with test cases (test_x[name] if { some name ...
// }), not one to skip. OPA's tester evaluates such a test with a tracer
// that keeps the test-case events but, as a topdown.BufferTracer, asks the
// evaluator to plug the local variables into every event of the
// evaluation: about half the CPU of the whole run, which judgeCases does
// not spend.
func hasCases(rule *ast.Rule) bool {
	name, _ := testName(rule)
	i := strings.LastIndexByte(name, '.')
	return rule.Head.DocKind() == ast.PartialObjectDoc && strings.HasPrefix(name[i+1:], tester.TestPrefix)
}

// plainTestsFilter is the tester's filter that selects every test but
// those with test cases.
func plainTestsFilter(modules map[string]*ast.Module) string {
	var names []string
	for _, m := range modules {
		for _, rule := range m.Rules {
			if name, ok := testName(rule); ok && !hasCases(rule) {
				names = append(names, regexp.QuoteMeta(name))
			}
		}
	}
	if len(names) == 0 {
		return "^$"
	}
	return "^(?:" + strings.Join(names, "|") + ")$"
}

// caseTracer keeps the test-case events, as the tester's own tracer does,
// without asking for the local variables.
type caseTracer struct{ cases []*ast.Array }

func (*caseTracer) Enabled() bool               { return true }
func (*caseTracer) Config() topdown.TraceConfig { return topdown.TraceConfig{} }
func (c *caseTracer) TraceEvent(e topdown.Event) {
	if e.Op != topdown.TestCaseOp {
		return
	}
	if expr, ok := e.Node.(*ast.Expr); ok {
		if arr, ok := expr.Operand(0).Value.(*ast.Array); ok {
			c.cases = append(c.cases, arr)
		}
	}
}

// judgeCases evaluates a test with test cases on compiler (compiled by
// OPA's tester, so with its test-case calls) as the tester does, and
// passes it only when the tester would: the result is an object whose
// every leaf is true, and every test case the evaluation began is in it
// (a case whose body failed is missing). Anything else (an error, a
// built-in error, an undefined result, a case it cannot find) is not a
// pass: the test then runs again through OPA's tester (TestRegoPolicy),
// whose verdict stands (runRegoTests). TestQuickRegoTestsAgreeWithTester
// holds it to that.
func judgeCases(ctx context.Context, compiler *ast.Compiler, store storage.Store, txn storage.Transaction, rule *ast.Rule) bool {
	name, _ := testName(rule)
	var builtinErrors []topdown.Error
	var printed bytes.Buffer
	pq, err := rego.New(
		rego.Store(store),
		rego.Transaction(txn),
		rego.Compiler(compiler),
		rego.Query(name),
		rego.PrintHook(topdown.NewPrintHook(&printed)),
		rego.BuiltinErrorList(&builtinErrors),
	).PrepareForEval(ast.WithCompiler(ctx, compiler))
	if err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	tr := &caseTracer{}
	rs, err := pq.Eval(ast.WithCompiler(ctx, compiler), rego.EvalTransaction(txn), rego.EvalQueryTracer(tr))
	if err != nil || len(builtinErrors) > 0 || len(rs) == 0 || len(rs[0].Expressions) == 0 {
		return false
	}
	result, ok := rs[0].Expressions[0].Value.(map[string]any)
	if !ok || !allTrue(result) {
		return false
	}
	for _, c := range tr.cases {
		var at any = result
		for i := range c.Len() {
			obj, ok := at.(map[string]any)
			if !ok {
				return false
			}
			key, err := caseKey(c.Elem(i))
			if err != nil {
				return false
			}
			if at, ok = obj[key]; !ok {
				return false
			}
		}
	}
	return true
}

// allTrue: every leaf of v is the boolean true.
func allTrue(v map[string]any) bool {
	for _, x := range v {
		switch x := x.(type) {
		case map[string]any:
			if !allTrue(x) {
				return false
			}
		case bool:
			if !x {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// caseKey spells a test case's name as the tester keys its sub-results: a
// string as it is, anything else as JSON.
func caseKey(t *ast.Term) (string, error) {
	v, err := ast.JSON(t.Value)
	if err != nil {
		return "", err
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	if len(b) == 0 {
		return "", errors.New("empty key")
	}
	return string(b), nil
}

// casesModule holds tests with test cases of every shape judgeCases meets
// or should refuse, passing and failing, and two plain tests.
const casesModule = `package cases

cases := {"a": 1, "b": 2, "<c&d>": 3}

test_all_pass[name] if {
	some name, n in cases
	n > 0
}

test_one_case_fails[name] if {
	some name, n in cases
	n < 3
}

test_a_case_false[name] := ok if {
	some name, n in cases
	ok := n < 3
}

test_a_case_not_boolean[name] := n if {
	some name, n in cases
}

test_array_names[[x, y]] if {
	some x in ["p", "q"]
	some y in [1, 2]
}

test_array_names_one_fails[[x, y]] if {
	some x in ["p", "q"]
	some y in [1, 2]
	x != "q"
}

test_nested[x][y] if {
	some x in ["p"]
	some y in ["r", "s"]
}

test_nested_one_fails[x][y] if {
	some x in ["p"]
	some y in ["r", "s"]
	y != "s"
}

test_builtin_error[name] if {
	some name, n in cases
	to_number("x") > n
}

test_no_cases[name] if {
	some name, n in {}
	n
}

test_plain if true

test_plain_fails if false
`

// TestQuickRegoTestsAgreeWithTester: the quick way of running the Rego
// tests (judgeCases, then OPA's tester for what it does not pass) gives
// OPA's tester's verdict on every test, with its report, and judgeCases
// alone passes exactly the tests with test cases the tester passes.
func TestQuickRegoTestsAgreeWithTester(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, err := ast.ParseModule("cases_test.rego", casesModule)
	if err != nil {
		t.Fatal(err)
	}
	modules := map[string]*ast.Module{"cases_test.rego": m}
	wantPassed, wantFailed, wantProblems, err := runRegoTests(ctx, modules, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if wantPassed < 4 || wantFailed < 6 {
		t.Fatalf("OPA's tester: %d passed, %d failed; the module no longer has both kinds", wantPassed, wantFailed)
	}
	passed, failed, problems, err := runRegoTests(ctx, modules, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	// A built-in error prints the address of its location: not compared.
	addr := regexp.MustCompile(`0x[0-9a-f]+`)
	for _, ps := range [][]string{problems, wantProblems} {
		for i := range ps {
			ps[i] = addr.ReplaceAllString(ps[i], "0x")
		}
		sort.Strings(ps)
	}
	if passed != wantPassed || failed != wantFailed || !slices.Equal(problems, wantProblems) {
		t.Errorf("quick: %d passed, %d failed:\n%s\nOPA's tester: %d passed, %d failed:\n%s",
			passed, failed, strings.Join(problems, "\n"), wantPassed, wantFailed, strings.Join(wantProblems, "\n"))
	}

	// judgeCases alone, on the compiler the tester compiled, against the
	// tester's result of each test.
	store := inmem.New()
	txn := storage.NewTransactionOrDie(ctx, store)
	defer store.Abort(ctx, txn)
	compiler := ast.NewCompiler().WithEnablePrintStatements(true)
	results, err := runTests(ctx, newRunner(compiler, store, modules), txn)
	if err != nil {
		t.Fatal(err)
	}
	opaPasses := map[string]bool{}
	for _, r := range results {
		opaPasses[r.Package+"."+r.Name] = r.Error == nil && !r.Fail
	}
	withCases, passing := 0, 0
	for _, rule := range compiler.Modules["cases_test.rego"].Rules {
		name, ok := testName(rule)
		if !ok || !hasCases(rule) {
			continue
		}
		withCases++
		got := judgeCases(ctx, compiler, store, txn, rule)
		if want, ok := opaPasses[name]; !ok || got != want {
			t.Errorf("%s: judgeCases %v, OPA's tester passes it: %v (ran: %v)", name, got, want, ok)
		}
		if got {
			passing++
		}
	}
	if withCases < 8 || passing < 3 {
		t.Errorf("%d tests with test cases, %d passing: the module no longer has every shape", withCases, passing)
	}
}
