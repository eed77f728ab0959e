//go:build hostse2e

package hosts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The permopa settings every run uses (the project's .permopa/settings.yaml).
const permopaSettings = `permissions:
  deny:
    - "Bash(rm -rf:*)"
  ask:
    - "Bash(touch asked-by-rule)"
  allow:
    - "Bash(touch allowed-by-rule)"
`

// Scenarios: one tool call each, with what a user checks afterwards.
type scenario struct {
	name    string
	command string // the Bash command the model asks for
	// marker is the file the command creates (or, for deny, the directory
	// it would delete).
	marker string
}

var (
	scDeny    = scenario{"deny-rule", "rm -rf victim", "victim"}
	scAllow   = scenario{"allow-rule", "touch allowed-by-rule", "allowed-by-rule"}
	scAskRule = scenario{"ask-rule", "touch asked-by-rule", "asked-by-rule"}
	scNoRule  = scenario{"no-rule", "touch no-rule-here", "no-rule-here"}
	scRead    = scenario{"read-only", "ls", ""}
)

// outcome is what a run must show.
type outcome struct {
	ran    bool   // the command's effect is there (deny: victim gone)
	reason string // a substring of the tool result the model saw ("" = not checked)
}

// hostRun is one host CLI run in a fresh home and project.
type hostRun struct {
	t          *testing.T
	home, proj string
	mock       *modelMock
	capture    string // payload capture file ("" = none)
	permopa    string // the permopa binary install runs ("" = bins.permopa)
}

// limit bounds how many host CLIs run at once (2 cores).
var limit = make(chan struct{}, 3)

// newHostRun prepares a run whose model makes the tool call args, then
// the calls more, each after the host answered the one before.
func newHostRun(t *testing.T, host string, sc scenario, tool string, args map[string]any, more ...map[string]any) *hostRun {
	t.Helper()
	r := &hostRun{t: t, home: t.TempDir(), proj: filepath.Join(t.TempDir(), "proj")}
	writeFile(t, filepath.Join(r.proj, "victim", "keep.txt"), "precious\n")
	writeFile(t, filepath.Join(r.proj, "README.md"), "a project\n")
	writeFile(t, filepath.Join(r.proj, ".permopa", "settings.yaml"), permopaSettings)
	r.mock = newModelMock(t, "PERMOPA-E2E "+sc.name, tool, args, more...)
	if d := os.Getenv("PERMOPA_E2E_CAPTURE"); d != "" {
		r.capture = filepath.Join(d, host+"-"+strings.ReplaceAll(t.Name(), "/", "-")+".jsonl")
	}
	r.trust()
	return r
}

// trust runs `permopa trust` as the user would for their own project: its
// allow rule counts only then (docs/rules.md, "Trusted projects"). The
// directory is the one the hooks read (~/.config/permopa).
func (r *hostRun) trust() {
	r.t.Helper()
	cmd := exec.Command(bins.permopa, "trust", r.proj)
	cmd.Dir = r.proj
	cmd.Env = append(os.Environ(), "HOME="+r.home, "PERMOPA_CONFIG_DIR="+filepath.Join(r.home, ".config", "permopa"))
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("permopa trust: %v\n%s", err, out)
	}
}

// install runs `permopa install host` as a user would, in the run's home:
// the hook command it writes is permopa-hook (bins holds all three
// binaries), deciding locally through permopa-hook-local.
func (r *hostRun) install(host string, extra ...string) string {
	r.t.Helper()
	args := append([]string{"install", host}, extra...)
	if r.capture != "" {
		args = append(args, "--command", "tee -a "+r.capture+" | "+bins.permopaHook+" "+host)
	}
	bin := bins.permopa
	if r.permopa != "" {
		bin = r.permopa
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = r.proj
	cmd.Env = append(os.Environ(), "HOME="+r.home, "CODEX_HOME="+filepath.Join(r.home, ".codex"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("permopa %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// check asserts what the user cares about after a run.
func (r *hostRun) check(sc scenario, want outcome, out string) {
	r.t.Helper()
	fail := func(format string, args ...any) {
		r.t.Helper()
		r.t.Errorf(format+"\n--- host output:\n%s\n--- model API requests:\n%s", append(args, out, r.mock.log())...)
	}
	if !r.mock.toolCalled() {
		fail("the host never offered the tool or never asked the model: the scenario did not run")
		return
	}
	result, got := r.mock.toolResult()
	if sc.marker != "" {
		present := exists(filepath.Join(r.proj, sc.marker))
		ran := present
		if sc == scDeny {
			ran = !present
		}
		if ran != want.ran {
			fail("%s: the command ran = %v, want %v (tool result %q)", sc.command, ran, want.ran, result)
		}
	}
	if want.reason != "" {
		if !got {
			fail("the model never got the tool result")
		} else if !strings.Contains(result, want.reason) {
			fail("the tool result the model saw %q does not contain %q", result, want.reason)
		}
	}
}
