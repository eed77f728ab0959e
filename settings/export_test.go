package settings_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

func exportFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// rulesBundle writes doc as an OPA data bundle directory with root permopa/rules.
func rulesBundle(t *testing.T, doc any) string {
	t.Helper()
	dir := t.TempDir()
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	exportFile(t, filepath.Join(dir, ".manifest"), `{"roots": ["permopa/rules"]}`)
	exportFile(t, filepath.Join(dir, "permopa", "rules", "data.json"), string(data))
	return dir
}

// An exported document, shipped as the data bundle at data.permopa.rules
// next to the embedded policy, denies, asks and allows; decisions name the
// org layer; deny rules of a settings layer still win over its allow rules.
func TestExportRulesDecide(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := exportFile(t, filepath.Join(dir, "org.yaml"), `
permissions:
  deny: ["Bash(curl:*)", "Read(~/.aws/**)", "mcp__*__delete_*"]
  ask: ["Bash(git push:*)"]
  allow: ["Bash(make test:*)"]
`)
	b := exportFile(t, filepath.Join(dir, "team.json"), `{"allow_rules": {"WebFetch": [{"rule_content": "domain:pkg.go.dev"}]}}`)
	doc, warnings, err := settings.ExportRules([]string{a, b}, settings.ExportOptions{})
	if err != nil || len(warnings) > 0 {
		t.Fatalf("export: %v %v", err, warnings)
	}
	if got := strings.Join(docKeys(doc), ","); got != "index,rules,tool_pattern_rules" {
		t.Fatalf("document keys: %s", got)
	}
	local := settings.Settings{Home: "/home/u", Cwd: "/w", Rules: []permission.Rule{
		{ToolName: "Bash", RuleContent: strp("curl:*"), Behavior: "ALLOW", Source: settings.SourceUser, Layer: "user.yaml"},
		{ToolName: "Bash", RuleContent: strp("make test --race:*"), Behavior: "DENY", Source: settings.SourceProject, Layer: "project.yaml"},
	}}
	eng, err := engine.New(ctx, engine.WithBundles(rulesBundle(t, doc)), engine.WithSettings(local))
	if err != nil {
		t.Fatal(err)
	}
	bash := func(cmd string) map[string]any {
		return map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "cwd": "/w"}
	}
	for _, c := range []struct {
		input             map[string]any
		behavior, step    string
		source, layer, by string
	}{
		{bash("ls && curl -s https://x.example"), permission.Deny, permission.StepDenyRule, settings.SourceOrg, "permopa/rules:org.yaml", "Bash(curl:*)"},
		{bash("cat ~/.aws/credentials"), permission.Deny, permission.StepDenyRule, settings.SourceOrg, "permopa/rules:org.yaml", "Read(~/.aws/**)"},
		{bash("git push origin main"), permission.Ask, permission.StepAskRule, settings.SourceOrg, "permopa/rules:org.yaml", "Bash(git push:*)"},
		{bash("make test ./..."), permission.Allow, permission.StepAllowRule, settings.SourceOrg, "permopa/rules:org.yaml", "Bash(make test:*)"},
		{bash("make test --race"), permission.Deny, permission.StepDenyRule, settings.SourceProject, "project.yaml", "Bash(make test --race:*)"},
		{map[string]any{"tool_name": "WebFetch", "tool_input": map[string]any{"url": "https://pkg.go.dev/fmt"}}, permission.Allow, permission.StepAllowRule, settings.SourceOrg, "permopa/rules:team.json", "WebFetch(domain:pkg.go.dev)"},
		{map[string]any{"tool_name": "mcp__github__delete_repo", "tool_input": map[string]any{}}, permission.Deny, permission.StepDenyRule, settings.SourceOrg, "permopa/rules:org.yaml", "mcp__*__delete_*"},
	} {
		d := eng.Decide(ctx, c.input)
		if d.Behavior != c.behavior || d.Step != c.step || d.MatchedRule == nil ||
			d.MatchedRule.Source != c.source || d.MatchedRule.Layer != c.layer || d.MatchedRule.String() != c.by {
			t.Errorf("%v: got %+v %+v", c.input["tool_input"], d, d.MatchedRule)
		}
	}
}

// An export fails on any rule it cannot read, naming the file and the
// field, instead of shipping a bundle without it.
func TestExportRulesFailsOnUnreadableRule(t *testing.T) {
	dir := t.TempDir()
	good := exportFile(t, filepath.Join(dir, "good.yaml"), "permissions:\n  deny: [\"Bash(rm:*)\"]\n")
	bad := exportFile(t, filepath.Join(dir, "bad.yaml"), "permissions:\n  deny: [\"Bash(curl:*)\", \"Bash(wget\"]\n  allow: [{tool_name: Read, rule_content: 7}]\n")
	_, _, err := settings.ExportRules([]string{good, bad}, settings.ExportOptions{})
	if err == nil {
		t.Fatal("export of an unreadable deny rule succeeded")
	}
	for _, want := range []string{bad, "permissions.deny", "Bash(wget", "permissions.allow", "rule_content"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if _, _, err := settings.ExportRules([]string{filepath.Join(dir, "missing.yaml")}, settings.ExportOptions{}); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("missing file: %v", err)
	}
	if _, _, err := settings.ExportRules(nil, settings.ExportOptions{}); err == nil {
		t.Error("no file: no error")
	}
}

// Expired rules are left out; an allow rule that expires later cannot be
// shipped (a bundle would keep it past its expiry); locks are refused;
// settings a rules bundle does not carry are reported.
func TestExportRulesExpiryLocksAndWarnings(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	f := exportFile(t, filepath.Join(dir, "org.yaml"), `
permissions:
  defaultMode: dontAsk
  deny:
    - {tool_name: Bash, rule_content: "curl:*", expires: "2026-11-01T00:00:00Z"}
    - {tool_name: Bash, rule_content: "wget:*", expires: "2026-12-31T00:00:00Z"}
  allow:
    - {tool_name: Bash, rule_content: "make:*", expires: "2026-11-01T00:00:00Z"}
    - "Bash(go test:*)"
`)
	doc, warnings, err := settings.ExportRules([]string{f}, settings.ExportOptions{Now: now, Layer: "acme-rules"})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(doc)
	if strings.Contains(string(out), "curl") || strings.Contains(string(out), "make:*") {
		t.Errorf("expired rules exported: %s", out)
	}
	if !strings.Contains(string(out), `"expires":"2026-12-31T00:00:00Z"`) || !strings.Contains(string(out), `"layer":"acme-rules"`) {
		t.Errorf("document: %s", out)
	}
	all := strings.Join(warnings, "\n")
	for _, want := range []string{"Bash(curl:*) expired", "Bash(make:*) expired", "Bash(wget:*) expires", "permissions.defaultMode is not part of a rules bundle"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings %q lack %q", all, want)
		}
	}

	later := exportFile(t, filepath.Join(dir, "later.yaml"), `{"permissions": {"allow": [{"tool_name": "Bash", "rule_content": "make:*", "expires": "2027-01-01T00:00:00Z"}]}}`)
	if _, _, err := settings.ExportRules([]string{later}, settings.ExportOptions{Now: now}); err == nil || !strings.Contains(err.Error(), "Bash(make:*)") {
		t.Errorf("allow rule with a future expiry: %v", err)
	}
	locked := exportFile(t, filepath.Join(dir, "locked.yaml"), "allow_managed_rules_only: true\npermissions:\n  deny: [\"Bash(rm:*)\"]\n")
	if _, _, err := settings.ExportRules([]string{locked}, settings.ExportOptions{Now: now}); err == nil || !strings.Contains(err.Error(), "allow_managed_rules_only") {
		t.Errorf("lock in an export: %v", err)
	}
}

// RulesDocument has the shape of the settings document's rule parts.
func TestRulesDocumentShape(t *testing.T) {
	now := time.Now()
	s := settings.Settings{Rules: []permission.Rule{
		{ToolName: "Bash", RuleContent: strp("npm run:*"), Behavior: "ALLOW", Source: settings.SourceOrg, Layer: "l"},
		{ToolName: "deploy", Behavior: "ASK", Source: settings.SourceOrg, Layer: "l"},
		{ToolName: "mcp__github__*", Behavior: "DENY", Source: settings.SourceOrg, Layer: "l"},
	}}
	got, _ := json.Marshal(settings.RulesDocument(s, now))
	full := asMap(s.DocumentAt(now))
	want, _ := json.Marshal(map[string]any{"rules": full["rules"], "index": full["index"], "tool_pattern_rules": full["tool_pattern_rules"]})
	if string(got) != string(want) {
		t.Fatalf("RulesDocument:\n%s\nsettings document parts:\n%s", got, want)
	}
}

// asMap is v's JSON encoding read back as a map: the document as the
// policy and a bundle's data.json see it.
func asMap(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	return m
}

func docKeys(v any) []string { return slices.Sorted(maps.Keys(asMap(v))) }

// An organisation's rules, exported for its data bundle (what `permopa
// rules export` prints): the document the policy reads at
// data.permopa.rules, each rule labelled with the org source and layer.
func ExampleExportRules() {
	dir, _ := os.MkdirTemp("", "permopa-export")
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "org-rules.yaml")
	os.WriteFile(file, []byte("permissions:\n  deny: [\"Bash(curl:*)\"]\n  allow: [\"Bash(make test:*)\"]\n"), 0o644)

	doc, _, err := settings.ExportRules([]string{file}, settings.ExportOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := json.Marshal(doc.Rules)
	fmt.Println(string(out))
	// Output:
	// {"allow":{"Bash":[{"behavior":"ALLOW","layer":"permopa/rules:org-rules.yaml","rule_content":"make test:*","source":"orgRules","tool_name":"Bash"}]},"ask":{},"deny":{"Bash":[{"behavior":"DENY","layer":"permopa/rules:org-rules.yaml","rule_content":"curl:*","source":"orgRules","tool_name":"Bash"}]}}
}

// An exported path rule's "/path" is not tied to the exporting machine's
// project: a call reads it from its own cwd.
func TestExportedPathRulesAreNotTiedToTheExporter(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "proj", ".permopa", "settings.yaml")
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte("permissions:\n  allow: [\"Edit(/src/**)\"]\n"), 0o644)
	doc, _, err := settings.ExportRules([]string{file}, settings.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(doc.Index)
	if strings.Contains(string(b), dir) || !strings.Contains(string(b), `"./src/**"`) {
		t.Errorf("index: %s", b)
	}
}
