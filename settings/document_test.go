package settings_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// richNow is when the rich settings are read: one rule has expired.
var richNow = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

var update = flag.Bool("update", false, "rewrite testdata/document.golden.json")

// richSettings sets every part of the settings document: layer, session
// and project rules (plain, wide, path, pattern, expiring, expired),
// session modes and every knob.
func richSettings() settings.Settings {
	c := func(s string) *string { return &s }
	yes, no := true, false
	_ = no
	return settings.Settings{
		DefaultMode: "acceptEdits",
		Rules: []permission.Rule{
			{ToolName: "Bash", RuleContent: c("npm run:*"), Behavior: "ALLOW", Source: settings.SourceProject, Layer: "/p/.permopa/settings.yaml"},
			{ToolName: "Bash", Behavior: "deny", Source: settings.SourceUser, Layer: "u.yaml"},
			{ToolName: "Read", RuleContent: c("/secrets/**"), Behavior: "DENY", Source: settings.SourceProject, Layer: "p.yaml", Project: "/p"},
			{ToolName: "Edit", RuleContent: c("src/*.go"), Behavior: "ALLOW", Source: settings.SourceLocal, Layer: "l.yaml", Syntax: permission.SyntaxAgentScope},
			{ToolName: "mcp__github__*", RuleContent: c("x"), Behavior: "ASK", Source: settings.SourceUser, Layer: "u.yaml"},
			{ToolName: "mcp__*", Behavior: "ALLOW", Source: settings.SourceManaged, Layer: "m.yaml"},
			{ToolName: "Re*", RuleContent: c("~/.ssh/**"), Behavior: "DENY", Source: settings.SourceUser, Layer: "u.yaml"},
			{ToolName: "WebFetch", RuleContent: c("domain:example.com"), Behavior: "ALLOW", Source: settings.SourceUser, Layer: "u.yaml", Expires: "2030-01-01T00:00:00Z"},
			{ToolName: "WebFetch", RuleContent: c("domain:old.example"), Behavior: "ALLOW", Source: settings.SourceUser, Layer: "u.yaml", Expires: "2001-01-01T00:00:00Z"},
		},
		WorkingDirectories:   []string{"/other"},
		BypassHonoursSafety:  true,
		NetworkReads:         settings.NetworkReadsAsk,
		DisableBypassMode:    true,
		DangerousPaths:       settings.DangerousPaths{Files: settings.PathEdits{Add: []string{".envrc"}}, CodeRunning: settings.PathEdits{Remove: []string{".husky"}}},
		EnvironmentIsSecret:  &yes,
		CaseInsensitivePaths: true,
		Home:                 "/home/u",
		Cwd:                  "/w",
		ProtectedPaths:       []string{"/p/.permopa"},
		SessionRules: map[string][]permission.Rule{
			"":   {{ToolName: "Bash", RuleContent: c("ls:*"), Behavior: "ALLOW", Source: settings.SourceSession, Layer: "session"}},
			"s1": {{ToolName: "Write", RuleContent: c("/w/out/**"), Behavior: "ALLOW", Source: settings.SourceSession, Layer: "session:s1"}},
		},
		SessionModes: map[string]string{"s1": "plan", "s2": ""},
		Projects:     map[string][]permission.Rule{"/q": {{ToolName: "Bash", RuleContent: c("make:*"), Behavior: "ALLOW", Source: settings.SourceLocal, Layer: "/q/.permopa/settings.local.yaml", Project: "/q"}}},
		Unreadable:   []string{"u.yaml: permissions.deny[0]: bad"},
	}
}

// TestDocumentJSON holds the settings document's JSON, the shape the
// policy reads (docs/architecture.md), to a reviewed golden file.
func TestDocumentJSON(t *testing.T) {
	now := richNow
	docs := map[string]any{
		"rich":  richSettings().DocumentAt(now),
		"empty": settings.Settings{Home: "/h", Cwd: "/w"}.DocumentAt(now),
		"managed_only": settings.Settings{Home: "/h", Cwd: "/w", AllowManagedRulesOnly: true, Rules: richSettings().Rules,
			SessionModes: map[string]string{"": "plan"}}.DocumentAt(now),
	}
	got, err := json.MarshalIndent(docs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	// Compare as JSON values: key order is not part of the document.
	var gotV any
	if err := json.Unmarshal(got, &gotV); err != nil {
		t.Fatal(err)
	}
	got, _ = json.MarshalIndent(gotV, "", "  ")
	const golden = "testdata/document.golden.json"
	if *update {
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
		t.Errorf("settings document differs from %s (run with -update after review):\n%s", golden, got)
	}
}
