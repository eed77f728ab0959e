package flagspec

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/permopa/permopa/builtins/paths"
)

// The audit of what every read-only program opens besides its operands
// (testdata/project-reads.tsv): each program that can be judged read-only
// was traced (strace -f, cwd = a hostile project, HOME = a throwaway home)
// and each file it opened or looked for under the project, its parents or
// the home directory is a row saying who can plant it, what a hostile one
// changes, and how permopa models it (docs/shell.md, "What a program
// reads besides its argv"). The test keeps the table whole: every program
// of the vocabulary has a row, and every file a project can plant that
// runs code, writes or reads elsewhere names a model that exists.
func TestProjectReadsAudit(t *testing.T) {
	data, err := os.ReadFile("testdata/project-reads.tsv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if lines[0] != "program\tinvocation\tfile\tplanted by\teffect\tmodel\tevidence" {
		t.Fatalf("header: %q", lines[0])
	}
	listed := map[string]bool{}
	modelled := map[string]bool{}
	for i, line := range lines[1:] {
		f := strings.Split(line, "\t")
		where := "testdata/project-reads.tsv:" + strconv.Itoa(i+2)
		if len(f) != 7 {
			t.Errorf("%s: %d fields, want 7", where, len(f))
			continue
		}
		prog, planted, effect, model, evidence := f[0], f[3], f[4], f[5], f[6]
		listed[prog] = true
		for _, p := range strings.Split(planted, ",") {
			if !slices.Contains([]string{"project", "parent", "home", "env", "system", "-"}, p) {
				t.Errorf("%s: planted by %q", where, p)
			}
		}
		harmful := false
		for _, e := range strings.Split(effect, ",") {
			if !slices.Contains([]string{"code", "write", "read", "network", "none"}, e) {
				t.Errorf("%s: effect %q", where, e)
			}
			harmful = harmful || e != "none"
		}
		if evidence == "" {
			t.Errorf("%s: no evidence", where)
		}
		switch {
		case strings.HasPrefix(model, "project_configs:"):
			p := strings.TrimPrefix(model, "project_configs:")
			if !paths.ConfigPrograms[p] {
				t.Errorf("%s: %s is not a program permopa.path.project_configs reads", where, p)
			}
			modelled[p] = true
		case strings.HasPrefix(model, "flagspec:"), slices.Contains([]string{"tree-walk", "trusted", "harmless", "residual", "-"}, model):
		default:
			t.Errorf("%s: model %q", where, model)
		}
		fromProject := strings.Contains(planted, "project") || strings.Contains(planted, "parent")
		if fromProject && harmful && (model == "-" || model == "trusted" || model == "harmless" && !strings.Contains(effect, "network")) {
			t.Errorf("%s: %s: a file the project plants changes what %s does (%s) but no model is named", where, f[2], prog, effect)
		}
	}
	for _, form := range Forms(0) {
		if !listed[form.Words[0]] {
			t.Errorf("%s can be read-only but has no row in testdata/project-reads.tsv", form.Words[0])
		}
	}
	for p := range paths.ConfigPrograms {
		if !modelled[p] {
			t.Errorf("permopa.path.project_configs reads %s's configuration, but no row names it", p)
		}
	}
}
