package permission_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/permopa/permopa/permission"
)

// codeConstants are the Code* constants of this package, name by value,
// read from its source so that a new constant cannot escape the check.
func codeConstants(t *testing.T) map[string]string {
	t.Helper()
	return constants(t, "Code")
}

// constants are the constants of this package whose name starts with
// prefix, name by value.
func constants(t *testing.T, prefix string) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if !strings.HasPrefix(id.Name, prefix) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok {
						t.Fatalf("%s is not a string literal", id.Name)
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					if prev, dup := consts[v]; dup {
						t.Errorf("%q is both %s and %s", v, prev, id.Name)
					}
					consts[v] = id.Name
				}
			}
		}
	}
	return consts
}

// documentedCodes are the codes in the first column of the tables of
// docs/api.md's "Error codes" section.
func documentedCodes(t *testing.T) []string {
	t.Helper()
	return documented(t, "### Error codes")
}

// documented is the first column of the tables of docs/api.md's section
// headed heading, up to the next heading of its level or above.
func documented(t *testing.T, heading string) []string {
	t.Helper()
	data, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	start := strings.Index(doc, "\n"+heading+"\n")
	if start < 0 {
		t.Fatalf("docs/api.md has no %q section", heading)
	}
	section := doc[start+1+len(heading):]
	level := heading[:strings.Index(heading, " ")]
	for i := len(level); i >= 2; i-- {
		if end := strings.Index(section, "\n"+level[:i]+" "); end >= 0 {
			section = section[:end]
		}
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|")
	var ids []string
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// camelName is the constant's name for a code or check id: prefix and the
// id in CamelCase.
func camelName(prefix, v string) string {
	camel := ""
	for _, w := range strings.Split(v, "_") {
		camel += strings.ToUpper(w[:1]) + w[1:]
	}
	return prefix + strings.ReplaceAll(strings.ReplaceAll(camel, "Json", "JSON"), "Ttl", "TTL")
}

// TestDocumentedCodes holds docs/api.md's lists of error codes and the
// constants together: every constant is documented, every documented code
// is a constant, each constant is named after its code (Code + the code in
// CamelCase), and every error reason the default policy writes is a code.
func TestDocumentedCodes(t *testing.T) {
	consts := codeConstants(t)
	if len(consts) == 0 {
		t.Fatal("no Code constants found")
	}
	documented := documentedCodes(t)
	for _, c := range documented {
		if _, ok := consts[c]; !ok {
			t.Errorf("docs/api.md lists code %q, which is no constant of package permission", c)
		}
	}
	for v, name := range consts {
		if !slices.Contains(documented, v) {
			t.Errorf("%s = %q is not listed in docs/api.md's Error codes", name, v)
		}
		if want := camelName("Code", v); name != want {
			t.Errorf("constant %s for code %q: want it named %s", name, v, want)
		}
	}

	// The policy's own faults: `"reason": "<code>"` next to `"step": "error"`.
	policy, err := filepath.Glob("../rego/permopa/policy/*.rego")
	if err != nil {
		t.Fatal(err)
	}
	reason := regexp.MustCompile(`"reason":\s*"([a-z_]+)",\s*"step":\s*"error"`)
	found := 0
	for _, name := range policy {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range reason.FindAllStringSubmatch(string(data), -1) {
			found++
			if _, ok := consts[m[1]]; !ok {
				t.Errorf("%s denies with code %q, which is no constant of package permission", name, m[1])
			}
		}
	}
	if found == 0 {
		t.Error(`found no "reason": <code>, "step": "error" in the policy; the check above is blind`)
	}
}

// TestDocumentedSteps holds the decision's steps together: every "step"
// the default policy writes is a Step constant of package permission, and
// every Step constant is listed in docs/api.md's row for `step`.
func TestDocumentedSteps(t *testing.T) {
	consts := map[string]bool{}
	for _, v := range []string{
		permission.StepDenyRule, permission.StepDenyRuleUncertain, permission.StepAskRule, permission.StepReadOnly,
		permission.StepToolCheck, permission.StepAllowRule, permission.StepModeFallback, permission.StepError,
	} {
		consts[v] = true
	}
	data, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `step` \\|(.*)$").FindStringSubmatch(string(data))
	if row == nil {
		t.Fatal("docs/api.md has no row for `step`")
	}
	for v := range consts {
		if !strings.Contains(row[1], "`"+v+"`") {
			t.Errorf("step %q is not listed in docs/api.md's row for `step`", v)
		}
	}
	policy, err := filepath.Glob("../rego/permopa/policy/*.rego")
	if err != nil {
		t.Fatal(err)
	}
	step := regexp.MustCompile(`"step":\s*"([a-z_]+)"`)
	found := 0
	for _, name := range policy {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range step.FindAllStringSubmatch(string(data), -1) {
			found++
			if !consts[m[1]] {
				t.Errorf("%s decides at step %q, which is no Step constant of package permission", name, m[1])
			}
		}
	}
	if found == 0 {
		t.Error(`found no "step": in the policy; the check above is blind`)
	}
}

// policyCheckIDs are the check ids the default policy writes, by file: the
// "id" of a tool check's outcome (tools/*/*.rego), the id a custom or host
// check is given (_normalise(..., "id") in other.rego), and the "check" a
// decision sets itself (decision.rego, from rules.uncertain_check in
// rules.rego).
func policyCheckIDs(t *testing.T) map[string][]string {
	t.Helper()
	written := regexp.MustCompile(`"(?:id|check)":\s*"([a-z_]+)"|_normalise\([^()]*,\s*"([a-z_]+)"\)|uncertain_check\[b\] := "([a-z_]+)"`)
	ids := map[string][]string{}
	err := filepath.WalkDir("../rego/permopa/policy", func(name string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(name, ".rego") {
			return err
		}
		data, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		for _, m := range written.FindAllStringSubmatch(string(data), -1) {
			ids[name] = append(ids[name], m[1]+m[2]+m[3])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestDocumentedCheckIds holds the check ids together (docs/api.md,
// "Check ids"): every Check constant is documented and named after its id,
// every documented id is a constant, every id the default policy writes
// is one, and every constant is written by the policy. That each is
// decided by some call is TestEveryCheckIdIsDecided (engine).
func TestDocumentedCheckIds(t *testing.T) {
	consts := constants(t, "Check")
	if len(consts) == 0 {
		t.Fatal("no Check constants found")
	}
	documented := documented(t, "### Check ids")
	seen := map[string]bool{}
	for _, c := range documented {
		if seen[c] {
			t.Errorf("docs/api.md lists check id %q twice", c)
		}
		seen[c] = true
		if _, ok := consts[c]; !ok {
			t.Errorf("docs/api.md lists check id %q, which is no constant of package permission", c)
		}
	}
	for v, name := range consts {
		if !seen[v] {
			t.Errorf("%s = %q is not listed in docs/api.md's Check ids", name, v)
		}
		if want := camelName("Check", v); name != want {
			t.Errorf("constant %s for check id %q: want it named %s", name, v, want)
		}
	}
	written := map[string]bool{}
	for name, ids := range policyCheckIDs(t) {
		for _, id := range ids {
			written[id] = true
			if _, ok := consts[id]; !ok {
				t.Errorf("%s writes check id %q, which is no constant of package permission", name, id)
			}
		}
	}
	for v, name := range consts {
		if !written[v] {
			t.Errorf("%s = %q is written nowhere in the policy", name, v)
		}
	}
}

// TestHTTPStatuses holds docs/api.md's "HTTP" column to the one map of
// statuses (Error.HTTPStatus): every code of that table answers the status
// it shows and is in the map; every code of the map is in that table, or
// is a decision code whose row says "also an HTTP <status>"; every code
// that is not a decision code has a status.
func TestHTTPStatuses(t *testing.T) {
	data, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| ([0-9]{3}) \\|")
	also := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|[^|]*\\|.*also an HTTP ([0-9]{3})")
	documented := map[string]int{}
	for _, m := range append(row.FindAllStringSubmatch(string(data), -1), also.FindAllStringSubmatch(string(data), -1)...) {
		status, _ := strconv.Atoi(m[2])
		documented[m[1]] = status
	}
	if len(documented) < 10 {
		t.Fatalf("docs/api.md: found %d codes with an HTTP status; the check is blind", len(documented))
	}
	for code, status := range documented {
		if _, ok := permission.HTTPStatuses[code]; !ok {
			t.Errorf("docs/api.md: %s answers %d, but it has no status in permission's map", code, status)
		}
		if got := (&permission.Error{Code: code}).HTTPStatus(); got != status {
			t.Errorf("docs/api.md: %s answers %d; Error.HTTPStatus says %d", code, status, got)
		}
	}
	for code := range permission.HTTPStatuses {
		if _, ok := documented[code]; !ok {
			t.Errorf("%s has a status in permission's map but none in docs/api.md", code)
		}
	}
	// The decision codes: the rows of the first table, whose second
	// column is where the code comes from, not a status.
	decision := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| [a-z`]")
	isDecision := map[string]bool{}
	for _, m := range decision.FindAllStringSubmatch(string(data), -1) {
		isDecision[m[1]] = true
	}
	if !isDecision[permission.CodeTimeout] {
		t.Fatal("docs/api.md: timeout is no decision code; the check below is blind")
	}
	for code, name := range codeConstants(t) {
		if isDecision[code] {
			continue
		}
		if _, ok := permission.HTTPStatuses[code]; !ok {
			t.Errorf("%s = %q refuses a request but has no HTTP status in permission's map", name, code)
		}
	}
}
