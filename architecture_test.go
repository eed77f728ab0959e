package permopa_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The module path; packages are named relative to it below.
const modulePath = "github.com/permopa/permopa"

// goListed is what `go list -json` says of one package (tests excluded).
type goListed struct {
	ImportPath                string
	Dir, Doc                  string
	Imports, Deps             []string
	TestGoFiles, XTestGoFiles []string
}

// modulePackages is `go list -json ./...` over the module, run once for
// the tests of this package (each `go list` loads the whole import graph
// again).
var modulePackages struct {
	once sync.Once
	pkgs []goListed
	err  error
}

// listPackages returns what `go list -json` says of the module's packages
// matched by patterns ("./...", "./dir/..." or "./dir"), in go list's
// order; a pattern that matches no package fails the test.
func listPackages(t *testing.T, patterns ...string) []goListed {
	t.Helper()
	modulePackages.once.Do(func() {
		out, err := exec.Command("go", "list", "-json=ImportPath,Dir,Doc,Imports,Deps,TestGoFiles,XTestGoFiles", "./...").Output()
		if err != nil {
			modulePackages.err = fmt.Errorf("go list ./...: %w", err)
			return
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		for dec.More() {
			var p goListed
			if err := dec.Decode(&p); err != nil {
				modulePackages.err = err
				return
			}
			modulePackages.pkgs = append(modulePackages.pkgs, p)
		}
	})
	if modulePackages.err != nil {
		t.Fatal(modulePackages.err)
	}
	var pkgs []goListed
	for _, pattern := range patterns {
		n := 0
		for _, p := range modulePackages.pkgs {
			rel, _ := ours(p.ImportPath)
			if matches(rel, pattern) {
				pkgs = append(pkgs, p)
				n++
			}
		}
		if n == 0 {
			t.Fatalf("go list %s: no package of the module matches", pattern)
		}
	}
	return pkgs
}

// matches reports whether the package rel (relative to the module) is
// matched by a go list pattern "./...", "./dir/..." or "./dir".
func matches(rel, pattern string) bool {
	pattern = strings.TrimPrefix(pattern, "./")
	if pattern == "..." {
		return true
	}
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		return under(rel, dir)
	}
	return rel == strings.TrimSuffix(pattern, "/")
}

// ours is pkg relative to the module ("" for the root), and whether it is
// one of the module's packages.
func ours(pkg string) (string, bool) {
	if pkg == modulePath {
		return "", true
	}
	rel, ok := strings.CutPrefix(pkg, modulePath+"/")
	return rel, ok
}

func under(rel, dir string) bool { return rel == dir || strings.HasPrefix(rel, dir+"/") }

// layer places each package of the module in the layers of
// docs/architecture.md, lowest first: imports point only downwards (the
// adapters may also use each other). Internal packages are used from any
// layer and use nothing above the engine. A package that fits no layer
// fails the test: place it here and in docs/architecture.md.
func layer(rel string) (int, bool) {
	switch {
	case rel == "permission", rel == "rego", rel == "", under(rel, "builtins"), under(rel, "internal"):
		// "": the root package permopa, the embedded schemas (schemas.go).
		return 0, true
	case under(rel, "rego"): // rego/tables
		return 1, true
	case under(rel, "settings"):
		return 2, true
	case under(rel, "engine"):
		return 3, true
	case under(rel, "adapter"), rel == "replay":
		return 4, true
	case under(rel, "cmd"):
		return 5, true
	}
	return 0, false
}

// TestDependencyRule holds docs/architecture.md's dependency rule over
// every package of the module: cmd → adapters → engine → (settings) →
// rego, builtins, with the wire types (permission) at the bottom; the
// built-ins and the wire types know nothing above them; the hook
// protocols and the small hook client link no OPA and no engine.
func TestDependencyRule(t *testing.T) {
	pkgs := listPackages(t, "./...")
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages", len(pkgs))
	}
	for _, p := range pkgs {
		rel, _ := ours(p.ImportPath)
		if under(rel, "e2e") || under(rel, "tools") {
			continue // host end-to-end harnesses and tool modules, not the product
		}
		mine, ok := layer(rel)
		if !ok {
			t.Errorf("%s fits no layer of docs/architecture.md; place it in architecture_test.go's layer()", rel)
			continue
		}
		for _, imp := range p.Imports {
			irel, ok := ours(imp)
			if !ok {
				continue
			}
			theirs, known := layer(irel)
			switch {
			case !known:
				// reported as a package of its own
			case under(rel, "builtins") && !under(irel, "builtins"):
				t.Errorf("%s imports %s: the built-ins know nothing above them", rel, irel)
			case rel == "permission" || under(rel, "internal") && theirs > 0:
				t.Errorf("%s imports %s: it stands below every layer", rel, irel)
			case theirs > mine, theirs == mine && mine != 4 && mine != 0:
				t.Errorf("%s imports %s: imports point from cmd to adapters to engine to rego and builtins, never back", rel, irel)
			}
		}
	}

	// The wire types and the hook side stay free of OPA and of the engine:
	// the small client starts fast (docs/hosts.md) and a program that only
	// reads decisions links nothing else.
	for _, p := range listPackages(t, "./permission", "./adapter/hookproto", "./cmd/permopa-hook") {
		for _, d := range p.Deps {
			rel, mine := ours(d)
			if strings.Contains(d, "open-policy-agent") || mine && (under(rel, "engine") || rel == "adapter" || under(rel, "settings") || rel == "rego") {
				t.Errorf("%s depends on %s", p.ImportPath, d)
			}
			if p.ImportPath == modulePath+"/permission" && strings.Contains(d, ".") {
				t.Errorf("permission depends on %s: it imports the standard library only", d)
			}
		}
	}

	// The settings read and write files and build the document the policy
	// reads; they evaluate no policy, so they import no part of OPA of
	// their own: what OPA they link comes through the built-ins'
	// registration, which rego/tables needs before parsing the policy.
	for _, p := range listPackages(t, "./settings") {
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, "github.com/open-policy-agent/") {
				t.Errorf("settings imports %s: it evaluates no policy and reads the policy's tables through rego/tables", imp)
			}
		}
	}
	// engine → settings: if the engine stopped using the settings, the
	// layers above changed; update docs/architecture.md and layer().
	if eng := listPackages(t, "./engine"); len(eng) != 1 || !slices.Contains(eng[0].Imports, modulePath+"/settings") {
		t.Errorf("engine does not import settings: the dependency rule of docs/architecture.md changed; update it and this test")
	}
}

// TestBuildOrderCoversThePrograms holds buildorder_test.go's imports to
// what the module's programs link: every package a command depends on is
// compiled before this package's slow tests run (the file is built with
// -tags slow only, so the quick suite checks it as the slow suite builds it).
func TestBuildOrderCoversThePrograms(t *testing.T) {
	out, err := exec.Command("go", "list", "-tags", "slow", "-deps", "-test", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -tags slow -deps -test .: %v", err)
	}
	here := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		here[p] = true
	}
	for _, prog := range listPackages(t, "./cmd/...") {
		for _, d := range append(prog.Deps, prog.Imports...) {
			if stdlib(d) || here[d] || strings.HasPrefix(d, modulePath+"/cmd/") {
				continue
			}
			t.Errorf("%s links %s, which buildorder_test.go does not import (directly or not)", prog.ImportPath, d)
		}
	}
}

// stdlib reports whether pkg is in the standard library (no dot in its
// first element), as go list's Standard field would.
func stdlib(pkg string) bool {
	first, _, _ := strings.Cut(pkg, "/")
	return !strings.Contains(first, ".")
}

// TestImportFacts holds docs/architecture.md's table of imports ("The
// dependency rule") to `go list`: for each package listed, the packages of
// this module it imports (exactly), and its OPA packages ("none", "yes",
// or exactly the ones listed).
func TestImportFacts(t *testing.T) {
	data, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	start := strings.Index(doc, "\n## The dependency rule\n")
	if start < 0 {
		t.Fatal(`docs/architecture.md has no "The dependency rule" section`)
	}
	section := doc[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z/-]+)` \\| ([^|]+) \\| ([^|]+) \\|$")
	rows := row.FindAllStringSubmatch(section, -1)
	if len(rows) < 15 {
		t.Fatalf("docs/architecture.md: %d rows of the import table; the check is blind", len(rows))
	}
	names := regexp.MustCompile("`([a-z/-]+)`")
	listed := func(cell string) []string {
		var out []string
		for _, m := range names.FindAllStringSubmatch(cell, -1) {
			out = append(out, m[1])
		}
		if strings.Contains(cell, "the root package `permopa`") {
			out = slices.DeleteFunc(out, func(s string) bool { return s == "permopa" })
			out = append(out, "")
		}
		slices.Sort(out)
		return out
	}
	var pkgs []string
	for _, r := range rows {
		pkgs = append(pkgs, "./"+r[1])
	}
	imports := map[string][]string{}
	for _, p := range listPackages(t, pkgs...) {
		rel, _ := ours(p.ImportPath)
		imports[rel] = p.Imports
	}
	const opa = "github.com/open-policy-agent/opa/"
	for _, r := range rows {
		pkg, ourCell, opaCell := r[1], strings.TrimSpace(r[2]), strings.TrimSpace(r[3])
		imps, ok := imports[pkg]
		if !ok {
			t.Errorf("docs/architecture.md lists %s, which go list does not know", pkg)
			continue
		}
		var mine, theirs []string
		for _, imp := range imps {
			if rel, ok := ours(imp); ok {
				mine = append(mine, rel)
			} else if o, ok := strings.CutPrefix(imp, opa+"v1/"); ok {
				theirs = append(theirs, o)
			} else if o, ok := strings.CutPrefix(imp, opa); ok {
				theirs = append(theirs, o)
			}
		}
		slices.Sort(mine)
		slices.Sort(theirs)
		if want := listed(ourCell); !slices.Equal(mine, want) {
			t.Errorf("%s imports %q of this module; docs/architecture.md says %q", pkg, mine, want)
		}
		switch opaCell {
		case "none":
			if len(theirs) > 0 {
				t.Errorf("%s imports OPA's %q; docs/architecture.md says none", pkg, theirs)
			}
		case "yes":
			if len(theirs) == 0 {
				t.Errorf("%s imports no OPA package; docs/architecture.md says it does", pkg)
			}
		default:
			if want := listed(opaCell); !slices.Equal(theirs, want) {
				t.Errorf("%s imports OPA's %q; docs/architecture.md says %q", pkg, theirs, want)
			}
		}
	}
}
