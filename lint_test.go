package permopa_test

// The project's hygiene checks. Part of `go test ./...`: gofmt, and that no
// tracked file points outside the repository (the Rego is formatted,
// strictly compiled and tested in-process by builtins/regopolicy_*_test.go;
// go test itself runs go vet's high-confidence analyzers on every package it
// tests). With
// `-tags slow` (docs/development.md, run by .ci/run on every CI run), the checks
// that build or analyse the whole dependency graph once more: the full
// `go vet ./...` (every analyzer, which on a cold build cache type-checks
// all ~820 packages the programs link a second time: about 95 s of CPU),
// `permopa fmt --fail`, `permopa check --strict`, `permopa test` as a policy
// author runs them, vanilla `opa check` with the shipped capabilities.json
// (how policy authors meet our built-ins), and Regal (built from its own
// tools module, see tools/regal).

import (
	"bytes"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var regoDirs = []string{"rego", "rego_test", "bundles"}

func existing(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if _, err := os.Stat(d); err == nil {
			out = append(out, d)
		}
	}
	return out
}

func run(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// build compiles a main package into a temporary directory once per test binary.
var built = map[string]string{}

func build(t *testing.T, dir, pkg, name string) string {
	t.Helper()
	if p, ok := built[name]; ok {
		return p
	}
	bin := filepath.Join(t.TempDir(), name)
	abs, _ := filepath.Abs(bin)
	run(t, dir, "go", "build", "-o", abs, pkg)
	built[name] = abs
	return abs
}

func TestGofmt(t *testing.T) {
	var bad []string
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "bin" || d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if out, err := format.Source(src); err != nil || !bytes.Equal(out, src) {
			bad = append(bad, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Fatalf("gofmt would change: %v", bad)
	}
}

// outsidePointer matches what must not appear in a tracked file: a section
// of the old design contract, which is not in the repository (the design is
// in docs/, see docs/architecture.md), and paths to material outside it.
var outsidePointer = regexp.MustCompile(`(?i)contract[\s/#*(]*§|(\.\./)+shared/(design|spec|reference|conformance)\b|/work/(shared|main|wt)\b`)

// TestNoPointersOutsideRepository keeps comments, Rego METADATA, docs and
// test data pointing at the repository's own files.
func TestNoPointersOutsideRepository(t *testing.T) {
	var files []string
	if out, err := exec.Command("git", "ls-files", "-z").Output(); err == nil {
		files = strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	} else {
		// No git (an exported tree): every file but build output.
		err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == ".git" || d.Name() == "bin") {
				return filepath.SkipDir
			}
			if !d.IsDir() {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	checked := 0
	for _, f := range files {
		switch filepath.Ext(f) {
		case ".go", ".rego", ".md", ".yaml", ".yml":
		default:
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for i, line := range strings.Split(string(src), "\n") {
			if m := outsidePointer.FindString(line); m != "" {
				t.Errorf("%s:%d: %q points outside the repository; cite docs/ or SECURITY.md instead", f, i+1, m)
			}
		}
		// A citation wrapped over two comment lines.
		for _, m := range outsidePointer.FindAllStringIndex(string(src), -1) {
			if s := string(src[m[0]:m[1]]); strings.Contains(s, "\n") {
				t.Errorf("%s:%d: %q points outside the repository; cite docs/ or SECURITY.md instead",
					f, 1+strings.Count(string(src[:m[0]]), "\n"), s)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no Go, Rego, Markdown or YAML file found to check")
	}
}

// maxTrackedBytes bounds a tracked file: the largest data file (the bash
// corpus, capabilities.json) is under 250 KB, and a build output committed by
// mistake (a 66 MB permopa binary once) is far over it.
const maxTrackedBytes = 1 << 20

// TestNoLargeTrackedFiles keeps build output and other large blobs out of
// the repository.
func TestNoLargeTrackedFiles(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	checked := 0
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		fi, err := os.Lstat(f)
		if err != nil {
			continue // deleted in the work tree, not yet committed
		}
		checked++
		if fi.Mode().IsRegular() && fi.Size() > maxTrackedBytes {
			t.Errorf("%s is tracked and %d bytes (limit %d): build output or a blob that belongs outside the repository", f, fi.Size(), maxTrackedBytes)
		}
	}
	if checked == 0 {
		t.Fatal("git ls-files listed no file")
	}
}
