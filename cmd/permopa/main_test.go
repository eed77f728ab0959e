package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	permopacmd "github.com/permopa/permopa/cmd/permopa"
)

var permopaBin string

// TestMain provides the permopa binary the process-level tests run. The
// test binary is that binary: started under the name "permopa" (a link in a
// temporary directory) it runs its command line as main does, so a run of
// the package links the 60 MB binary once, not twice. Benchmarks time the
// real binary's start-up (BENCHMARKS.md), so with -test.bench it is built.
func TestMain(m *testing.M) {
	if mode := os.Getenv(peerHelperEnv); mode != "" {
		// A process of another user for the hook server tests
		// (hookserver_test.go), run from this binary.
		os.Exit(peerHelper(mode))
	}
	if filepath.Base(os.Args[0]) == "permopa" {
		os.Exit(permopacmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, permopacmd.ProcEnv{}))
	}
	if filepath.Base(os.Args[0]) == floorName {
		os.Exit(floorDecide(os.Stdin, os.Stdout))
	}
	dir, err := os.MkdirTemp("", "permopa-bin")
	if err != nil {
		panic(err)
	}
	permopaBin = filepath.Join(dir, "permopa")
	// `permopa install` refuses a binary in the temporary directory (it
	// would not stay there): the tests' temporary files go to a directory
	// of their own, which does not hold permopaBin.
	tmp, err := os.MkdirTemp("", "pt")
	if err != nil {
		panic(err)
	}
	// Searchable by other users as /tmp is: nginx runs as nobody and reads
	// its directory under it (sharedTempDir); each test's own directory
	// stays private.
	if err := os.Chmod(tmp, 0o755); err != nil {
		panic(err)
	}
	os.Setenv("TMPDIR", tmp)
	// A runtime directory of the tests' own: the hooks ask a server on the
	// per-user socket by default, and a server some other process runs on
	// this machine must not answer the tests' hooks.
	rt := filepath.Join(dir, "rt")
	if err := os.Mkdir(rt, 0o700); err != nil {
		panic(err)
	}
	os.Setenv("XDG_RUNTIME_DIR", rt)
	// The runner's own permopa settings and server must not reach the
	// tests (nor the servers they share, which read this environment).
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "PERMOPA_") || k == "XDG_CONFIG_HOME" {
			os.Unsetenv(k)
		}
	}
	// permopa-hook starts no hook server for the tests that do not test
	// it (hookserver_test.go turns it on): a server outlives its hook.
	os.Setenv("PERMOPA_HOOK_SERVER", "0")
	if benchmarking(os.Args[1:]) {
		out, err := exec.Command("go", "build", "-o", permopaBin, ".").CombinedOutput()
		if err != nil {
			os.Stderr.Write(out)
			panic(err)
		}
	} else {
		// A hard link (a copy across file systems), not a symbolic link:
		// `permopa install` writes os.Executable() into the hooks, which
		// must name "permopa".
		self, err := os.Executable()
		if err != nil {
			panic(err)
		}
		if err := linkOrCopy(self, permopaBin); err != nil {
			panic(err)
		}
	}
	code := m.Run()
	stopSharedServers()
	os.RemoveAll(dir)
	os.RemoveAll(tmp)
	os.Exit(code)
}

// linkOrCopy makes dst the file src: a hard link, else a copy.
func linkOrCopy(src, dst string) error {
	if os.Link(src, dst) == nil {
		return nil
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o755)
}

// benchmarking reports whether the test binary's flags ask for benchmarks.
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

// sample returns every case with -tags slow; without, every third one,
// the first included, so that `go test ./...` stays quick while CI runs
// them all. For tables whose cases each run several permopa processes (the
// local hook, the server, the small client) to compare their answers.
func sample[T any](cases []T) []T {
	if slowTests {
		return cases
	}
	var out []T
	for i := 0; i < len(cases); i += 3 {
		out = append(out, cases[i])
	}
	return out
}

// slowOnly skips a test without -tags slow: load tests, checks of every
// help text and of the fleet distribution through nginx. .ci/run runs them
// on every CI run (docs/development.md).
func slowOnly(t *testing.T) {
	t.Helper()
	if !slowTests {
		t.Skip("a slow check: runs with -tags slow (.ci/run)")
	}
}

// permopa runs permopa's command line args in process, through the same
// command tree main runs (root.go), with stdin and the test process's
// environment, and returns stdout, stderr and the exit status main would
// exit with. For what only a process shows (a server, signals, the exit
// status of the binary itself), runPermopa.
func permopa(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	return permopaWith(t, stdin, nil, args...)
}

// permopaWith is permopa with environment variables set for the command
// (HOME, PERMOPA_SERVER: what permopa's own commands read through their
// lookupEnv) over the test process's.
func permopaWith(t testing.TB, stdin string, env map[string]string, args ...string) (string, string, int) {
	t.Helper()
	environ := os.Environ()
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	var out, errb bytes.Buffer
	code := permopacmd.Run(args, strings.NewReader(stdin), &out, &errb, permopacmd.ProcEnv{Environ: environ})
	return out.String(), errb.String(), code
}

// inProcess are the commands that read their working directory,
// environment and executable path only from the command tree (root.go,
// procEnv), so that permopaAt runs them in process. OPA's commands write
// to the process's streams. install's own reading of os.Executable, as a
// process, is held by TestInstallWritesTheFastHook.
var inProcess = map[string]bool{"decide": true, "replay": true, "insights": true, "rules": true, "bash": true, "explain": true, "hook": true,
	"install": true, "uninstall": true, "doctor": true, "trust": true}

// permopaAt is runPermopa for the commands of inProcess, run in process
// with dir as their working directory ("" for the test's), env over the
// test process's environment and permopaBin as their executable: what a
// permopa process started there would answer, without the process (its
// start and OPA's initialisation).
// Other commands run as runPermopa does.
func permopaAt(t *testing.T, dir, stdin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	if len(args) == 0 || !inProcess[args[0]] {
		return runPermopa(t, dir, stdin, env, args...)
	}
	var out, errb bytes.Buffer
	p := permopacmd.ProcEnv{Dir: dir, Environ: append(os.Environ(), env...), Executable: permopaBin, StartHook: startHookInProcess}
	code := permopacmd.Run(args, strings.NewReader(stdin), &out, &errb, p)
	return out.String(), errb.String(), code
}

// startHookInProcess runs the hook command doctor checks with its harmless
// call (ProcEnv.StartHook) for the commands permopaAt runs: `permopa hook
// …` of the test's permopa binary in process, through the command tree
// main runs, in doctor's directory and environment (what that process
// answers, as hookExec holds), without a process start and policy compile
// for each doctor run (issue 25, the quick suite). Any other binary, and a
// hook that names a TCP server or a deadline (needsProcess), is a process.
// doctor running the installed hook as a process is held by the tests that
// run doctor as permopaExe does or with no StartHook:
// TestInstallWritesTheFastHook (the hook binaries install writes),
// TestDoctorInHomeRunsTheUsersBinary (`permopa hook`) and
// TestHookServerDoctor.
func startHookInProcess(ctx context.Context, bin string, args []string, dir string, environ []string, stdin []byte, stdout, stderr io.Writer) (int, error) {
	self, err1 := os.Stat(permopaBin)
	fi, err2 := os.Stat(bin)
	if err1 == nil && err2 == nil && os.SameFile(self, fi) && len(args) > 0 && args[0] == "hook" && !needsProcess(args, environ) {
		p := permopacmd.ProcEnv{Dir: dir, Environ: environ, Executable: bin}
		return permopacmd.Run(args, bytes.NewReader(stdin), stdout, stderr, p), nil
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, environ
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		return 0, err
	}
	return cmd.ProcessState.ExitCode(), nil
}

// runPermopa runs the binary in dir ("" for the test's) with extra
// environment variables and returns stdout, stderr and the exit code.
func runPermopa(t *testing.T, dir, stdin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(permopaBin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

type decision struct {
	Behavior       string           `json:"behavior"`
	ToolUseID      any              `json:"tool_use_id"`
	Line           int              `json:"line"`
	Step           string           `json:"step"`
	Message        string           `json:"message"`
	Code           string           `json:"code"`
	SuggestedRules []map[string]any `json:"suggested_rules"`
	MatchedRule    map[string]any   `json:"matched_rule"`
}

func decisions(t *testing.T, out string) []decision {
	t.Helper()
	var ds []decision
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var d decision
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("output %q: %v", sc.Text(), err)
		}
		ds = append(ds, d)
	}
	return ds
}

// TestDecideMatrixConformance pipes every case of the AgentScope matrix
// through `permopa decide` in one process.
func TestDecideMatrixConformance(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../engine/testdata/matrix-cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	out, stderr, code := permopa(t, string(raw), "decide")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	ds := decisions(t, out)
	if len(ds) != len(lines) {
		t.Fatalf("%d decisions for %d inputs", len(ds), len(lines))
	}
	failed := 0
	for i, line := range lines {
		var c struct{ ID, Expect, ExpectStep string }
		var m map[string]any
		_ = json.Unmarshal([]byte(line), &m)
		c.ID, _ = m["id"].(string)
		c.Expect, _ = m["expect"].(string)
		c.ExpectStep, _ = m["expect_step"].(string)
		if ds[i].Behavior != c.Expect || ds[i].Step != c.ExpectStep {
			failed++
			t.Errorf("%s: got %s/%s, want %s/%s", c.ID, ds[i].Behavior, ds[i].Step, c.Expect, c.ExpectStep)
		}
	}
	t.Logf("permopa decide: %d matrix cases, %d failed", len(lines), failed)
}

// TestReadmeCommand runs the README's first set-up command as the README
// shows it (the echo's JSON into `permopa decide`) and compares the answer
// with the decision the README prints.
func TestReadmeCommand(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	cmd := regexp.MustCompile(`(?m)^echo '([^']*)' \| go run \./cmd/permopa decide$`).FindSubmatch(readme)
	shown := regexp.MustCompile("(?s)```json\n(\\{\"behavior\".*?)\n```").FindSubmatch(readme)
	if cmd == nil || shown == nil {
		t.Fatal("README.md: no `echo '...' | go run ./cmd/permopa decide` command, or no decision shown after it")
	}
	if !bytes.Contains(readme, []byte("\ngo test ./...\n")) {
		t.Error("README.md: the set-up commands lack `go test ./...`")
	}
	out, stderr, code := permopa(t, string(cmd[1])+"\n", "decide")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got, want any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if err := json.Unmarshal(shown[1], &want); err != nil {
		t.Fatalf("README.md's decision: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("README.md shows\n%s\nthe command prints\n%s", shown[1], out)
	}
}

// Malformed lines are each a DENY with step error; the process keeps going and exits 0.
func TestDecideMalformedInput(t *testing.T) {
	t.Parallel()
	in := "not json\n" +
		`{"tool_input":{}}` + "\n" +
		`{"tool_name":"Bash","tool_input":[]}` + "\n" +
		`{"tool_name":"Bash","tool_input":{"command":"ls"},"permission_mode":"sometimes"}` + "\n" +
		`{"tool_name":"Read","tool_input":{"file_path":["/etc/passwd"]}}` + "\n" +
		`{"tool_name":"Read","tool_input":{"file_path":"/etc/hosts"}}` + "\n"
	out, stderr, code := permopa(t, in, "decide")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	ds := decisions(t, out)
	if len(ds) != 6 {
		t.Fatalf("got %d decisions", len(ds))
	}
	for i, field := range []string{"JSON", "tool_name", "tool_input", "permission_mode", "tool_input.file_path"} {
		if ds[i].Behavior != "DENY" || ds[i].Step != "error" || !strings.Contains(ds[i].Message, field) {
			t.Errorf("line %d: %+v should be DENY/error naming %s", i+1, ds[i], field)
		}
	}
	if ds[5].Behavior != "ALLOW" {
		t.Errorf("the valid last line: %+v", ds[5])
	}
}

// TestDecideLineFraming: four lines in, four decisions out, in order, even
// when one is cut short; the error decision names the line and the call's
// tool_use_id; a pretty-printed document is one input.
func TestDecideLineFraming(t *testing.T) {
	t.Parallel()
	in := `{"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"a"}` + "\n" +
		`{"tool_use_id":"b","tool_name":"Bash",` + "\n" +
		`{"tool_name":"Bash","tool_input":{"command":"rm -rf /"},"tool_use_id":"c"}` + "\n" +
		`{"tool_name":"Bash","tool_input":{"command":"git status"},"tool_use_id":"d"}` + "\n" +
		"{\n  \"tool_name\": \"Bash\",\n  \"tool_input\": {\"command\": \"pwd\"},\n  \"tool_use_id\": \"e\"\n}\n"
	out, stderr, code := permopa(t, in, "decide")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	ds := decisions(t, out)
	if len(ds) != 5 {
		t.Fatalf("%d decisions for 4 lines and a document:\n%s", len(ds), out)
	}
	for i, id := range []string{"a", "b", "c", "d", "e"} {
		if ds[i].ToolUseID != id {
			t.Errorf("decision %d answers %v, want %s", i+1, ds[i].ToolUseID, id)
		}
	}
	if ds[1].Behavior != "DENY" || ds[1].Code != "invalid_json" || ds[1].Line != 2 || !strings.Contains(ds[1].Message, "line 2") {
		t.Errorf("the cut line: %+v", ds[1])
	}
	if ds[0].Behavior != "ALLOW" || ds[2].Behavior != "ASK" || ds[3].Behavior != "ALLOW" || ds[4].Behavior != "ALLOW" || ds[0].Line != 0 {
		t.Errorf("the whole lines: %+v", ds)
	}
}

// Settings files give rules with their layer, and --mode sets the default
// mode; an invalid allow rule is reported and left out (an invalid deny
// rule denies every call: TestDecideFailsClosedOnUnreadableSettings).
func TestDecideWithSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(settings, []byte(`{"permissions": {"allow": ["Bash(npm run:*)", "Bash(bad"], "deny": ["Bash(git push:*)"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	in := `{"tool_name":"Bash","tool_input":{"command":"npm run build"},"cwd":"/tmp"}` + "\n" +
		`{"tool_name":"Bash","tool_input":{"command":"cd sub && git push --force"},"cwd":"/tmp"}` + "\n" +
		`{"tool_name":"Bash","tool_input":{"command":"make"},"cwd":"/tmp"}` + "\n"
	out, stderr, code := permopa(t, in, "decide", "--settings", settings, "--mode", "dontAsk")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "Bash(bad") {
		t.Errorf("the invalid rule is not reported: %q", stderr)
	}
	ds := decisions(t, out)
	if ds[0].Behavior != "ALLOW" || ds[0].Step != "allow_rule" || ds[0].MatchedRule["layer"] != settings {
		t.Errorf("npm run build: %+v", ds[0])
	}
	if ds[1].Behavior != "DENY" || ds[1].Step != "deny_rule" {
		t.Errorf("git push: %+v", ds[1])
	}
	if ds[2].Behavior != "DENY" || ds[2].Step != "mode_fallback" {
		t.Errorf("make in dontAsk: %+v", ds[2])
	}
}

// BenchmarkDecideCLI measures `permopa decide` per input line: one process
// decides b.N lines of a three-part Bash compound (process start and policy
// compilation are amortised over the lines).
func BenchmarkDecideCLI(b *testing.B) {
	line := `{"tool_name":"Bash","tool_input":{"command":"ls -la src | grep foo && git diff --stat"},"permission_mode":"default","cwd":"/w"}` + "\n"
	in := strings.Repeat(line, b.N)
	b.ResetTimer()
	cmd := exec.Command(permopaBin, "decide")
	cmd.Stdin = strings.NewReader(in)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		b.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n"); n != b.N {
		b.Fatalf("%d decisions for %d lines", n, b.N)
	}
}

// A policy author extends the embedded policy with a package for their
// custom tool, without Go: `permopa decide --policy dir`.
func TestDecideWithCustomToolPolicy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := `# METADATA
# title: deploy tool checks
# description: Production deploys always need a human; staging deploys are read-only.
package permopa.custom.deploy

check := {"behavior": "ASK", "bypass_immune": true, "message": "production deploy"} if input.tool_input.target == "prod"

read_only if input.tool_input.target == "staging"
`
	if err := os.WriteFile(filepath.Join(dir, "deploy.rego"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	in := `{"tool_name":"deploy","tool_input":{"target":"prod"},"permission_mode":"bypassPermissions"}` + "\n" +
		`{"tool_name":"deploy","tool_input":{"target":"prod"},"permission_mode":"acceptEdits"}` + "\n" +
		`{"tool_name":"deploy","tool_input":{"target":"staging"},"permission_mode":"plan"}` + "\n"
	out, stderr, code := permopa(t, in, "decide", "--policy", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	ds := decisions(t, out)
	if ds[0].Behavior != "ALLOW" || ds[0].Step != "mode_fallback" {
		t.Errorf("BYPASS skips the safety ask: %+v", ds[0])
	}
	if ds[1].Behavior != "ASK" || ds[1].Step != "tool_check" || ds[1].Message != "production deploy" {
		t.Errorf("prod deploy: %+v", ds[1])
	}
	if ds[2].Behavior != "ALLOW" || ds[2].Step != "read_only" {
		t.Errorf("staging deploy: %+v", ds[2])
	}
}

// An error is reported once: OPA's commands print their own (run, build),
// permopa's and cobra's are printed by main. OPA's commands write to the
// process's streams: processes; permopa's and cobra's errors go through
// run (root.go), which main calls with the process's streams and whose
// result it exits with: in process (issue 25, the quick suite).
func TestErrorsReportedOnce(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args      []string
		want      string
		inProcess bool
	}{
		{[]string{"run", "--server", "--set", "plugins.permopa.default_polcy=off"}, `unknown field "default_polcy"`, false},
		{[]string{"build", "-b", "/nonexistent/bundle"}, "no such file or directory", false},
		{[]string{"decide", "--settings", "/nonexistent/settings.yaml"}, "no such file or directory", true},
		{[]string{"nosuchcmd"}, `unknown command "nosuchcmd"`, true},
	} {
		run := runPermopa
		if c.inProcess {
			run = func(t *testing.T, dir, stdin string, env []string, args ...string) (string, string, int) {
				var out, errb bytes.Buffer
				code := permopacmd.Run(args, strings.NewReader(stdin), &out, &errb, permopacmd.ProcEnv{Dir: dir, Environ: append(os.Environ(), env...), Executable: permopaBin})
				return out.String(), errb.String(), code
			}
		}
		stdout, stderr, code := run(t, t.TempDir(), "", nil, c.args...)
		if code == 0 {
			t.Errorf("%v: exit 0, want an error", c.args)
		}
		if n := strings.Count(stdout+stderr, c.want); n != 1 {
			t.Errorf("%v: %q reported %d times, want once:\n%s%s", c.args, c.want, n, stdout, stderr)
		}
	}
}

// TestDecideSettingsErrorsNameTheLine: a --settings file that does not
// parse stops `permopa decide` with the file, line and column of the
// mistake, and no word about rules applying (nothing was decided); a rule
// that cannot be read is a warning naming its file, line and key.
func TestDecideSettingsErrorsNameTheLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct{ file, want string }{
		{write("bad.yaml", "permissions:\n  allow:\n    - \"Bash(ls:*)\"\n  deny:\n    - \"Bash(rm:*)\"\n   ask: [\"x\"]\n"), "bad.yaml:6:4: not valid yaml: did not find expected key (found `ask`)"},
		{write("bad.json", "{\"permissions\": {\n  \"allow\": [\"Bash(ls:*)\",\n]}}"), "bad.json:3:1: not valid json: invalid character ']' looking for beginning of value"},
	} {
		out, stderr, code := permopa(t, `{"tool_name":"Bash","tool_input":{"command":"ls"}}`+"\n", "decide", "--settings", c.file)
		if code == 0 || out != "" {
			t.Errorf("%s: exit %d, stdout %q: want no decision", c.file, code, out)
		}
		if !strings.Contains(stderr, c.want) || strings.Contains(stderr, "rules apply") || strings.Contains(stderr, "While parsing") {
			t.Errorf("%s: stderr %q, want %q", c.file, stderr, c.want)
		}
	}
	rules := write("rules.yaml", "permissions:\n  allow:\n    - \"Bash(ls:*)\"\n    - \"Bash(oops\"\n  defaultMode: yolo\n")
	_, stderr, code := permopa(t, `{"tool_name":"Bash","tool_input":{"command":"ls"}}`+"\n", "decide", "--settings", rules)
	if code != 0 || !strings.Contains(stderr, rules+`:4:7: permissions.allow: rule "Bash(oops"`) || !strings.Contains(stderr, rules+`:5:16: permissions.defaultMode`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// `permopa run --help` states the default address a permopa server really
// listens on (the per-user socket with --server), not OPA's.
func TestRunHelpStatesTheRealDefaultAddress(t *testing.T) {
	t.Parallel()
	out, stderr, code := permopaWith(t, "", map[string]string{"XDG_RUNTIME_DIR": "/run/user/4242"}, "run", "--help")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(out, "(default [localhost:8181])") {
		t.Error("run --help gives OPA's default address as the default")
	}
	if !strings.Contains(out, "default with --server: this user's socket unix://") || !strings.Contains(out, "without --server: localhost:8181") {
		t.Errorf("run --help does not state the default addresses:\n%s", out)
	}
}
