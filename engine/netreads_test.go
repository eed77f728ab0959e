package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/settings"
)

// network_reads: read from a settings file ("ask" or "allow", any case), a
// value that cannot be read is a problem and counts as ask, "ask" in any
// layer wins the merge, and the decision follows it: a network read is
// read-only (ALLOW in EXPLORE) under allow and not read-only (DENY in
// EXPLORE, ASK in DEFAULT) under ask.
func TestNetworkReadsSetting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		body, want string
		problem    bool
	}{
		{"network_reads: ask\n", "ask", false},
		{"network_reads: Allow\n", "allow", false},
		{"permissions: {}\n", "", false},
		{"network_reads: sometimes\n", "ask", true},
		{"network_reads: true\n", "ask", true},
	} {
		s, problems, err := settings.LoadSettingsFile(file("s.yaml", c.body), settings.SourceProject)
		if err != nil {
			t.Fatal(err)
		}
		if s.NetworkReads != c.want || (len(problems) > 0) != c.problem {
			t.Errorf("%q: network_reads %q, problems %v; want %q, problem %v", c.body, s.NetworkReads, problems, c.want, c.problem)
		}
		for _, p := range problems {
			if !strings.Contains(p.Error(), "network_reads") {
				t.Errorf("problem does not name the field: %v", p)
			}
		}
	}
	for _, c := range []struct {
		layers []string
		want   string
	}{
		{[]string{"", "allow"}, "allow"},
		{[]string{"allow", "ask"}, "ask"},
		{[]string{"ask", "allow"}, "ask"},
		{[]string{"", ""}, ""},
	} {
		var ls []settings.Settings
		for _, nr := range c.layers {
			ls = append(ls, settings.Settings{NetworkReads: nr})
		}
		if got := settings.Merge(ls...).NetworkReads; got != c.want {
			t.Errorf("merge %q: %q, want %q", c.layers, got, c.want)
		}
	}

	s, problems := settings.LoadLayers(settings.LayerOptions{ManagedDir: filepath.Join(dir, "m"), ProjectDir: filepath.Join(dir, "p"),
		UserDir: filepath.Join(dir, "u"), Environ: []string{"PERMOPA_NETWORK_READS=ask"}, Home: dir, Cwd: dir})
	if len(problems) > 0 || s.NetworkReads != "ask" {
		t.Errorf("PERMOPA_NETWORK_READS=ask: %q %v", s.NetworkReads, problems)
	}

	ctx := context.Background()
	for _, c := range []struct {
		nr, mode, cmd, behavior, step string
	}{
		{"", "plan", "kubectl get pods", "ALLOW", "read_only"},
		{"allow", "plan", "gh pr view 3", "ALLOW", "read_only"},
		{"ask", "plan", "kubectl get pods", "DENY", "mode_fallback"},
		{"ask", "default", "npm outdated", "ASK", "mode_fallback"},
		{"ask", "plan", "git log --oneline", "ALLOW", "read_only"},
		{"allow", "plan", "curl -s https://example.com", "DENY", "mode_fallback"},
	} {
		eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: "/home/u", Cwd: "/w", NetworkReads: c.nr}))
		if err != nil {
			t.Fatal(err)
		}
		d := eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": c.cmd},
			"permission_mode": c.mode, "cwd": "/w"})
		if string(d.Behavior) != c.behavior || d.Step != c.step {
			t.Errorf("network_reads %q, %s, %q: %s at %s, want %s at %s", c.nr, c.mode, c.cmd, d.Behavior, d.Step, c.behavior, c.step)
		}
	}
}
