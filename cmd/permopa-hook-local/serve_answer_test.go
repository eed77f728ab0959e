//go:build linux

package main

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
)

// The hook server decodes a payload once (for its cwd) and RunHook parses
// that object (adapter.HookOptions.Decoded), keeping the settings while
// their stamp holds: every recorded payload of every host, through the
// server's handler on its socket, twice in a row (the second with the
// settings kept), gets the answer RunHook gives reading the payload from
// stdin with the settings read now, exactly; a payload that is not a
// JSON object or names no absolute cwd is refused (the hook decides it in
// a process of its own).
func TestServeAnswersAsRunHook(t *testing.T) {
	sock, s, project := serverOnSocket(t)
	ref, err := adapter.NewHookPolicy(context.Background(), adapter.HookEngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	local := func(host string, payload []byte) (string, string, int) {
		opts, _, _, err := parseFlags([]string{host})
		if err != nil {
			t.Fatal(err)
		}
		opts.Engine = func(ctx context.Context, cwd string) (*engine.Engine, error) {
			if err := adapter.ApplyHookSettings(ctx, ref, cwd, s.home, adapter.HookEngineOptions{Stderr: os.Stderr}); err != nil {
				return nil, err
			}
			return ref, nil
		}
		var out, errb bytes.Buffer
		code := adapter.RunHook(context.Background(), host, bytes.NewReader(payload), &out, &errb, opts)
		return out.String(), errb.String(), code
	}
	var files []string
	for _, dir := range []string{"claude", "codex", "gemini", "captured/claude", "captured/codex", "captured/gemini"} {
		found, err := filepath.Glob(filepath.Join("../../adapter/testdata/hooks", dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, found...)
	}
	if len(files) < 30 {
		t.Fatalf("only %d recorded payloads", len(files))
	}
	// Then with the project's own environment files, which the hosts load
	// (docs/hosts.md, "Environment from the project") and each call reads
	// again: a BASH_ENV there makes no Bash command read-only.
	envFiles := map[string]string{
		filepath.Join(project, ".env"):                     "BASH_ENV=./x.sh\n",
		filepath.Join(project, ".claude", "settings.json"): `{"env": {"BASH_ENV": "./x.sh"}}`,
	}
	asked := 0
	for phase := 0; phase < 2; phase++ {
		if phase == 1 {
			for path, text := range envFiles {
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, file := range files {
			rel, _ := filepath.Rel("../../adapter/testdata/hooks", file)
			host := strings.Split(strings.TrimPrefix(rel, "captured/"), "/")[0]
			payload := benchPayload(t, rel, project)
			wantOut, wantErr, wantCode := local(host, payload)
			if phase == 1 && strings.Contains(rel, "readonly") && strings.Contains(wantOut+wantErr, "BASH_ENV") {
				asked++
			}
			for round := 0; round < 2; round++ {
				req := hookproto.ServeRequest{Op: "hook", Key: s.key, Env: s.env, Host: host, Payload: payload}
				ans := ask(t, sock, req)
				if ans.Refused != "" {
					// A payload with no absolute cwd: the hook decides it.
					if p, err := hookproto.DecodePayload(payload); err == nil {
						if cwd, _ := p["cwd"].(string); filepath.IsAbs(cwd) {
							t.Errorf("%s: refused: %s", rel, ans.Refused)
						}
					}
					continue
				}
				if string(ans.Stdout) != wantOut || ans.Stderr != wantErr || ans.Exit != wantCode {
					t.Errorf("%s (phase %d, call %d): the server answered exit %d stdout %q stderr %q; RunHook: exit %d stdout %q stderr %q", rel, phase, round+1, ans.Exit, ans.Stdout, ans.Stderr, wantCode, wantOut, wantErr)
				}
			}
		}
	}
	if asked < 2 {
		t.Errorf("the project's BASH_ENV made %d read-only Bash payloads ask, want the claude and gemini ones at least: the case proves nothing", asked)
	}
	for name, payload := range map[string]string{
		"not JSON":           `{"cwd": "` + project + `", `,
		"an array":           `[{"cwd": "` + project + `"}]`,
		"data after it":      `{"cwd": "` + project + `", "tool_name": "Read"} {}`,
		"a relative cwd":     `{"cwd": "project", "hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": "/etc/passwd"}}`,
		"a cwd not a string": `{"cwd": ["` + project + `"], "hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": "/etc/passwd"}}`,
		"no cwd":             `{"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": "/etc/passwd"}}`,
	} {
		ans := ask(t, sock, hookproto.ServeRequest{Op: "hook", Key: s.key, Env: s.env, Host: "claude", Payload: []byte(payload)})
		if ans.Refused == "" {
			t.Errorf("%s: answered, want refused: exit %d stdout %q stderr %q", name, ans.Exit, ans.Stdout, ans.Stderr)
		}
	}
}
