package scriptfile

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// workspaceFixture writes a workspace root under a new directory: its
// package.json (workspaces as given) and packages whose scripts append
// "package:event" to ws.log. It returns the root.
func workspaceFixture(t *testing.T, workspaces string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(root, "ws.log")
	script := func(tag string, events ...string) string {
		var parts []string
		for _, ev := range events {
			parts = append(parts, `"`+ev+`": "echo `+tag+`:`+ev+` >> `+log+`"`)
		}
		return `"scripts": {` + strings.Join(parts, ", ") + `}`
	}
	for dir, body := range map[string]string{
		"r":                `{"name": "root", "private": true, "workspaces": ` + workspaces + `, ` + script("root", "x") + `}`,
		"r/packages/a":     `{"name": "pa", ` + script("pa", "prex", "x", "postx") + `}`,
		"r/packages/b":     `{"name": "@s/pb", ` + script("pb", "x") + `}`,
		"r/packages/c":     `{"name": "pc", ` + script("pc", "y") + `}`,
		"r/packages/e":     `{` + script("e", "x") + `}`,
		"r/packages/skip":  `{"name": "skip", ` + script("skip", "x") + `}`,
		"r/tools/d":        `{"name": "pd", ` + script("pd", "x", "test") + `}`,
		"r/packages/nopkg": "",
		"r/sub":            "",
	} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if body != "" {
			if err := os.WriteFile(filepath.Join(root, dir, "package.json"), []byte(body+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

// readWorkspaceCall is what the reader says npm ARGS in dir runs, as
// "package:event" (the package's folder base name, "root" for the root),
// or the reason it cannot tell.
func readWorkspaceCall(root, dir, args string) ([]string, string) {
	argv := append([]string{"npm"}, strings.Fields(args)...)
	scripts, handled := Package(Call{Argv: argv, Dynamic: make([]bool, len(argv)), Dir: dir, Files: NewFiles([]string{root})})
	if !handled {
		return nil, "not handled"
	}
	tags := map[string]string{"r": "root", "a": "pa", "b": "pb", "c": "pc", "e": "e", "skip": "skip", "d": "pd"}
	var out []string
	for _, s := range scripts {
		if s.Unknown != "" {
			return nil, s.Unknown
		}
		out = append(out, tags[filepath.Base(s.Dir)]+":"+strings.TrimPrefix(s.Name, "script "))
	}
	return out, ""
}

// The workspace scripts the reader reads are those npm runs, in npm's
// order (issue 27): -w by name, path and parent folder, --workspaces,
// --include-workspace-root, several -w, one that selects nothing, a
// workspace without a name, a missing script, from a folder below the
// root.
func TestNpmWorkspacesAgainstNpm(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if err != nil || testing.Short() {
		t.Skip("needs npm")
	}
	// Each case is a run of npm (about half a second of CPU). The quick
	// suite's one real npm run is TestNpmLifecycleAgainstNpm's; -tags slow
	// (CI) runs every case here: each class above, every spelling
	// (docs/development.md).
	if !slowTests {
		t.Skip("the real npm's workspace runs are in the slow checks (-tags slow)")
	}
	root := workspaceFixture(t, `["packages/*", "tools/d", "!packages/skip"]`)
	for _, c := range []struct {
		dir, args string
	}{
		{"", "run x -w pa"}, {"", "run x --workspace=@s/pb"}, {"", "run x --workspace pa"},
		{"", "run x -w packages/b"}, {"", "run x -w packages"}, {"", "run x -w ./packages/a"},
		{"", "run x --workspaces"}, {"", "run x -ws"}, {"", "run x --workspaces --include-workspace-root"},
		{"", "run x -w pd -w pa"}, {"", "run x -w pa -w nothere"}, {"", "run x -w nothere"},
		{"", "run x --workspaces -w pd"}, {"", "run x -w e"}, {"", "run x -w tools -- --flag"},
		{"", "run x -w ."}, {"", "run x -w packages/"}, {"", "run x -w PA"}, {"", "run x -w pack"},
		{"", "test -w pa"}, {"", "test -w pd"}, {"", "run x --workspaces=false"}, {"", "run x -w=pa"},
		{"sub", "run x -w pa"}, {"sub", "run x -w ../packages/b"}, {"sub", "run x -ws"},
	} {
		dir := filepath.Join(root, "r", c.dir)
		log := filepath.Join(root, "ws.log")
		os.Remove(log)
		cmd := exec.Command(npm, strings.Fields(c.args)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(root, "cache"), "npm_config_update_notifier=false",
			"npm_config_logs_max=0")
		out, _ := cmd.CombinedOutput()
		data, _ := os.ReadFile(log)
		var ran []string
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if f := strings.Fields(l); len(f) > 0 {
				ran = append(ran, f[0])
			}
		}
		read, why := readWorkspaceCall(root, dir, c.args)
		if why != "" {
			t.Errorf("npm %s in %s: the reader cannot tell (%s); npm ran %q", c.args, c.dir, why, ran)
			continue
		}
		if !slices.Equal(read, ran) {
			t.Errorf("npm %s in r/%s: the reader reads %q, npm ran %q\n%s", c.args, c.dir, read, ran, out)
		}
	}
}

// What the workspace reader does not model is Unknown, never a guess:
// hostile globs and roots included.
func TestNpmWorkspacesUnknown(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ workspaces, dir, args, why string }{
		{`["../outside"]`, "", "run x -ws", "outside the working directories"},
		{`["packages/../../outside"]`, "", "run x -ws", "outside the working directories"},
		{`["/etc"]`, "", "run x -ws", "not modelled"},
		{`["packages/**"]`, "", "run x -ws", "not modelled"},
		{`["packages/{a,b}"]`, "", "run x -ws", "not modelled"},
		{`["packages/link"]`, "", "run x -ws", "leads out of the working directories"},
		{`["packages/*"]`, "", "run x -ws", "leads out of the working directories"},
		{`"packages/*"`, "", "run x -ws", "not a list of globs"},
		{`null`, "", "run x -w pa", "declares no workspaces"},
		{`["packages/*"]`, "packages/a", "run x -w pb", "as the workspace root"},
		{`["packages/*"]`, "", "run x --prefix . -w pa", "--prefix with -w"},
		{`["packages/*"]`, "", "pack -w pa", "in workspaces runs scripts permopa does not read"},
		{`["packages/*"]`, "", "run x --workspaces=maybe", "not modelled"},
	} {
		root := workspaceFixture(t, c.workspaces)
		if strings.Contains(c.workspaces, "link") || c.workspaces == `["packages/*"]` && strings.Contains(c.why, "leads out") {
			out := filepath.Join(root, "outside")
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(out, "package.json"), []byte(`{"name":"o","scripts":{"x":"rm -rf /"}}`), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(out, filepath.Join(root, "r/packages/link")); err != nil {
				t.Fatal(err)
			}
		}
		files := NewFiles([]string{filepath.Join(root, "r")})
		argv := append([]string{"npm"}, strings.Fields(c.args)...)
		scripts, handled := Package(Call{Argv: argv, Dynamic: make([]bool, len(argv)), Dir: filepath.Join(root, "r", c.dir), Files: files})
		why := ""
		for _, s := range scripts {
			why = firstOf(why, s.Unknown)
		}
		if !handled || !strings.Contains(why, c.why) {
			t.Errorf("workspaces %s, npm %s in r/%s: handled %v, unknown %q; want unknown saying %q", c.workspaces, c.args, c.dir, handled, why, c.why)
		}
	}
	// A -w only known at run time.
	root := workspaceFixture(t, `["packages/*"]`)
	argv := []string{"npm", "run", "x", "-w", "\x00"}
	scripts, _ := Package(Call{Argv: argv, Dynamic: []bool{false, false, false, false, true}, Dir: filepath.Join(root, "r"), Files: NewFiles([]string{root})})
	if len(scripts) == 0 || !strings.Contains(scripts[0].Unknown, "only known at run time") {
		t.Errorf("npm run x -w $W: %+v, want unknown", scripts)
	}
}
