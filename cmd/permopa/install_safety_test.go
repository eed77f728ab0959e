//go:build unix

package main_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/pelletier/go-toml/v2"

	permopacmd "github.com/permopa/permopa/cmd/permopa"
)

// permopaExe runs permopa's command line in process as a permopa binary at
// exe would (install writes exe into the hooks), in dir.
func permopaExe(t *testing.T, exe, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	p := permopacmd.ProcEnv{Dir: dir, Environ: append(os.Environ(), env...), Executable: exe}
	code := permopacmd.Run(args, strings.NewReader(""), &out, &errb, p)
	return out.String(), errb.String(), code
}

// stableDir is a directory outside the temporary directory (TestMain's
// TMPDIR), where install accepts a binary.
func stableDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp(filepath.Dir(permopaBin), "stable")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

type hostScope struct{ host, scope string }

var hostScopes = []hostScope{{"claude", "user"}, {"claude", "project"}, {"claude", "local"}, {"codex", "user"}, {"codex", "project"}, {"gemini", "user"}, {"gemini", "project"}}

// settingsFile is the file install writes for host and scope.
func settingsFile(hs hostScope, home, proj string) string {
	dir := map[string]string{"user": home, "project": proj, "local": proj}[hs.scope]
	switch hs.host + "/" + hs.scope {
	case "claude/local":
		return filepath.Join(proj, ".claude", "settings.local.json")
	case "codex/user", "codex/project":
		return filepath.Join(dir, ".codex", "config.toml")
	}
	return filepath.Join(dir, "."+hs.host, "settings.json")
}

func installEnv(home string) []string {
	return []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=", "CODEX_HOME=" + filepath.Join(home, ".codex"), "PATH=/nonexistent", "GEMINI_CLI_TRUSTED_FOLDERS_PATH=", "XDG_CACHE_HOME=" + filepath.Join(home, ".cache")}
}

// Planted links and odd files around each host's settings file, per scope
// (issue 24): install and uninstall never write through a link (the
// link's target keeps its content), refuse a link, directory or pipe as
// the file (naming it, and where a link points), and never follow a
// project's directory that is a link out of the project.
func TestInstallPlantedLinks(t *testing.T) {
	t.Parallel()
	type plant struct {
		name    string
		project bool   // only for project and local scopes
		wantErr string // "" : the install succeeds (the file is written in place)
		do      func(t *testing.T, file, victim string)
	}
	plants := []plant{
		{"link as the old temporary name", false, "", func(t *testing.T, file, victim string) {
			os.MkdirAll(filepath.Dir(file), 0o755)
			must(t, os.Symlink(victim, file+".permopa-tmp"))
		}},
		{"link as the settings file", false, "is a symbolic link to VICTIM", func(t *testing.T, file, victim string) {
			os.MkdirAll(filepath.Dir(file), 0o755)
			must(t, os.Symlink(victim, file))
		}},
		{"directory as the settings file", false, "not a regular file (a directory)", func(t *testing.T, file, victim string) {
			must(t, os.MkdirAll(file, 0o755))
		}},
		{"named pipe as the settings file", false, "not a regular file (a named pipe)", func(t *testing.T, file, victim string) {
			os.MkdirAll(filepath.Dir(file), 0o755)
			must(t, syscall.Mkfifo(file, 0o644))
		}},
		{"the host's directory a link out of the project", true, "is a symbolic link to", func(t *testing.T, file, victim string) {
			must(t, os.Symlink(filepath.Dir(victim), filepath.Dir(file)))
		}},
	}
	for _, hs := range hostScopes {
		for _, p := range plants {
			if p.project && hs.scope == "user" {
				continue
			}
			t.Run(hs.host+"/"+hs.scope+"/"+p.name, func(t *testing.T) {
				t.Parallel()
				home, proj, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
				file := settingsFile(hs, home, proj)
				victim := filepath.Join(elsewhere, filepath.Base(file))
				content := "{\"victim\": true}\n"
				if hs.host == "codex" {
					content = "victim = true\n"
				}
				must(t, os.WriteFile(victim, []byte(content), 0o600))
				p.do(t, file, victim)
				want := strings.ReplaceAll(p.wantErr, "VICTIM", victim)
				for _, verb := range []string{"install", "uninstall"} {
					out, errOut, code := permopaAt(t, proj, "", installEnv(home), verb, hs.host, "--scope", hs.scope)
					if want != "" && (code == 0 || !strings.Contains(errOut, want)) {
						t.Errorf("%s: exit %d, want an error with %q:\n%s%s", verb, code, want, out, errOut)
					}
					if want == "" && !strings.Contains(out, "wrote "+file) && !strings.Contains(out, "removed "+file) {
						t.Errorf("%s: exit %d, want %s written:\n%s%s", verb, code, file, out, errOut)
					}
					if b, _ := os.ReadFile(victim); string(b) != content {
						t.Fatalf("%s wrote the link's target %s:\n%s", verb, victim, b)
					}
				}
			})
		}
	}
}

// A hook install writes blocks the call when it cannot run (issue 25):
// the binary deleted, not executable, crashing or failing, the installed
// command run as the hosts run it (sh -c) exits 2, which blocks on all
// three hosts; Claude Code's hooks also carry "onFailure": "block".
func TestInstalledHookFailsClosed(t *testing.T) {
	t.Parallel()
	breakages := map[string]func(t *testing.T, bin string){
		"deleted": func(t *testing.T, bin string) { must(t, os.Remove(bin)) },
		"not executable": func(t *testing.T, bin string) {
			must(t, os.Remove(bin))
			must(t, os.WriteFile(bin, []byte("#!/bin/sh\nexit 0\n"), 0o644))
		},
		"crashes": func(t *testing.T, bin string) {
			must(t, os.Remove(bin))
			must(t, os.WriteFile(bin, []byte("#!/bin/sh\nkill -SEGV $$\n"), 0o755))
		},
		"exits 1": func(t *testing.T, bin string) {
			must(t, os.Remove(bin))
			must(t, os.WriteFile(bin, []byte("#!/bin/sh\nexit 1\n"), 0o755))
		},
	}
	names := slices.Sorted(maps.Keys(breakages))
	for i, hs := range []hostScope{{"claude", "user"}, {"codex", "user"}, {"gemini", "user"}, {"claude", "local"}} {
		for k, name := range names {
			breakIt := breakages[name]
			// The quick suite: each host and scope with one breakage, each
			// breakage once; every pair with -tags slow (issue 25).
			if !slowTests && k != i%len(names) {
				continue
			}
			t.Run(hs.host+"/"+hs.scope+"/"+name, func(t *testing.T) {
				t.Parallel()
				home, proj, dir := t.TempDir(), t.TempDir(), stableDir(t)
				bin := filepath.Join(dir, "permopa")
				must(t, os.Link(permopaBin, bin))
				out, errOut, _ := permopaExe(t, bin, proj, installEnv(home), "install", hs.host, "--scope", hs.scope)
				file := settingsFile(hs, home, proj)
				commands := installedCommands(t, hs.host, file)
				if len(commands) == 0 {
					t.Fatalf("no hook written:\n%s%s", out, errOut)
				}
				breakIt(t, bin)
				for _, c := range commands {
					if !strings.HasPrefix(c.command, bin+" hook "+hs.host) {
						t.Errorf("command %q does not run %s", c.command, bin)
					}
					if hs.host == "claude" && c.onFailure != "block" {
						t.Errorf("claude hook without onFailure block: %+v", c)
					}
					cmd := exec.Command("sh", "-c", c.command)
					cmd.Dir = proj
					cmd.Stdin = strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`)
					err := cmd.Run()
					code := 0
					if ee, ok := err.(*exec.ExitError); ok {
						code = ee.ExitCode()
					}
					if code != 2 {
						t.Errorf("%s: `sh -c %s` exits %d (%v), want 2 (blocks)", name, c.command, code, err)
					}
				}
			})
		}
	}
}

type hookCommand struct{ command, onFailure string }

// installedCommands are every hook command of a host settings file.
func installedCommands(t *testing.T, host, file string) []hookCommand {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Hooks map[string]any `json:"hooks" toml:"hooks"`
	}
	if host == "codex" {
		err = toml.Unmarshal(raw, &doc)
	} else {
		err = json.Unmarshal(raw, &doc)
	}
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var out []hookCommand
	for _, groups := range doc.Hooks {
		gs, _ := groups.([]any)
		for _, g := range gs {
			hs, _ := g.(map[string]any)["hooks"].([]any)
			for _, h := range hs {
				m := h.(map[string]any)
				c, _ := m["command"].(string)
				f, _ := m["onFailure"].(string)
				out = append(out, hookCommand{c, f})
			}
		}
	}
	return out
}

// install refuses a binary that will not stay (go run's, one in the
// temporary directory) and says how to get one that does; project scope
// writes a command each teammate's PATH resolves and says what they need.
func TestInstallBinaryThatStays(t *testing.T) {
	t.Parallel()
	home, proj := t.TempDir(), t.TempDir()
	for exe, why := range map[string]string{
		"/tmp/go-build2931/b001/exe/permopa":                       "Go's build cache",
		filepath.Join(os.Getenv("TMPDIR"), "dl", "permopa"):        "temporary directory",
		filepath.Join(home, ".cache", "go-build", "ab", "permopa"): "Go's build cache",
	} {
		for _, host := range []string{"claude", "codex", "gemini"} {
			out, errOut, code := permopaExe(t, exe, proj, installEnv(home), "install", host)
			if code == 0 || !strings.Contains(errOut, why) || !strings.Contains(errOut, "go install ./cmd/permopa") {
				t.Errorf("%s %s: exit %d\n%s%s", host, exe, code, out, errOut)
			}
		}
	}
	// go run's executable cached (Go 1.24+) in a build cache that no
	// variable names (`go env -w GOCACHE=DIR` writes it to go's own
	// configuration file): known by its entry's shape, DIR/xx/<hash>-d/.
	elsewhere := filepath.Join(stableDir(t), "gocache", "d2", strings.Repeat("d2", 32)+"-d", "permopa")
	for _, host := range []string{"claude", "codex", "gemini"} {
		out, errOut, code := permopaExe(t, elsewhere, proj, append(installEnv(home), "GOCACHE="), "install", host)
		if code == 0 || !strings.Contains(errOut, "Go's build cache") {
			t.Errorf("%s %s: exit %d\n%s%s", host, elsewhere, code, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".claude")); err == nil {
		t.Error("a refused install wrote something")
	}
	// Project scope: a name on PATH, whatever the installer's binary.
	out, errOut, code := permopaExe(t, "/tmp/go-build2931/b001/exe/permopa", proj, installEnv(home), "install", "claude", "--scope", "project")
	file := filepath.Join(proj, ".claude", "settings.json")
	if code != 0 || !strings.Contains(errOut, "Each teammate needs permopa on that PATH") || !strings.Contains(errOut, "not on your own PATH") {
		t.Fatalf("project scope: exit %d\n%s%s", code, out, errOut)
	}
	for _, c := range installedCommands(t, "claude", file) {
		if c.command != "permopa hook claude || exit 2" {
			t.Errorf("project hook command %q", c.command)
		}
	}
}

// doctor never runs what a repository could have put there (issue 24): a
// relative path, a file inside the project (by path, by PATH, by a link),
// or a program that is not a permopa binary; it says why, and fails.
func TestDoctorNeverRunsProjectContent(t *testing.T) {
	t.Parallel()
	home, proj, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	pwned := filepath.Join(home, "pwned")
	script := "#!/bin/sh\ntouch " + pwned + "\necho '{}'\n"
	must(t, os.WriteFile(filepath.Join(proj, "permopa"), []byte(script), 0o755))
	must(t, os.WriteFile(filepath.Join(proj, "permopa-hook"), []byte(script), 0o755))
	must(t, os.WriteFile(filepath.Join(elsewhere, "permopa"), []byte(script), 0o755))
	must(t, os.Symlink(filepath.Join(proj, "permopa-hook"), filepath.Join(elsewhere, "permopa-hook")))
	for _, tc := range []struct {
		command, path, why string
	}{
		{"./permopa hook claude", "/usr/bin:/bin", "relative path"},
		{"./permopa hook claude || exit 2", "/usr/bin:/bin", "relative path"},
		{filepath.Join(proj, "permopa") + " hook claude || exit 2", "/usr/bin:/bin", "inside the project"},
		{"permopa hook claude || exit 2", proj + ":/usr/bin:/bin", "inside the project"},
		{"permopa-hook claude", ".:/usr/bin:/bin", "not on PATH"},
		{filepath.Join(elsewhere, "permopa-hook") + " claude || exit 2", "/usr/bin:/bin", "inside the project"},
		{filepath.Join(elsewhere, "permopa") + " hook claude || exit 2", "/usr/bin:/bin", "not a Go binary"},
		{"/bin/true permopa-hook claude", "/usr/bin:/bin", "does not run permopa's hook"},
	} {
		settings := map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": tc.command, "onFailure": "block"}}}}}}
		b, _ := json.Marshal(settings)
		file := filepath.Join(proj, ".claude", "settings.json")
		os.MkdirAll(filepath.Dir(file), 0o755)
		must(t, os.WriteFile(file, b, 0o644))
		out, errOut, code := permopaAt(t, proj, "", []string{"HOME=" + home, "PATH=" + tc.path}, "doctor", "claude", "--scope", "project")
		if tc.why == "does not run permopa's hook" && !strings.Contains(out, "has a permopa PreToolUse hook") {
			out += "(not taken for permopa's hook at all)" + tc.why
		}
		if code == 0 || !strings.Contains(out, tc.why) || strings.Contains(out, "ok   PreToolUse hook `") {
			t.Errorf("%q: exit %d, want %q:\n%s%s", tc.command, code, tc.why, out, errOut)
		}
		if _, err := os.Stat(pwned); err == nil {
			t.Fatalf("doctor ran %q", tc.command)
		}
	}
}

// doctor fails a hook whose matcher leaves a tool permopa protects
// unhooked, and a hook that would fail open. doctor checks each event's
// hook on its own, and runs each hook's harmless call (a permopa process):
// each run holds two of the seven faults, one per event, and each fault is
// wanted on a FAIL line of its own event. The last run's PermissionRequest
// hook is the sound one, which no line fails.
func TestDoctorMatchersAndFailOpen(t *testing.T) {
	t.Parallel()
	home, proj := t.TempDir(), t.TempDir()
	file := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	good := permopaBin + " hook claude || exit 2"
	type hookCase struct {
		matcher, command, onFailure, want string
	}
	sound := hookCase{"*", good, "block", ""}
	for _, run := range [][2]hookCase{
		{{"NoSuchTool", good, "block", "does not reach Bash, Read"}, {"^$", good, "block", "does not reach Bash"}},
		{{"Bash|Write", good, "block", "does not reach Read, Edit"}, {"(", good, "block", "does not reach Bash"}},
		{{"Bash|Read|Write|Edit|MultiEdit|NotebookEdit|Glob|Grep|WebFetch", good, "block", "does not reach mcp__server__tool"}, {"*", permopaBin + " hook claude", "block", "would fail open: the command does not end with `|| exit 2`"}},
		{{"", good, "", `would fail open: it has no "onFailure": "block"`}, sound},
	} {
		events := []string{"PreToolUse", "PermissionRequest"}
		hooks := map[string]any{}
		for i, tc := range run {
			hook := map[string]any{"type": "command", "command": tc.command}
			if tc.onFailure != "" {
				hook["onFailure"] = tc.onFailure
			}
			hooks[events[i]] = []any{map[string]any{"matcher": tc.matcher, "hooks": []any{hook}}}
		}
		b, _ := json.Marshal(map[string]any{"hooks": hooks})
		must(t, os.WriteFile(file, b, 0o644))
		out, _, code := permopaAt(t, proj, "", []string{"HOME=" + home, "CLAUDE_CONFIG_DIR="}, "doctor", "claude")
		if code == 0 {
			t.Errorf("%s: exit 0, want a failure:\n%s", b, out)
		}
		for i, tc := range run {
			// The FAIL lines of this event's hook (the matcher's line names
			// the matcher, the fail-open line the command).
			var fails []string
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(line, "FAIL "+events[i]+" hook") {
					fails = append(fails, line)
				}
			}
			switch {
			case tc.want == "" && len(fails) > 0:
				t.Errorf("the sound %s hook fails: %q", events[i], fails)
			case tc.want != "" && (len(fails) != 1 || !strings.Contains(fails[0], tc.want)):
				t.Errorf("%s hook, matcher %q command %q: FAIL lines %q, want one with %q:\n%s", events[i], tc.matcher, tc.command, fails, tc.want, out)
			}
		}
	}
}

// A host settings file with a typo: doctor and install name it at
// file:line:column of the offending character, and doctor does not send
// the user to install.
func TestDoctorAndInstallPositionSyntaxErrors(t *testing.T) {
	t.Parallel()
	home, proj := t.TempDir(), t.TempDir()
	for _, tc := range []struct{ host, file, text, pos string }{
		{"claude", ".claude/settings.json", "{\n  \"model\": \"opus\",\n  \"theme\": ,\n}\n", ":3:12: "},
		{"gemini", ".gemini/settings.json", "{\n  \"a\": 1\n  \"b\": 2\n}\n", ":3:3: "},
		{"codex", ".codex/config.toml", "model = \"x\"\n[hooks\n", ":2:"},
	} {
		file := filepath.Join(home, tc.file)
		os.MkdirAll(filepath.Dir(file), 0o755)
		must(t, os.WriteFile(file, []byte(tc.text), 0o644))
		out, _, code := permopaAt(t, proj, "", installEnv(home), "doctor", tc.host)
		if code == 0 || !strings.Contains(out, file+tc.pos) || strings.Contains(out, "run `permopa install") {
			t.Errorf("doctor %s: exit %d, want %s%s and no advice to install:\n%s", tc.host, code, file, tc.pos, out)
		}
		_, errOut, code := permopaAt(t, proj, "", installEnv(home), "install", tc.host)
		if code == 0 || !strings.Contains(errOut, file+tc.pos) {
			t.Errorf("install %s: exit %d, want %s%s:\n%s", tc.host, code, file, tc.pos, errOut)
		}
		if readFile(t, file) != tc.text {
			t.Errorf("%s changed", file)
		}
	}
}

// uninstall leaves a file as it was before install: byte for byte when
// the user's formatting is kept, and no file (nor the project's .claude,
// .codex, .gemini directory) when install created it.
func TestUninstallLeavesFilesAsBefore(t *testing.T) {
	t.Parallel()
	for _, hs := range hostScopes {
		home, proj := t.TempDir(), t.TempDir()
		file := settingsFile(hs, home, proj)
		for _, verb := range []string{"install", "uninstall"} {
			out, errOut, code := permopaAt(t, proj, "", installEnv(home), verb, hs.host, "--scope", hs.scope)
			if code != 0 && !(hs.host == "codex" && verb == "install") {
				t.Fatalf("%v %s: exit %d\n%s%s", hs, verb, code, out, errOut)
			}
			// The diff's header says what happens to the file: created
			// from nothing, or removed (issue 25: the removal read
			// "+++ FILE (new)").
			want := map[string]string{"install": "--- /dev/null\n+++ " + file + " (new file)\n", "uninstall": "--- " + file + "\n+++ /dev/null (removed)\n"}[verb]
			if !strings.Contains(out, want) {
				t.Errorf("%v %s: the diff does not start with %q:\n%s", hs, verb, want, out)
			}
		}
		if _, err := os.Stat(file); !os.IsNotExist(err) {
			t.Errorf("%v: uninstall left %s (%v)", hs, file, err)
		}
		if _, err := os.Stat(filepath.Dir(file)); hs.scope != "user" && !os.IsNotExist(err) {
			t.Errorf("%v: uninstall left %s", hs, filepath.Dir(file))
		}
	}
	// The user's own formatting: four spaces, one-line arrays, a hook of
	// theirs in the same event, unusual spacing in values.
	orig := `{
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)", "Read(src/**)"], "deny": []},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Write", "hooks": [{"type": "command", "command": "echo mine"}]}
        ]
    },
    "n": 1.50e0
}
`
	for _, hs := range []hostScope{{"claude", "user"}, {"claude", "project"}, {"gemini", "user"}} {
		home, proj := t.TempDir(), t.TempDir()
		file := settingsFile(hs, home, proj)
		os.MkdirAll(filepath.Dir(file), 0o755)
		must(t, os.WriteFile(file, []byte(orig), 0o600))
		out, errOut, code := permopaAt(t, proj, "", installEnv(home), "install", hs.host, "--scope", hs.scope)
		installed := readFile(t, file)
		if code != 0 || !strings.Contains(installed, `"permissions": {"allow": ["Bash(ls:*)", "Read(src/**)"], "deny": []}`) || !strings.Contains(installed, "\n    \"model\"") {
			t.Errorf("%v install reformatted the user's keys: exit %d %s\n%s", hs, code, errOut, installed)
		}
		out, errOut, code = permopaAt(t, proj, "", installEnv(home), "uninstall", hs.host, "--scope", hs.scope)
		if got := readFile(t, file); code != 0 || got != orig {
			t.Errorf("%v uninstall: exit %d\n%s%s\nwant the file as before:\n%s\ngot:\n%s", hs, code, out, errOut, orig, got)
		}
	}
}

// install and doctor on a large or deeply nested host settings file do
// bounded work (issue 24): a 200 KB nested file is refused, naming it; a
// 200 KB flat one is installed; neither allocates more than a few times
// its size (the line diff over the whole file allocated 8 bytes per pair
// of lines, gigabytes here). Not parallel: the allocation count is the
// process's.
func TestInstallBoundedOnLargeSettings(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	file := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	const depth = 40000
	nested := strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
	var flat strings.Builder
	flat.WriteString("{\n")
	for i := 0; flat.Len() < 200<<10; i++ {
		flat.WriteString(`  "key` + strings.Repeat("x", 4) + `_` + itoa(i) + `": "value",` + "\n")
	}
	flat.WriteString("  \"last\": 1\n}\n")
	codexNested := "a = " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n"
	for _, tc := range []struct {
		name, host, file, text, want string
		ok                           bool
	}{
		{"nested JSON", "claude", file, nested, "nested deeper than 64 levels", false},
		{"flat JSON", "claude", file, flat.String(), "wrote " + file, true},
		{"nested TOML", "codex", filepath.Join(home, ".codex", "config.toml"), codexNested, "nested deeper than 64 levels", false},
		{"over the size limit", "gemini", filepath.Join(home, ".gemini", "settings.json"), "{\"a\": \"" + strings.Repeat("x", 2<<20) + "\"}", "over permopa's limit", false},
	} {
		os.MkdirAll(filepath.Dir(tc.file), 0o755)
		must(t, os.WriteFile(tc.file, []byte(tc.text), 0o644))
		for _, verb := range []string{"install", "doctor"} {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			out, errOut, code := permopaAt(t, proj, "", installEnv(home), verb, tc.host)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			failed := code != 0 && !(tc.host == "codex" && strings.Contains(errOut, "codex is not on PATH")) // the trust, after the write
			if verb == "install" && (tc.ok == failed || !strings.Contains(out+errOut, tc.want) || !tc.ok && !strings.Contains(out+errOut, tc.file)) {
				t.Errorf("%s install: exit %d, want %q naming %s:\n%.2000s%.2000s", tc.name, code, tc.want, tc.file, out, errOut)
			}
			t.Logf("%s %s: %d KB file, %d KB allocated", tc.name, verb, len(tc.text)>>10, alloc>>10)
			if limit := uint64(64 << 20); alloc > limit {
				t.Errorf("%s %s allocated %d MB for a %d KB file (limit %d MB)", tc.name, verb, alloc>>20, len(tc.text)>>10, limit>>20)
			}
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// doctor's and uninstall's help describe their own flags, not install's.
func TestInstallFamilyHelp(t *testing.T) {
	t.Parallel()
	for _, verb := range []string{"doctor", "uninstall"} {
		out, _, _ := permopa(t, "", verb, "--help")
		for _, installs := range []string{"the hook command to install", "where the hooks go", "install Claude Code's http hook form"} {
			if strings.Contains(out, installs) {
				t.Errorf("%s --help shows install's %q:\n%s", verb, installs, out)
			}
		}
		if !strings.Contains(out, "--scope") {
			t.Errorf("%s --help has no --scope:\n%s", verb, out)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// permopa's own settings writes (rules add) and rules export -o go
// through the same helper: a settings file that is a link is refused and
// the link's target keeps its content, a planted temporary name is never
// written (issue 24).
func TestRulesWritesRefuseLinks(t *testing.T) {
	t.Parallel()
	for _, dest := range []string{"local", "project"} {
		dir, elsewhere := t.TempDir(), t.TempDir()
		victim := filepath.Join(elsewhere, "victim.yaml")
		must(t, os.WriteFile(victim, []byte("permissions: {}\n"), 0o600))
		name := map[string]string{"local": "settings.local.yaml", "project": "settings.yaml"}[dest]
		file := filepath.Join(dir, ".permopa", name)
		os.MkdirAll(filepath.Dir(file), 0o755)
		must(t, os.Symlink(victim, file))
		_, errOut, code := permopaIn(t, dir, "", "rules", "add", "--destination", dest, "Bash(npm test)")
		if code == 0 || !strings.Contains(errOut, "is a symbolic link") {
			t.Errorf("%s: exit %d %s", dest, code, errOut)
		}
		if b, _ := os.ReadFile(victim); string(b) != "permissions: {}\n" {
			t.Errorf("%s: the link's target was written:\n%s", dest, b)
		}
	}
	dir, elsewhere := t.TempDir(), t.TempDir()
	victim := filepath.Join(elsewhere, "victim.json")
	must(t, os.WriteFile(victim, []byte("{}"), 0o600))
	out := filepath.Join(dir, "rules.json")
	must(t, os.Symlink(victim, out+".tmp"))
	settings := filepath.Join(dir, "s.yaml")
	must(t, os.WriteFile(settings, []byte("permissions:\n  allow: [\"Bash(ls)\"]\n"), 0o600))
	if _, errOut, code := permopaIn(t, dir, "", "rules", "export", "-o", out, settings); code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	if b, _ := os.ReadFile(victim); string(b) != "{}" || !strings.Contains(readFile(t, out), `"behavior": "ALLOW"`) {
		t.Errorf("export wrote through the planted %s.tmp: %s", out, b)
	}
}

// doctor run in the home directory runs the user's own binaries there
// (~/go/bin): home is not a project.
func TestDoctorInHomeRunsTheUsersBinary(t *testing.T) {
	t.Parallel()
	home := stableDir(t)
	bin := filepath.Join(home, "go", "bin", "permopa")
	os.MkdirAll(filepath.Dir(bin), 0o755)
	must(t, os.Link(permopaBin, bin))
	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=", "PATH=/usr/bin:/bin"}
	if out, errOut, code := permopaExe(t, bin, home, env, "install", "claude"); code != 0 {
		t.Fatalf("install: %s%s", out, errOut)
	}
	out, errOut, code := permopaExe(t, bin, home, env, "doctor", "claude")
	if code != 0 || strings.Count(out, "answers a harmless call") != 2 || strings.Contains(out, "FAIL") {
		t.Errorf("doctor in home: exit %d\n%s%s", code, out, errOut)
	}
}
