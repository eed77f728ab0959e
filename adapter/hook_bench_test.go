package adapter_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// The parts of a cold `permopa hook` answer, in process. The process start
// itself (Go runtime and package initialisation, the cobra tree) is measured
// by BenchmarkHookProcess in cmd/permopa.
//
//	go test ./adapter -run '^$' -bench 'HookCold' -benchtime 20x

// BenchmarkHookColdEngineNew compiles the embedded policy: what every cold
// hook process pays once.
func BenchmarkHookColdEngineNew(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := engine.New(context.Background(), engine.WithSettings(settings.Settings{Home: "/root"})); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHookColdSettings loads a project settings file (viper).
func BenchmarkHookColdSettings(b *testing.B) {
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".permopa"), 0o755); err != nil {
		b.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/hooks/settings.yaml")
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".permopa", "settings.yaml"), raw, 0o644); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if _, _, err := adapter.LoadCwdSettings(dir, b.TempDir(), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHookColdDecide is RunHook with a compiled engine: parse the
// payload, decide, answer (the first decision of a process is not warm:
// see the Fresh variant).
func BenchmarkHookColdDecide(b *testing.B) {
	raw, err := os.ReadFile("testdata/hooks/claude/pretooluse-bash-compound-deny.json")
	if err != nil {
		b.Fatal(err)
	}
	payload := strings.ReplaceAll(string(raw), "{{CWD}}", "/tmp/ws")
	eng, err := engine.New(context.Background(), engine.WithSettings(settings.Settings{Home: "/root"}))
	if err != nil {
		b.Fatal(err)
	}
	opts := adapter.HookOptions{Engine: func(context.Context, string) (*engine.Engine, error) { return eng, nil }}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var out, errb bytes.Buffer
		if code := adapter.RunHook(context.Background(), "claude", strings.NewReader(payload), &out, &errb, opts); code != 0 {
			b.Fatal(code)
		}
	}
}

// BenchmarkHookColdDecideFresh is the first decision on a new engine each
// time (compilation excluded), as in a cold process.
func BenchmarkHookColdDecideFresh(b *testing.B) {
	raw, err := os.ReadFile("testdata/hooks/claude/pretooluse-bash-compound-deny.json")
	if err != nil {
		b.Fatal(err)
	}
	payload := strings.ReplaceAll(string(raw), "{{CWD}}", "/tmp/ws")
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		eng, err := engine.New(context.Background(), engine.WithSettings(settings.Settings{Home: "/root"}))
		if err != nil {
			b.Fatal(err)
		}
		opts := adapter.HookOptions{Engine: func(context.Context, string) (*engine.Engine, error) { return eng, nil }}
		b.StartTimer()
		var out, errb bytes.Buffer
		if code := adapter.RunHook(context.Background(), "claude", strings.NewReader(payload), &out, &errb, opts); code != 0 {
			b.Fatal(code)
		}
	}
}

// BenchmarkHookProtocol is the host protocol alone, as the small client
// (cmd/permopa-hook) runs it around a server's answer: read and parse the
// payload, pick the decision, write the host's answer.
func BenchmarkHookProtocol(b *testing.B) {
	raw, err := os.ReadFile("testdata/hooks/claude/pretooluse-bash-compound-deny.json")
	if err != nil {
		b.Fatal(err)
	}
	payload := strings.ReplaceAll(string(raw), "{{CWD}}", "/tmp/ws")
	content := "rm -rf:*"
	d := permission.Decision{Behavior: permission.Deny, Message: "Bash is denied", Step: "deny_rule",
		MatchedRule: &permission.Rule{ToolName: "Bash", RuleContent: &content, Behavior: "DENY", Source: "projectSettings", Layer: "/tmp/ws/.permopa/settings.yaml"}}
	opts := hookproto.RunOptions{Decide: func(_ context.Context, req hookproto.Request, _ *hookproto.Tracer) ([]permission.Decision, error) {
		return []permission.Decision{d}, nil
	}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var out, errb bytes.Buffer
		if code := hookproto.Run(context.Background(), "claude", strings.NewReader(payload), &out, &errb, opts); code != 0 {
			b.Fatal(code)
		}
	}
}
