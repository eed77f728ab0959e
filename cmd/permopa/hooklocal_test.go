package main_test

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
)

var (
	hookLocalOnce sync.Once
	hookLocalDir  string
	hookLocalErr  error
)

// hookLocal builds cmd/permopa-hook-local with a copy of permopa-hook
// beside it, as `go install` puts them (the client finds its local decider
// in its own directory), in a directory of their own: the other tests'
// permopa-hook, next to permopaBin, keeps deciding through `permopa hook`.
// It returns the two binaries.
func hookLocal(t testing.TB) (local, client string) {
	t.Helper()
	hookLocalOnce.Do(func() {
		hookLocalDir = filepath.Join(filepath.Dir(permopaBin), "lean")
		if hookLocalErr = os.MkdirAll(hookLocalDir, 0o755); hookLocalErr != nil {
			return
		}
		if hookLocalErr = buildCommand("permopa-hook-local", filepath.Join(hookLocalDir, "permopa-hook-local")); hookLocalErr != nil {
			return
		}
		hookLocalErr = copyExecutable(hookClient(t), filepath.Join(hookLocalDir, "permopa-hook"))
	})
	if hookLocalErr != nil {
		t.Fatal(hookLocalErr)
	}
	return filepath.Join(hookLocalDir, "permopa-hook-local"), filepath.Join(hookLocalDir, "permopa-hook")
}

// copyExecutable makes to the executable from: a hard link when both are
// on one file system (the binaries linked are this run's own copies, which
// nothing changes: buildCommand), else a copy written while
// no process is being started. A child forked while this process holds
// the copy open for writing keeps that descriptor until its exec, and an
// exec of the copy meanwhile fails with "text file busy" (ETXTBSY); the
// tests start processes in parallel, and a cold run met it. A file
// already at to is left as it is (an error for which os.IsExist holds).
func copyExecutable(from, to string) error {
	if err := os.Link(from, to); err == nil || os.IsExist(err) {
		return err
	}
	return copyNew(from, to)
}

// copyNew writes the new file to (mode 0755) with from's content while no
// process is being started (copyExecutable).
func copyNew(from, to string) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// The lean local hook answers every host exactly as `permopa hook` does
// without a server (stdout, stderr and exit status), itself and through
// permopa-hook when no server listens: recorded payloads with allow, ask
// and deny answers, empty and malformed input, flags passed on, and the
// faults that must block (a settings file that cannot be parsed, a deny
// rule that cannot be read, an unknown host or flag).
func TestHookLocalAnswersAsPermopaHook(t *testing.T) {
	t.Parallel()
	local, client := hookLocal(t)
	cwd, home := hookWorkspace(t)
	env := []string{"HOME=" + home}
	type run struct {
		file string
		args []string // after the host
	}
	runs := []run{}
	// Without -tags slow one recorded payload (claude's read-only Bash
	// call, an allow) and one input that is no payload (codex's malformed
	// one, a block on stderr): each row is a permopa-hook-local process
	// and its policy compile, and the quick suite proves each path once
	// (issue 25); the runs with flags below give the other hosts. With
	// -tags slow every payload, and the empty and malformed input of every
	// host that has them.
	for i, file := range fastPathSample() {
		if slowTests || i == 0 {
			runs = append(runs, run{file: file})
		}
	}
	for _, host := range []string{"claude", "codex", "gemini"} {
		if slowTests {
			runs = append(runs, run{file: host + "/empty.txt"})
		}
		if slowTests && host == "claude" || host == "codex" {
			runs = append(runs, run{file: host + "/malformed.txt"})
		}
	}
	// The flag sets: the first in the quick suite, every one with -tags
	// slow (issue 25, the quick suite).
	runs = append(runs, run{"gemini/beforetool-write-file.json", []string{"--mode", "acceptEdits"}})
	if slowTests {
		runs = append(runs,
			run{"claude/pretooluse-bash-ask.json", []string{"--ignore-host-mode", "--destination", "project"}},
			run{"codex/pretooluse-bash-ask.json", []string{"--timeout", "1ns"}},
		)
	}
	// compare runs the payload through permopa-hook-local and, when
	// viaClient, through permopa-hook (which runs permopa-hook-local with
	// no server), and wants `permopa hook`'s answer from both; it returns
	// permopa-hook-local's.
	compare := func(t *testing.T, name, host string, args []string, payload string, env []string, viaClient bool) (string, string, int) {
		t.Helper()
		want, wantErr, wantCode := hookExec(t, permopaBin, append([]string{"hook", host}, args...), env, payload)
		var localOut, localErr string
		var localCode int
		for _, c := range []struct {
			name string
			argv []string
		}{
			{"permopa-hook-local", append([]string{local, host}, args...)},
			{"permopa-hook", append([]string{client, host}, args...)},
		} {
			if c.name == "permopa-hook" && !viaClient {
				continue
			}
			out, errOut, code := hookExec(t, c.argv[0], c.argv[1:], env, payload)
			if c.name == "permopa-hook-local" {
				localOut, localErr, localCode = out, errOut, code
			}
			if c.name == "permopa-hook" && slices.Contains(args, "1ns") {
				// With no time at all, the client may find the deadline
				// passed before it starts the local decider, and blocks
				// itself with its own words: the answer must still block.
				if code != wantCode || !blocked(host, out, code) {
					t.Errorf("%s %s: exit %d stdout %q stderr %q; want a block with exit %d", c.name, name, code, out, errOut, wantCode)
				}
				continue
			}
			if out != want || code != wantCode || errOut != wantErr {
				t.Errorf("%s %s: exit %d stdout %q stderr %q; permopa hook: exit %d stdout %q stderr %q", c.name, name, code, out, errOut, wantCode, want, wantErr)
			}
		}
		return localOut, localErr, localCode
	}
	// Every run meets permopa-hook-local; with -tags slow every one also
	// goes through permopa-hook (two processes: the client and the local
	// hook it starts). Without, the client meets the first payload (an
	// allow), codex's malformed input (a block on stderr, exit 2) and the
	// first run with flags: the client passes the payload, flags and
	// answer through unchanged, whatever they are (issue 25, the quick
	// suite: the other hosts' flags meet permopa-hook-local itself).
	// Each run (and each fault below) is a parallel subtest: the test is
	// some thirty processes, and run one after another they made it the
	// package's longest (issue 25, the quick suite).
	for i, r := range runs {
		name := r.file + " " + strings.Join(r.args, " ")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			host := strings.Split(r.file, "/")[0]
			viaClient := slowTests || i == 0 || r.file == "codex/malformed.txt" || len(r.args) > 0 && len(runs[i-1].args) == 0
			compare(t, name, host, r.args, readPayload(t, r.file, cwd), env, viaClient)
		})
	}

	// Settings that must block: each in a workspace of its own, judged
	// by `permopa hook` in process (compare's reference). Without -tags
	// slow each meets one host (in turn), the first permopa-hook-local
	// and the client (a block passed through; codex's malformed input
	// above is another), -tags slow every fault both binaries.
	faults := []struct{ name, settings string }{
		{"unparsable settings", "permissions: [unclosed\n"},
		{"unreadable deny rule", "permissions:\n  deny: [\"Bash(git push\"]\n"},
		{"deny rule of another shape", "permissions:\n  deny: [{tool: Bash}]\n"},
	}
	for i, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			cwd, home := hookWorkspace(t)
			if err := os.WriteFile(filepath.Join(cwd, ".permopa", "settings.local.yaml"), []byte(f.settings), 0o644); err != nil {
				t.Fatal(err)
			}
			for j, file := range []string{"claude/pretooluse-bash-readonly.json", "codex/pretooluse-bash-readonly.json"} {
				if !slowTests && j != i%2 {
					continue
				}
				host := strings.Split(file, "/")[0]
				payload := readPayload(t, file, cwd)
				if !slowTests && i > 0 {
					out, errOut, code := hookExec(t, permopaBin, []string{"hook", host}, []string{"HOME=" + home}, payload)
					if !blocked(host, out, code) {
						t.Errorf("%s, %s: permopa hook did not block: exit %d stdout %q stderr %q", f.name, file, code, out, errOut)
					}
					continue
				}
				out, errOut, code := compare(t, f.name+" "+file, host, nil, payload, []string{"HOME=" + home}, slowTests || i == 0)
				if !blocked(host, out, code) {
					t.Errorf("%s, %s: permopa-hook-local did not block: exit %d stdout %q stderr %q", f.name, file, code, out, errOut)
				}
			}
		})
	}

	// A bad command line blocks (exit 2), never exit 1: a process each,
	// which the policy compile does not reach; the quick suite runs an
	// unknown host and an unknown flag (the two ways its parse fails),
	// -tags slow every row (issue 25, the quick suite).
	payload := readPayload(t, "claude/pretooluse-bash-readonly.json", cwd)
	for i, args := range [][]string{{"cursor"}, {"claude", "--no-such-flag"}, {}, {"claude", "codex"}, {"claude", "--settings", "x.yaml"}} {
		if !slowTests && i > 1 {
			continue
		}
		out, errOut, code := hookExec(t, local, args, env, payload)
		if code != 2 {
			t.Errorf("permopa-hook-local %v: exit %d stdout %q stderr %q, want 2", args, code, out, errOut)
		}
	}
}

// The lean local hook links what a local decision needs and none of the
// full binary's command line, server, plugins, bundle downloads or
// telemetry: that is what makes it start faster than `permopa hook`.
func TestHookLocalLinksNoCLI(t *testing.T) {
	t.Parallel()
	deps := hookDeps(t, "permopa-hook-local")
	for _, dep := range deps {
		for _, banned := range []string{
			"github.com/spf13/cobra", "oras.land/", "google.golang.org/grpc", "github.com/prometheus/",
			"go.opentelemetry.io/", "github.com/open-policy-agent/opa/cmd", "github.com/open-policy-agent/opa/v1/server",
			"github.com/open-policy-agent/opa/v1/plugins", "github.com/open-policy-agent/opa/v1/runtime",
			"github.com/permopa/permopa/adapter/opaplugin",
		} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("permopa-hook-local depends on %s", dep)
			}
		}
	}
	for _, need := range []string{"github.com/permopa/permopa/engine", "github.com/permopa/permopa/adapter"} {
		found := false
		for _, dep := range deps {
			found = found || dep == need
		}
		if !found {
			t.Errorf("permopa-hook-local does not link %s: it must decide with the same code as permopa hook", need)
		}
	}
}

var (
	hookDepsOnce sync.Once
	hookDepsOf   map[string][]string
	hookDepsErr  error
)

// hookDeps lists every package the command cmd/<name> links (the hook
// binaries'), from one `go list` of both.
func hookDeps(t *testing.T, name string) []string {
	t.Helper()
	hookDepsOnce.Do(func() {
		out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", "../permopa-hook", "../permopa-hook-local").CombinedOutput()
		if err != nil {
			hookDepsErr = fmt.Errorf("go list: %v\n%s", err, out)
			return
		}
		hookDepsOf = map[string][]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			hookDepsOf[f[0]] = f[1:]
		}
	})
	if hookDepsErr != nil {
		t.Fatal(hookDepsErr)
	}
	deps, ok := hookDepsOf["github.com/permopa/permopa/cmd/"+name]
	if !ok || len(deps) == 0 {
		t.Fatalf("go list gave no dependencies of cmd/%s: %v", name, hookDepsOf)
	}
	return deps
}

// With permopa-hook and permopa-hook-local beside it, `permopa install`
// writes permopa-hook as the hook command, and the command it wrote
// answers as `permopa hook` does.
func TestInstallWritesTheFastHook(t *testing.T) {
	t.Parallel()
	_, client := hookLocal(t)
	self := filepath.Join(filepath.Dir(client), "permopa")
	if err := copyExecutable(permopaBin, self); err != nil && !os.IsExist(err) {
		t.Fatal(err)
	}
	cwd, home := hookWorkspace(t)
	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR="}
	cmd := exec.Command(self, "install", "claude", "--scope", "user")
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := client + " claude || exit 2"
	if strings.Count(string(raw), `"command": "`+want+`"`) != 2 {
		t.Fatalf("install did not write %q for both events:\n%s", want, raw)
	}
	// doctor takes permopa-hook for a permopa binary (its Go build
	// information) and runs the harmless call through it; doctor itself
	// runs in process, as the binary self (permopaExe).
	if out, errOut, code := permopaExe(t, self, cwd, env, "doctor", "claude"); code != 0 || strings.Count(out, "answers a harmless call") != 2 || strings.Contains(out+errOut, "FAIL") {
		t.Errorf("doctor of the fast hook: exit %d\n%s%s", code, out, errOut)
	}
	// doctor's harmless calls were allowed through it; the quick suite
	// compares a deny, -tags slow an allow too (issue 25, the quick
	// suite).
	for i, file := range []string{"claude/pretooluse-bash-compound-deny.json", "claude/pretooluse-bash-readonly.json"} {
		if !slowTests && i > 0 {
			continue
		}
		payload := readPayload(t, file, cwd)
		wantOut, wantErr, wantCode := hookExec(t, permopaBin, []string{"hook", "claude"}, env, payload)
		out, errOut, code := hookExec(t, client, []string{"claude"}, env, payload)
		if out != wantOut || errOut != wantErr || code != wantCode {
			t.Errorf("%s: installed hook: exit %d %q %q; permopa hook: exit %d %q %q", file, code, out, errOut, wantCode, wantOut, wantErr)
		}
	}
}
