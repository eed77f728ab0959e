package bash

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// project writes files (path relative to a new directory -> content; a
// content starting with "->" makes a symbolic link to the rest, "/" a
// directory) and returns the directory, its home and the options of a
// call there.
func project(t testing.TB, files map[string]string) (string, Options) {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	dir := filepath.Join(home, "proj")
	for _, d := range []string{filepath.Join(home, ".ssh"), dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh/id_rsa"), []byte("rm -rf /\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case strings.HasPrefix(content, "->"):
			target := strings.ReplaceAll(content[2:], "~", home)
			err = os.Symlink(target, p)
		case content == "/":
			err = os.MkdirAll(p, 0o755)
		default:
			err = os.WriteFile(p, []byte(content), 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir, Options{Cwd: dir, Home: home, WorkingDirectories: []string{dir}}
}

const pkgClean = `{
  "name": "x",
  "scripts": {
    "clean": "rm -rf dist",
    "prebuild": "rm -fr /tmp/cache",
    "build": "tsc -p .",
    "postbuild": "echo done",
    "chain": "echo ok && rm -rf out",
    "quoted": "'rm' -r\"f\" dist",
    "nested": "npm run clean",
    "viash": "sh scripts/clean.sh",
    "rmonly": "rm",
    "self": "npm run self",
    "ls": "ls -la",
    "jest": "jest --ci",
    "shadow": "rm -rf dist",
    "push": "git push origin main",
    "test": "echo testing",
    "pretest": "git push --force",
    "stop": "echo stop",
    "start": "rm -rf build",
    "dyn": "$RUNNER x"
  }
}
`

// scriptCase: under the deny rule, the command is a certain match (its
// MatchReason contains reason), an uncertain one (Uncertain contains
// reason), or no match ("").
type scriptCase struct {
	cmd, rule string
	want      string // "certain", "uncertain", ""
	reason    string
}

func checkScripts(t *testing.T, files map[string]string, cases []scriptCase) {
	t.Helper()
	dir, opts := project(t, files)
	for _, c := range cases {
		o := opts
		if strings.HasPrefix(c.cmd, "@") { // run in a subdirectory
			sub, cmd, _ := strings.Cut(c.cmd[1:], " ")
			o.Cwd = filepath.Join(dir, sub)
			c.cmd = cmd
		}
		a := Analyze(c.cmd, o)
		ps := mustPatterns(t, c.rule)
		any, certain := a.MatchAny(ps) == 0, a.MatchCertain(ps) == 0
		got := ""
		switch {
		case certain:
			got = "certain"
		case any:
			got = "uncertain"
		}
		if got != c.want {
			t.Errorf("%q under deny %q: %q match, want %q (uncertain %q)\n%s", c.cmd, c.rule, got, c.want, a.Uncertain(), brief(a))
			continue
		}
		if a.ReadOnly {
			t.Errorf("%q: read-only; a script file is never\n%s", c.cmd, brief(a))
		}
		var why string
		switch c.want {
		case "certain":
			why = a.MatchReason(ps[0])
		case "uncertain":
			why = a.Uncertain()
		default:
			continue
		}
		if !strings.Contains(why, c.reason) {
			t.Errorf("%q under deny %q: reason %q, want it to contain %q\n%s", c.cmd, c.rule, why, c.reason, brief(a))
		}
	}
}

// TestPackageScripts: deny rules see what package scripts run, through
// every runner and spelling, with the file and line named; what cannot be
// read is uncertain.
func TestPackageScripts(t *testing.T) {
	t.Parallel()
	checkScripts(t, map[string]string{
		"package.json":              pkgClean,
		"scripts/clean.sh":          "#!/bin/sh\n# clean up\n\nrm -rf build\n",
		"node_modules/.bin/jest":    "#!/usr/bin/env node\n",
		"node_modules/.bin/rm":      "",
		"sub/package.json":          `{"scripts": {"clean": "git push origin HEAD"}}`,
		"nojson/package.json":       `{"scripts": {"clean": "rm -rf x",}}`,
		"shell/package.json":        `{"scripts": {"clean": "rm -rf x"}}`,
		"shell/.npmrc":              "script-shell=/bin/zsh\n",
		"noscripts/package.json":    `{"name": "y"}`,
		"start/package.json":        `{"scripts": {}}`,
		"start/server.js":           "",
		"deep/a/b/.keep":            "",
		"dupkeys/package.json":      `{"scripts": {"clean": "rm -rf x"}, "scripts": {"clean": "echo fine"}}`,
		"scriptsarray/package.json": `{"scripts": ["rm -rf x"]}`,
		"bom/package.json":          "\ufeff{\"scripts\": {\"clean\": \"rm -rf x\"}}",
		"linked/package.json":       "->~/.ssh/id_rsa",
		"huge/package.json":         `{"scripts": {"clean": "rm -rf x"}, "pad": "` + strings.Repeat("x", 300<<10) + `"}`,
	}, []scriptCase{
		// npm and its spellings
		{"npm run clean", "rm -rf:*", "certain", "package.json:4 script clean runs rm -rf dist"},
		{"npm run-script clean", "rm -rf:*", "certain", "script clean"},
		{"npm rum clean", "rm -rf:*", "certain", "script clean"},
		{"npm urn clean", "rm -rf:*", "certain", "script clean"},
		{"npm run clean --silent", "rm -rf:*", "certain", "script clean"},
		{"npm --loglevel warn run clean", "rm -rf:*", "certain", "script clean"},
		{"timeout 60 npm run clean", "rm -rf:*", "certain", "script clean"},
		{"sudo npm run clean", "rm -rf:*", "certain", "script clean"},
		{"bash -c 'npm run clean'", "rm -rf:*", "certain", "script clean"},
		{"npm run build", "rm -rf:*", "certain", "package.json:5 script prebuild runs rm -fr /tmp/cache"},
		{"npm run build", "tsc:*", "certain", "package.json:6 script build runs tsc -p ."},
		{"npm run build", "echo done:*", "certain", "script postbuild"},
		{"npm run chain", "rm -rf:*", "certain", "script chain runs rm -rf out"},
		{"npm run quoted", "rm -rf:*", "certain", "script quoted"},
		{"npm run nested", "rm -rf:*", "certain", "script clean runs rm -rf dist"},
		{"npm run viash", "rm -rf:*", "certain", "scripts/clean.sh:4 runs rm -rf build"},
		{"npm run rmonly -- -rf /", "rm -rf:*", "certain", "script rmonly"},
		{"npm run rmonly -rf", "rm -rf:*", "uncertain", "npm option -rf is not modelled"},
		{"npm run rmonly x -- -r -f", "rm -rf:*", "certain", "script rmonly"},
		{"npm run push", "git push:*", "certain", "script push runs git push origin main"},
		{"npm test", "git push:*", "certain", "script pretest runs git push --force"},
		{"npm t", "git push:*", "certain", "script pretest"},
		{"npm tst", "git push:*", "certain", "script pretest"},
		{"npm test", "docker:*", "", ""},
		{"npm start", "rm -rf:*", "certain", "script start runs rm -rf build"},
		{"npm restart", "rm -rf:*", "certain", "script start"},
		{"npm stop", "rm -rf:*", "", ""},
		// where npm finds package.json
		{"npm --prefix sub run clean", "git push:*", "certain", "sub/package.json:1 script clean"},
		{"npm -C sub run clean", "git push:*", "certain", "script clean"},
		{"npm --prefix=sub run clean", "git push:*", "certain", "script clean"},
		{"cd sub && npm run clean", "git push:*", "certain", "script clean"},
		{"@deep/a/b npm run clean", "rm -rf:*", "certain", "script clean runs rm -rf dist"},
		{"npm run $X", "docker:*", "uncertain", "only known at run time"},
		{"npm run nothere", "docker:*", "uncertain", "no such script"},
		{"npm run nothere --if-present", "docker:*", "", ""},
		{"npm --prefix nojson run clean", "docker:*", "uncertain", "cannot be parsed as JSON"},
		{"npm --prefix shell run clean", "docker:*", "uncertain", "script-shell"},
		{"npm --prefix shell run clean", "rm -rf:*", "certain", "script clean"},
		{"npm --prefix noscripts test", "docker:*", "uncertain", "no such script"},
		{"npm --prefix start start", "docker:*", "uncertain", "node runs server.js"},
		{"npm --prefix dupkeys run clean", "rm -rf:*", "", ""},
		{"npm --prefix scriptsarray run clean", "docker:*", "uncertain", "no such script"},
		{"npm --prefix bom run clean", "rm -rf:*", "certain", "script clean"},
		{"npm -w pkg run clean", "docker:*", "uncertain", "declares no workspaces"},
		{"NPM_CONFIG_SCRIPT_SHELL=/tmp/evil npm run clean", "docker:*", "uncertain", "NPM_CONFIG_SCRIPT_SHELL"},
		{"env npm_config_script_shell=/tmp/evil npm test", "docker:*", "uncertain", "npm_config_script_shell"},
		{"export npm_config_script_shell=/tmp/evil; npm test", "docker:*", "uncertain", "npm_config_script_shell"},
		{"YARN_ENABLE_SCRIPTS=1 yarn clean", "docker:*", "uncertain", "YARN_ENABLE_SCRIPTS"},
		{"npm --prefix linked run clean", "docker:*", "uncertain", "leads out of the working directories"},
		{"npm --prefix huge run clean", "docker:*", "uncertain", "larger than 256 KiB"},
		{"npm run rmonly -- $X /", "rm -rf:*", "certain", "permopa cannot tell which options package.json:12 script rmonly runs rm"},
		{"echo -rf / | xargs npm run rmonly --", "rm -rf:*", "certain", "script rmonly runs rm"},
		{"echo x | xargs npm run clean --", "docker:*", "uncertain", "xargs supplies npm's arguments at run time"},
		{"find . -name x -exec npm run rmonly -- {} \\;", "rm -rf:*", "uncertain", "find -exec supplies npm's arguments at run time"},
		{"find . -name x -exec npm run clean \\;", "rm -rf:*", "certain", "script clean"},
		{"npm run clean --script-shell=/tmp/x", "docker:*", "uncertain", "--script-shell"},
		{"npm run dyn", "docker:*", "uncertain", "not static"},
		// node_modules/.bin comes first on npm's PATH
		{"npm run jest", "rm -rf:*", "uncertain", "script jest runs jest, the project's"},
		{"npm run shadow", "docker:*", "uncertain", "script shadow runs rm, the project's"},
		// loops and changes made by the same command
		{"npm run self", "docker:*", "uncertain", "runs itself again"},
		{"npm pkg set scripts.x='rm -rf y' && npm run x", "docker:*", "uncertain", "may have changed package.json"},
		{"cat > package.json <<'EOF'\n{\"scripts\": {\"test\": \"echo hi\"}}\nEOF\nnpm test", "docker:*", "uncertain", "written earlier in this command"},
		{"python3 gen.py; npm test", "docker:*", "uncertain", "python3"},
		{"echo '{}' > package.json; npm test", "docker:*", "uncertain", "written earlier"},
		// the other managers
		{"yarn clean", "rm -rf:*", "certain", "script clean"},
		{"yarn run clean", "rm -rf:*", "certain", "script clean"},
		{"yarn build", "rm -rf:*", "certain", "script prebuild"},
		{"yarn --cwd sub clean", "git push:*", "certain", "script clean"},
		{"yarn rmonly -rf x", "rm -rf:*", "certain", "script rmonly"},
		{"yarn test", "git push:*", "certain", "script pretest"},
		{"yarn add rimraf", "rm -rf:*", "uncertain", "yarn add runs the install scripts of the packages it installs"},
		{"pnpm clean", "rm -rf:*", "certain", "script clean"},
		{"pnpm run clean", "rm -rf:*", "certain", "script clean"},
		{"pnpm -C sub clean", "git push:*", "certain", "script clean"},
		{"pnpm --dir sub run clean", "git push:*", "certain", "script clean"},
		{"pnpm t", "git push:*", "certain", "script pretest"},
		{"pnpm --filter x clean", "docker:*", "uncertain", "--filter"},
		{"pnpm -r run clean", "docker:*", "uncertain", "-r"},
		{"pnpm install", "rm -rf:*", "uncertain", "pnpm install runs the install scripts of the packages it installs"},
		{"bun run clean", "rm -rf:*", "certain", "script clean"},
		{"bun --cwd sub run clean", "git push:*", "certain", "script clean"},
		{"bun run nothere", "docker:*", "uncertain", "no such script"},
	})
}

// TestShellScripts: sh, bash, ./x.sh, source and . read the script file;
// another interpreter's program, a file that cannot be read, a loop and a
// script written by the same command are uncertain.
func TestShellScripts(t *testing.T) {
	t.Parallel()
	big := "#!/bin/sh\n" + strings.Repeat("echo padding padding padding padding\n", 8000)
	checkScripts(t, map[string]string{
		"clean.sh":      "#!/bin/bash\nset -e\n\nrm -rf build\n",
		"noshebang.sh":  "echo hi\ngit push origin \"$1\"\n",
		"args.sh":       "rm -rf \"$1\"\n",
		"a.sh":          "echo a\nbash b.sh\n",
		"b.sh":          "echo b\nsh ./a.sh\n",
		"tool.py":       "#!/usr/bin/env python3\nimport os\n",
		"envbash.sh":    "#!/usr/bin/env bash\nrm -rf x\n",
		"prog":          "\x7fELF\x02",
		"huge.sh":       big,
		"key.sh":        "->~/.ssh/id_rsa",
		"link.sh":       "->clean.sh",
		"dir.sh":        "/",
		"calls.sh":      "./clean.sh\n. ./noshebang.sh\n",
		"if.sh":         "if true; then\n  echo x\nelse\n  rm -rf y\nfi\n",
		"notparse.sh":   "if then fi (\n",
		"dyn.sh":        "$CMD x\n",
		"sub/inner.sh":  "rm -rf ../out\n",
		"sub/caller.sh": "cd sub && sh inner.sh\n",
		".env":          "TOKEN=secret\n",
	}, []scriptCase{
		{"bash clean.sh", "rm -rf:*", "certain", "clean.sh:4 runs rm -rf build"},
		{"sh clean.sh", "rm -rf:*", "certain", "clean.sh:4"},
		{"bash -e ./clean.sh", "rm -rf:*", "certain", "clean.sh:4"},
		{"./clean.sh", "rm -rf:*", "certain", "clean.sh:4"},
		{"source clean.sh", "rm -rf:*", "certain", "clean.sh:4"},
		{". ./clean.sh", "rm -rf:*", "certain", "clean.sh:4"},
		{"./link.sh", "rm -rf:*", "certain", "link.sh:4"},
		{"./noshebang.sh main", "git push:*", "certain", "noshebang.sh:2 runs git push origin"},
		{"./envbash.sh", "rm -rf:*", "certain", "envbash.sh:2"},
		{"bash args.sh /", "rm -rf:*", "certain", "args.sh:1"},
		{"bash if.sh", "rm -rf:*", "certain", "if.sh:1"},
		{"bash calls.sh", "rm -rf:*", "certain", "clean.sh:4 runs rm -rf build"},
		{"bash calls.sh", "git push:*", "certain", "noshebang.sh:2"},
		{"sh sub/caller.sh", "rm -rf:*", "certain", "inner.sh:1"},
		{"bash clean.sh", "docker:*", "", ""},
		{"bash a.sh", "docker:*", "uncertain", "runs itself again"},
		{"./tool.py", "rm -rf:*", "uncertain", "runs with python3"},
		{"python3 tool.py", "rm -rf:*", "uncertain", "python3 runs tool.py, a program permopa does not read"},
		{"node x.js", "rm -rf:*", "uncertain", "node runs x.js"},
		{"ruby x.rb", "rm -rf:*", "uncertain", "ruby runs x.rb"},
		{"./prog", "rm -rf:*", "uncertain", "compiled program"},
		{"bash huge.sh", "docker:*", "uncertain", "larger than"},
		{"bash key.sh", "docker:*", "uncertain", "leads out of the working directories"},
		{"bash dir.sh", "docker:*", "uncertain", "directory"},
		{"bash missing.sh", "docker:*", "uncertain", "does not exist"},
		{"bash /etc/profile", "docker:*", "uncertain", "outside the working directories"},
		{"bash \"$S\"", "docker:*", "uncertain", "not static"},
		{"bash notparse.sh", "docker:*", "uncertain", "parse error in notparse.sh"},
		{"source .env", "docker:*", "uncertain", "credential file"},
		{"git checkout other && ./clean.sh", "docker:*", "uncertain", "git ran earlier in this command and may have replaced the script"},
		{"tar xf a.tar; bash clean.sh", "docker:*", "uncertain", "tar ran earlier"},
		{"sed -i s/x/y/ clean.sh && bash clean.sh", "docker:*", "uncertain", "written earlier"},
		{"bash dyn.sh", "docker:*", "uncertain", "not static"},
		{"echo 'rm x' > s.sh && sh s.sh", "docker:*", "uncertain", "written earlier"},
		{"echo 'rm x' >> clean.sh; ./clean.sh", "docker:*", "uncertain", "written earlier"},
		{"cd /tmp && ./clean.sh", "docker:*", "uncertain", "outside the working directories"},
		{"/usr/bin/git push", "git push:*", "certain", ""},
		{"/usr/bin/git commit -m x", "git push:*", "", ""},
	})
}

// TestScriptsAllowRules: an allow rule for the command that runs a script
// covers what the script runs (deny rules still see inside), and the
// suggestion names that command; nothing inside a script is read-only.
func TestScriptsAllowRules(t *testing.T) {
	t.Parallel()
	_, opts := project(t, map[string]string{
		"package.json": `{"scripts": {"lint": "eslint . && tsc --noEmit", "ls": "ls"}}`,
		"ro.sh":        "ls\ncat README.md\n",
	})
	for _, c := range []struct {
		cmd, allow string
		covered    bool
	}{
		{"npm run lint", "npm run lint", true},
		{"npm run lint", "npm run:*", true},
		{"npm run lint", "eslint:*", false},
		{"npm run ls", "npm run ls", true},
		{"bash ro.sh", "bash ro.sh", true},
		{"bash ro.sh", "ls", false},
	} {
		a := Analyze(c.cmd, opts)
		if a.ReadOnly {
			t.Errorf("%q is read-only\n%s", c.cmd, brief(a))
		}
		if _, ok := a.Covered(mustPatterns(t, c.allow)); ok != c.covered {
			t.Errorf("Covered(%q, %q) = %v, want %v\n%s", c.cmd, c.allow, ok, c.covered, brief(a))
		}
	}
	if s := Analyze("npm run lint", opts).Suggest(); len(s) == 0 || !strings.HasPrefix(s[0], "npm run") {
		t.Errorf("Suggest(npm run lint) = %q, want a rule for npm run", s)
	}
}

// TestScriptsCacheSeesChanges: a cached analysis is used again only while
// the files it read are unchanged.
func TestScriptsCacheSeesChanges(t *testing.T) {
	t.Parallel()
	dir, opts := project(t, map[string]string{"package.json": `{"scripts": {"x": "echo hi"}}`})
	ps := mustPatterns(t, "rm -rf:*")
	if Analyze("npm run x", opts).MatchAny(ps) >= 0 {
		t.Fatal("echo hi matches rm -rf")
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"scripts": {"x": "rm -rf /"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if Analyze("npm run x", opts).MatchCertain(ps) != 0 {
		t.Error("the changed script is not seen: the cached analysis was used")
	}
	// A package.json that appears nearer is seen too (the walk up is stamped).
	if err := os.MkdirAll(filepath.Join(dir, "s"), 0o755); err != nil {
		t.Fatal(err)
	}
	o := opts
	o.Cwd = filepath.Join(dir, "s")
	if Analyze("npm run x", o).MatchCertain(ps) != 0 {
		t.Fatal("the parent's package.json is not read")
	}
	if err := os.WriteFile(filepath.Join(dir, "s/package.json"), []byte(`{"scripts": {"x": "echo fine"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if Analyze("npm run x", o).MatchAny(ps) >= 0 {
		t.Error("a package.json created nearer is not seen")
	}
}

// TestScriptsBounded: scripts running scripts stop at the depth bound and
// at the file bound, uncertain.
func TestScriptsBounded(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := 0; i < 12; i++ {
		files["s"+string(rune('a'+i))+".sh"] = "echo " + string(rune('a'+i)) + "\nbash s" + string(rune('a'+i+1)) + ".sh\n"
	}
	files["f.sh"] = "echo f\n"
	_, opts := project(t, files)
	a := Analyze("bash sa.sh", opts)
	if !strings.Contains(a.Uncertain(), "more than 6 deep") {
		t.Errorf("depth: uncertain %q\n%s", a.Uncertain(), brief(a))
	}
	opts.MaxLeaves = 1000
	var cmd strings.Builder
	for i := 0; i < 80; i++ {
		cmd.WriteString("bash f.sh; ")
	}
	a = Analyze(cmd.String(), opts)
	if !strings.Contains(a.Uncertain(), "more than 64 script files") {
		t.Errorf("files: uncertain %q", a.Uncertain())
	}
}

// BenchmarkScripts measures the added cost of reading scripts per
// decision (BENCHMARKS.md, "Scripts"): a command whose analysis is cached
// (one stat per file looked at, to check it is unchanged), the same
// analysis uncached (file contents cached by stamp), and a command of the
// same shape that runs no script, for comparison.
func BenchmarkScripts(b *testing.B) {
	_, opts := project(b, map[string]string{
		"package.json":           `{"scripts": {"pretest": "tsc --noEmit", "test": "jest --ci && eslint .", "posttest": "echo ok"}}`,
		"node_modules/.bin/jest": "",
		"ci.sh":                  "#!/bin/sh\nset -e\nnpm test\ngit status --short\n",
		"args.sh":                "#!/bin/sh\nset -eu\nsrc=x\ncp \"$1\" \"$2\"\nshift 2\nrm -f \"$@\"\n",
	})
	_, ws := project(b, map[string]string{
		"package.json":            `{"workspaces": ["packages/*"], "scripts": {"test": "echo root"}}`,
		"packages/a/package.json": `{"name": "a", "scripts": {"test": "tsc --noEmit && echo a"}}`,
		"packages/b/package.json": `{"name": "b", "scripts": {"test": "echo b"}}`,
		"packages/c/package.json": `{"name": "c", "scripts": {"pretest": "echo c", "test": "echo c"}}`,
		"packages/d/package.json": `{"name": "d", "scripts": {"lint": "echo d"}}`,
	})
	for _, c := range []struct {
		name, cmd string
		opts      Options
	}{
		{"npm-test", "npm test", opts},
		{"sh-script-running-npm-test", "sh ci.sh", opts},
		{"sh-script-with-arguments", "sh args.sh a b c d", opts},
		{"npm-test-one-workspace", "npm test -w b", ws},
		{"npm-test-workspaces", "npm test --workspaces", ws},
		{"no-script", "git status --short", opts},
	} {
		b.Run(c.name+"/cached", func(b *testing.B) {
			Analyze(c.cmd, c.opts)
			b.ReportAllocs()
			for b.Loop() {
				Analyze(c.cmd, c.opts)
			}
		})
		b.Run(c.name+"/uncached", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				analyze(c.cmd, c.opts)
			}
		})
	}
}

// TestLifecycleScripts: npm install, ci, pack, publish, version, rebuild,
// link, and yarn's, pnpm's and bun's install and add run the package's own
// lifecycle scripts, which deny rules see as typed commands; their
// dependencies' install scripts are uncertain, unless --ignore-scripts or
// ignore-scripts=true in the package's .npmrc turns all scripts off.
func TestLifecycleScripts(t *testing.T) {
	t.Parallel()
	checkScripts(t, map[string]string{
		"package.json":            "{\n  \"name\": \"x\",\n  \"scripts\": {\"postinstall\": \"rm -rf victim\"}\n}\n",
		"prepare/package.json":    `{"scripts": {"prepare": "rm -rf a"}}`,
		"preinstall/package.json": `{"scripts": {"preinstall": "rm -rf a"}}`,
		"deps/package.json":       `{"scripts": {"dependencies": "rm -rf a"}}`,
		"pack/package.json":       `{"scripts": {"prepack": "rm -rf a"}}`,
		"postpack/package.json":   `{"scripts": {"postpack": "rm -rf a"}}`,
		"publish/package.json":    `{"scripts": {"prepublishOnly": "rm -rf a"}}`,
		"version/package.json":    `{"scripts": {"version": "rm -rf a"}}`,
		"none/package.json":       `{"scripts": {"build": "rm -rf a"}}`,
		"npmrc/package.json":      `{"scripts": {"postinstall": "rm -rf a"}}`,
		"npmrc/.npmrc":            "# scripts off\nignore-scripts = true\n",
		"npmrcsub/.npmrc":         "ignore-scripts=true\n",
		"npmrcsub/p/package.json": `{"scripts": {"postinstall": "rm -rf a"}}`,
		"ws/package.json":         `{"workspaces": ["w"], "scripts": {"postinstall": "rm -rf root"}}`,
		"ws/w/package.json":       `{"scripts": {"build": "tsc"}}`,
		"ws/w/.npmrc":             "ignore-scripts=true\n",
	}, []scriptCase{
		// the package's own lifecycle scripts, every runner
		{"npm install", "rm -rf:*", "certain", "package.json:3 script postinstall runs rm -rf victim"},
		{"npm i", "rm -rf:*", "certain", "script postinstall"},
		{"npm isntall", "rm -rf:*", "certain", "script postinstall"},
		{"npm add", "rm -rf:*", "certain", "script postinstall"},
		{"npm ci", "rm -rf:*", "certain", "script postinstall"},
		{"npm clean-install", "rm -rf:*", "certain", "script postinstall"},
		{"npm it", "rm -rf:*", "certain", "script postinstall"},
		{"npm cit", "rm -rf:*", "certain", "script postinstall"},
		{"npm rebuild", "rm -rf:*", "certain", "script postinstall"},
		{"npm link", "rm -rf:*", "certain", "script postinstall"},
		{"npm install --save-dev", "rm -rf:*", "certain", "script postinstall"},
		{"npm --loglevel silent install", "rm -rf:*", "certain", "script postinstall"},
		{"sudo npm install", "rm -rf:*", "certain", "script postinstall"},
		{"bash -c 'npm ci'", "rm -rf:*", "certain", "script postinstall"},
		{"npm --prefix prepare install", "rm -rf:*", "certain", "prepare/package.json:1 script prepare runs rm -rf a"},
		{"npm --prefix preinstall ci", "rm -rf:*", "certain", "script preinstall"},
		{"npm --prefix prepare pack", "rm -rf:*", "certain", "script prepare"},
		{"npm --prefix pack pack", "rm -rf:*", "certain", "script prepack"},
		{"npm --prefix pack pack --dry-run", "rm -rf:*", "certain", "script prepack"},
		{"npm --prefix postpack publish", "rm -rf:*", "certain", "script postpack"},
		{"npm --prefix publish publish", "rm -rf:*", "certain", "script prepublishOnly"},
		{"npm --prefix publish pack", "rm -rf:*", "", ""},
		{"npm --prefix version version patch", "rm -rf:*", "certain", "script version"},
		{"npm --prefix version version 1.2.3 --no-git-tag-version", "rm -rf:*", "certain", "script version"},
		{"npm --prefix deps install lodash", "rm -rf:*", "certain", "script dependencies"},
		{"npm --prefix deps update", "rm -rf:*", "certain", "script dependencies"},
		{"npm --prefix deps uninstall lodash", "rm -rf:*", "certain", "script dependencies"},
		{"npm --prefix deps prune", "rm -rf:*", "certain", "script dependencies"},
		{"yarn", "rm -rf:*", "certain", "script postinstall"},
		{"yarn install", "rm -rf:*", "certain", "script postinstall"},
		{"yarn --frozen-lockfile", "rm -rf:*", "certain", "script postinstall"},
		{"yarn add lodash", "rm -rf:*", "certain", "script postinstall"},
		{"yarn --cwd prepare install", "rm -rf:*", "certain", "script prepare"},
		{"yarn --cwd pack pack", "rm -rf:*", "certain", "script prepack"},
		{"yarn --cwd version version --patch", "rm -rf:*", "certain", "script version"},
		{"pnpm install", "rm -rf:*", "certain", "script postinstall"},
		{"pnpm i", "rm -rf:*", "certain", "script postinstall"},
		{"pnpm add lodash", "rm -rf:*", "certain", "script postinstall"},
		{"pnpm -C prepare install", "rm -rf:*", "certain", "script prepare"},
		{"pnpm rebuild", "rm -rf:*", "certain", "script postinstall"},
		{"bun install", "rm -rf:*", "certain", "script postinstall"},
		{"bun i", "rm -rf:*", "certain", "script postinstall"},
		{"bun add lodash", "rm -rf:*", "certain", "script postinstall"},
		{"bun --cwd preinstall install", "rm -rf:*", "certain", "script preinstall"},
		// the dependencies' install scripts: a package's program
		{"npm install", "docker:*", "uncertain", "npm install runs the install scripts of the packages it installs"},
		{"npm install lodash", "rm -rf:*", "uncertain", "npm install runs the install scripts"},
		{"npm i -D lodash", "docker:*", "uncertain", "npm install runs the install scripts"},
		{"npm ci", "docker:*", "uncertain", "npm ci runs the install scripts"},
		{"npm rebuild esbuild", "docker:*", "uncertain", "npm rebuild runs the install scripts"},
		{"npm --prefix none install", "docker:*", "uncertain", "npm install runs the install scripts"},
		{"npm --prefix none update", "docker:*", "uncertain", "npm update runs the install scripts"},
		{"npm install $PKG", "docker:*", "uncertain", "install"},
		{"yarn", "docker:*", "uncertain", "yarn install runs the install scripts"},
		{"yarn add lodash", "docker:*", "uncertain", "yarn add runs the install scripts"},
		{"pnpm install", "docker:*", "uncertain", "pnpm install runs the install scripts"},
		{"pnpm add esbuild", "docker:*", "uncertain", "pnpm add runs the install scripts"},
		{"bun install", "docker:*", "uncertain", "bun install runs the install scripts"},
		{"bun add esbuild", "docker:*", "uncertain", "bun add runs the install scripts"},
		{"npm pack ../other", "docker:*", "uncertain", "of another package"},
		{"npm install --ignore-scripts --foo", "docker:*", "uncertain", "--foo is not modelled"},
		// scripts off: judged by the words
		{"npm install --ignore-scripts", "rm -rf:*", "", ""},
		{"npm install --ignore-scripts", "docker:*", "", ""},
		{"npm ci --ignore-scripts --no-audit", "rm -rf:*", "", ""},
		{"npm i lodash -D --ignore-scripts", "rm -rf:*", "", ""},
		{"npm rebuild --ignore-scripts", "rm -rf:*", "", ""},
		{"npm --prefix pack pack --ignore-scripts", "rm -rf:*", "", ""},
		{"npm --prefix version version patch --ignore-scripts", "rm -rf:*", "", ""},
		{"npm install --ignore-scripts=true", "rm -rf:*", "", ""},
		{"yarn install --ignore-scripts", "rm -rf:*", "", ""},
		{"yarn --ignore-scripts", "rm -rf:*", "", ""},
		{"pnpm install --ignore-scripts", "rm -rf:*", "", ""},
		// bun is also an interpreter: bun install is judged as bun's program
		{"bun install --ignore-scripts", "rm -rf:*", "uncertain", "bun runs install"},
		// a package under another's .npmrc is not honoured: npm may take
		// the directory above as its prefix (workspaces)
		{"npm --prefix npmrc install", "rm -rf:*", "certain", "script postinstall"},
		{"npm --prefix npmrc ci", "docker:*", "uncertain", "npm ci runs the install scripts"},
		{"@npmrc npm install lodash", "docker:*", "uncertain", "npm install runs the install scripts"},
		// scripts back on, or not off
		{"npm install --ignore-scripts --no-ignore-scripts", "rm -rf:*", "certain", "script postinstall"},
		{"npm install --ignore-scripts=false", "rm -rf:*", "certain", "script postinstall"},
		// npm reads the .npmrc of the package's directory only
		{"npm --prefix npmrcsub/p install", "rm -rf:*", "certain", "script postinstall"},
		// a workspace's .npmrc is not the one npm reads: npm runs from the root
		{"npm --prefix ws/w install", "docker:*", "uncertain", "npm install runs the install scripts"},
		{"npm_config_ignore_scripts=false npm --prefix npmrc install", "docker:*", "uncertain", "npm_config_ignore_scripts"},
		// npm run with --ignore-scripts still runs the script named
		{"npm run build --ignore-scripts", "docker:*", "uncertain", "--ignore-scripts is not modelled"},
	})
}

// TestLifecycleNoPackage: with no package.json from the directory up, npm
// install, ci and rebuild without operands fail before running anything;
// npm install PKG creates one and installs PKG.
func TestLifecycleNoPackage(t *testing.T) {
	t.Parallel()
	checkScripts(t, map[string]string{"package-lock.json": `{"lockfileVersion": 3}`, "src/x.js": ""}, []scriptCase{
		{"npm install", "docker:*", "", ""},
		{"npm ci", "rm -rf:*", "", ""},
		{"@src npm rebuild", "docker:*", "", ""},
		{"npm install lodash", "docker:*", "uncertain", "npm install runs the install scripts"},
		{"yarn install", "docker:*", "uncertain", "yarn install runs the install scripts"},
		{"npm install $X", "docker:*", "uncertain", "only known at run time"},
	})
}

// TestLifecycleNpmrc: ignore-scripts=true in the .npmrc of a package with
// no package.json above it turns npm's scripts off; a later false, a
// ${VAR} or --no-ignore-scripts leaves them on.
func TestLifecycleNpmrc(t *testing.T) {
	t.Parallel()
	pkg := "{\n  \"scripts\": {\"postinstall\": \"rm -rf victim\"}\n}\n"
	for npmrc, cases := range map[string][]scriptCase{
		"# scripts off\n//registry.npmjs.org/:_authToken=x\nignore-scripts = true\n": {
			{"npm install", "rm -rf:*", "", ""},
			{"npm ci", "docker:*", "", ""},
			{"npm install lodash", "docker:*", "", ""},
			{"npm rebuild", "rm -rf:*", "", ""},
			{"npm install --no-ignore-scripts", "rm -rf:*", "certain", "package.json:2 script postinstall"},
			{"npm install --ignore-scripts=false", "docker:*", "uncertain", "npm install runs the install scripts"},
			{"yarn install", "rm -rf:*", "certain", "script postinstall"},
			{"@sub npm install", "docker:*", "uncertain", "npm install runs the install scripts"},
			// the .npmrc may be changed earlier in the same command
			{"echo ignore-scripts=false >> .npmrc && npm install", "docker:*", "uncertain", ".npmrc, written earlier in this command"},
			{"sed -i d .npmrc; npm ci", "docker:*", "uncertain", ".npmrc, written earlier"},
			{"mkdir -p x && npm ci", "docker:*", "uncertain", ".npmrc turns scripts off, but mkdir ran earlier"},
			{"git status && npm ci", "docker:*", "", ""},
		},
		"ignore-scripts=true\nignore-scripts=false\n": {{"npm install", "rm -rf:*", "certain", "script postinstall"}},
		"ignore-scripts=${IGNORE}\n":                  {{"npm install", "rm -rf:*", "certain", "script postinstall"}},
		"ignore-scripts\n":                            {{"npm ci", "rm -rf:*", "certain", "script postinstall"}},
	} {
		checkScripts(t, map[string]string{"package.json": pkg, ".npmrc": npmrc, "sub/package.json": `{"name": "s"}`}, cases)
	}
}

// TestPackageScriptsWorkspaces: npm run X -w / --workspaces reads the
// workspaces' scripts (issue 27), so deny rules see them, named by file;
// a workspace glob leading outside the project, a root above, yarn's and
// pnpm's workspace commands (not modelled) are uncertain.
func TestPackageScriptsWorkspaces(t *testing.T) {
	t.Parallel()
	checkScripts(t, map[string]string{
		"package.json":              `{"workspaces": ["packages/*", "tools/out"], "scripts": {"clean": "echo root"}}`,
		"packages/web/package.json": `{"name": "@app/web", "scripts": {"clean": "rm -rf dist", "lint": "eslint ."}}`,
		"packages/api/package.json": `{"name": "api", "scripts": {"preclean": "git push --force", "clean": "echo api", "t2": "npm run clean -w @app/web"}}`,
		"packages/doc/package.json": `{"name": "doc", "scripts": {"lint": "echo $1"}}`,

		"nested/package.json":        `{"workspaces": ["../packages/*"], "scripts": {}}`,
		"packages/web/sub/README.md": "x\n",
	}, []scriptCase{
		{"npm run clean -w @app/web", "rm -rf:*", "certain", "packages/web/package.json:1 script clean runs rm -rf dist"},
		{"npm run clean --workspace=packages/web", "rm -rf:*", "certain", "script clean runs rm -rf dist"},
		{"npm run clean -w packages", "rm -rf:*", "certain", "script clean runs rm -rf dist"},
		{"npm run clean -w api", "git push:*", "certain", "script preclean runs git push --force"},
		{"npm run clean -w api", "rm -rf:*", "", ""},
		{"npm run lint -w doc -- --fix", "rm -rf:*", "", ""},
		// Inside a workspace npm takes the root above: not modelled.
		{"npm run t2 -w api", "rm -rf:*", "uncertain", "as the workspace root"},
		{"@packages/web/sub npm run clean -w ../../api", "git push:*", "uncertain", "as the workspace root"},
		{"npm run clean -w nothere", "rm -rf:*", "", ""},
		{"@packages/web npm run clean -w api", "docker:*", "uncertain", "as the workspace root"},
		{"@nested npm run clean -ws", "docker:*", "uncertain", "as the workspace root"},
		{"npm run clean -w \"$W\"", "docker:*", "uncertain", "only known at run time"},
		{"yarn workspace api run clean", "docker:*", "uncertain", "yarn workspace runs other packages' scripts"},
		{"yarn workspaces foreach run clean", "docker:*", "uncertain", "yarn workspaces runs"},
		{"pnpm run -r clean", "docker:*", "uncertain", "-r"},
		{"bun run --filter api clean", "docker:*", "uncertain", "--filter"},
		{"pnpm -r run clean", "docker:*", "uncertain", "-r"},
		{"pnpm --filter api run clean", "docker:*", "uncertain", "--filter"},
	})
	// A workspace glob that leads out of the project (a link, ../): npm
	// runs what the package there holds, and its name may be any -w's.
	for _, out := range []string{"->~/other", "../other"} {
		files := map[string]string{
			"package.json":              `{"workspaces": ["packages/*", "tools/out"]}`,
			"packages/web/package.json": `{"name": "web", "scripts": {"clean": "echo web"}}`,
			"../other/package.json":     `{"name": "web", "scripts": {"clean": "rm -rf /"}}`,
		}
		if out == "../other" {
			files["package.json"] = `{"workspaces": ["packages/*", "../other"]}`
		} else {
			files["tools/out"] = out
		}
		checkScripts(t, files, []scriptCase{
			{"npm run clean --workspaces", "rm -rf:*", "uncertain", "out"},
			{"npm run clean -w web", "docker:*", "uncertain", "out"},
			{"npm run clean -w packages/web", "docker:*", "uncertain", "out"},
		})
	}
}
