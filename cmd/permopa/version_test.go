package main_test

import (
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionCommand: `permopa version` names permopa's version first and
// the OPA version it embeds, the one go.mod pins.
func TestVersionCommand(t *testing.T) {
	t.Parallel()
	out, stderr, code := permopa(t, "", "version")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], "permopa: ") || len(lines[0]) <= len("permopa: ") {
		t.Errorf("the first line does not give permopa's version: %q", out)
	}
	opa := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/open-policy-agent/opa" {
				opa = strings.TrimPrefix(d.Version, "v")
			}
		}
	}
	if opa == "" || !strings.Contains(out, "\nOPA: "+opa+" ") {
		t.Errorf("no OPA %s in %q", opa, out)
	}
	if strings.Contains(out, "Version: "+opa) {
		t.Errorf("OPA's own version output: %q", out)
	}
}

// TestHelpProofread walks every command's --help, OPA's and permopa's:
// no "an permopa", no OPA release presented as permopa's, no reference to
// documents outside the repository.
func TestHelpProofread(t *testing.T) {
	slowOnly(t) // every command's help: some forty processes
	t.Parallel()
	bad := regexp.MustCompile(`(?i)\ban permopa\b|permopa release|permopa v\d|contract \x{a7}`)
	sub := regexp.MustCompile(`(?m)^  (\S+)\s`)
	seen := 0
	var walk func(path []string)
	walk = func(path []string) {
		out, stderr, code := permopa(t, "", append(path, "--help")...)
		if code != 0 {
			t.Errorf("%v --help: exit %d %s", path, code, stderr)
			return
		}
		seen++
		if m := bad.FindAllString(out, -1); m != nil {
			t.Errorf("permopa %s --help says %q", strings.Join(path, " "), m)
		}
		_, cmds, ok := strings.Cut(out, "Available Commands:\n")
		if !ok {
			return
		}
		cmds, _, _ = strings.Cut(cmds, "\n\n")
		for _, m := range sub.FindAllStringSubmatch(cmds, -1) {
			if m[1] != "help" && m[1] != "completion" {
				walk(append(append([]string{}, path...), m[1]))
			}
		}
	}
	walk(nil)
	if seen < 25 {
		t.Fatalf("only %d commands' help read", seen)
	}
}
