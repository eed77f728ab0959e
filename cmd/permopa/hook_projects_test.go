package main_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// startProjectsServer starts `permopa run --server` in an empty directory
// (so its own project layer has no rules) with env over the test's
// environment, that reads the projects under roots from the checks' cwd
// (plugins.permopa.settings.projects).
func startProjectsServer(t testing.TB, env []string, roots ...string) string {
	t.Helper()
	sock := filepath.Join(shortTempDir(t), "permopa.sock")
	argv := []string{permopaBin, "run", "--server", "--skip-version-check", "--log-level", "error",
		"--addr", "unix://" + sock, "--set", "plugins.permopa.settings.projects.from_cwd=true"}
	for i, r := range roots {
		argv = append(argv, "--set", fmt.Sprintf("plugins.permopa.settings.projects.roots[%d]=%s", i, r))
	}
	return startServerCommandEnv(t, t.TempDir(), env, sock, argv...)
}

// With settings.projects, a server reads the .permopa files of each
// payload's cwd: every host gets byte for byte the local hook's answer
// (deny, ask and allow rules of the project, each naming its file), from
// `permopa hook --server` and from permopa-hook.
func TestHookServerProjectRulesSameAsLocal(t *testing.T) {
	t.Parallel()
	cwd, home, addr := projectWorkspace(t)
	client := hookClient(t)
	env := []string{"HOME=" + home}
	projectRule := 0
	payloads := map[string]string{}
	for _, file := range fastPathSample() {
		payloads[file] = readPayload(t, file, cwd)
	}
	// A Gemini shell call in a subdirectory (dir_path) is decided with the
	// settings of the payload's cwd, as locally.
	payloads["gemini/dir_path"] = fmt.Sprintf(`{"session_id":"s1","cwd":%q,"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"rm -rf build","dir_path":"web"}}`, cwd)
	for k, file := range slices.Sorted(maps.Keys(payloads)) {
		payload := payloads[file]
		host := strings.Split(file, "/")[0]
		out, errOut, code := hookExec(t, permopaBin, []string{"hook", host}, env, payload)
		if strings.Contains(out+errOut, "Bash(rm -rf:*)") || strings.Contains(out+errOut, "Bash(git push:*)") {
			projectRule++
		}
		if file == "gemini/dir_path" && (!blocked(host, out, code) || !strings.Contains(out+errOut, "Bash(rm -rf:*)")) {
			t.Errorf("%s: the project's deny rule does not block: exit %d %q %q", file, code, out, errOut)
		}
		for j, c := range []struct {
			name string
			run  []string
		}{
			{"permopa hook --server", []string{permopaBin, "hook", host, "--server", addr, "--server-required"}},
			{"permopa-hook", []string{client, host, "--server", addr, "--server-required"}},
		} {
			// Each payload through one of the two clients in turn in the
			// quick suite, through both with -tags slow (issue 25).
			if !slowTests && j != k%2 {
				continue
			}
			name, run := c.name, c.run
			sout, serr, scode := hookExec(t, run[0], run[1:], env, payload)
			if sout != out || scode != code || serr != errOut {
				t.Errorf("%s, %s:\n local:  exit %d stdout %q stderr %q\n server: exit %d stdout %q stderr %q", file, name, code, out, errOut, scode, sout, serr)
			}
		}
	}
	if projectRule == 0 {
		t.Error("no answer names a rule of the project's settings")
	}
}

// A cwd outside the roots gets no project rules: the server decides with
// its own layers, as without settings.projects.
func TestHookServerProjectOutsideRoots(t *testing.T) {
	t.Parallel()
	cwd, home := hookWorkspace(t) // outside the shared server's root
	_, _, addr := sharedProjectsServer(t)
	payload := readPayload(t, "claude/pretooluse-bash-compound-deny.json", cwd)
	out, _, _ := hookExec(t, hookClient(t), []string{"claude", "--server", addr, "--server-required"}, []string{"HOME=" + home}, payload)
	if jsonPath(t, out, "hookSpecificOutput.permissionDecision") != "ask" || strings.Contains(out, "Bash(rm -rf:*)") {
		t.Fatalf("a project outside the roots: %s", out)
	}
}

// The approve command an ASK prints (`permopa rules add --project <cwd>
// --destination local …`) writes the project's settings.local.yaml; the
// server reads it at the next check from that cwd, and answers like the
// local hook. Editing the project's file again changes the next answer.
func TestHookServerProjectApproveAndEdit(t *testing.T) {
	t.Parallel()
	slowOnlyProvenBy(t, "TestServerConfirmToProject (an approval to the project's settings.local.yaml, read by the server) and TestHookServerSeesChanges (an edit read at the next call)")
	cwd, home, addr := projectWorkspace(t)
	client := hookClient(t)
	env := []string{"HOME=" + home}
	payload := readPayload(t, "codex/pretooluse-bash-ask.json", cwd)
	_, stderr, code := hookExec(t, client, []string{"codex", "--server", addr, "--server-required"}, env, payload)
	m := regexp.MustCompile(`run: (permopa rules add .*?) , then retry`).FindStringSubmatch(stderr)
	if code != 2 || m == nil || !strings.Contains(m[1], "--destination local") {
		t.Fatalf("exit %d, no approve command in %q", code, stderr)
	}
	runApproveCommand(t, m[1], home, env)
	same := func(what, payload string) (string, int) {
		t.Helper()
		want, wantErr, wantCode := hookExec(t, permopaBin, []string{"hook", "codex"}, env, payload)
		out, errOut, code := hookExec(t, client, []string{"codex", "--server", addr, "--server-required"}, env, payload)
		if out != want || errOut != wantErr || code != wantCode {
			t.Fatalf("%s: server exit %d stdout %q stderr %q; local exit %d stdout %q stderr %q", what, code, out, errOut, wantCode, want, wantErr)
		}
		return out + errOut, code
	}
	if out, code := same("after approval", payload); code != 0 || out != "" {
		t.Fatalf("after approval: exit %d %q", code, out)
	}
	// The project's shared file now denies what the local file allows.
	writeFile(t, filepath.Join(cwd, ".permopa", "settings.yaml"), "permissions:\n  deny: [\"Bash(npm install:*)\"]\n")
	if out, code := same("after the edit", payload); code != 2 || !strings.Contains(out, "Bash(npm install:*)") {
		t.Fatalf("after the edit: exit %d %q", code, out)
	}
}

// A project's allow rules lift neither a managed deny rule nor
// allow_managed_rules_only, through the server as in the local hook (same
// answer; the local hook also warns on stderr about the ignored rules, the
// server does not).
func TestHookServerProjectManagedLocks(t *testing.T) {
	t.Parallel()
	slowOnlyProvenBy(t, "TestHookHonoursManagedSettings (the locks) and TestHookServerProjectRulesSameAsLocal (a projects server answers as the local hook)")
	skipUnlessRootOwnsTempDirs(t)
	dir := t.TempDir()
	project := filepath.Join(dir, "proj")
	managed := filepath.Join(dir, "etc")
	writeFile(t, filepath.Join(project, ".permopa", "settings.yaml"), "permissions:\n  allow: [\"Bash(npm install:*)\", \"Bash(curl:*)\"]\n")
	writeFile(t, filepath.Join(managed, "settings.yaml"), "allow_managed_rules_only: true\npermissions:\n  deny: [\"Bash(curl:*)\"]\n")
	// The server's and the local hook's environment.
	env := []string{"HOME=" + dir, "PERMOPA_MANAGED_DIR=" + managed, "PERMOPA_CONFIG_DIR=" + filepath.Join(dir, "user")}
	addr := startProjectsServer(t, env, dir)
	for command, want := range map[string]string{"npm install": "ask", "curl -s example.com": "deny"} {
		payload := fmt.Sprintf(`{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":%q,"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":%q},"tool_use_id":"t1"}`, project, command)
		local, _, localCode := hookExec(t, permopaBin, []string{"hook", "claude"}, env, payload)
		out, errOut, code := hookExec(t, hookClient(t), []string{"claude", "--server", addr, "--server-required"}, env, payload)
		if out != local || code != localCode {
			t.Errorf("%s: server exit %d %q %q; local exit %d %q", command, code, out, errOut, localCode, local)
		}
		if got := jsonPath(t, out, "hookSpecificOutput.permissionDecision"); got != want {
			t.Errorf("%s: %s, want %s: %s", command, got, want, out)
		}
	}
}

// A project whose deny rule cannot be read blocks through the server, as
// the local hook blocks; another project keeps its own rules.
func TestHookServerProjectUnreadableDenyRuleBlocks(t *testing.T) {
	t.Parallel()
	slowOnlyProvenBy(t, "TestHookInvalidDenyRuleBlocks (an unreadable deny rule blocks) and TestHookServerProjectRulesSameAsLocal (a projects server answers as the local hook)")
	cwd, home, addr := projectWorkspace(t)
	other := filepath.Join(filepath.Dir(cwd), "other")
	writeFile(t, filepath.Join(other, ".permopa", "settings.yaml"), "permissions:\n  allow: [\"Bash(ls:*)\"]\n")
	writeFile(t, filepath.Join(cwd, ".permopa", "settings.local.yaml"), "permissions:\n  deny: [\"Bash(rm -rf\"]\n")
	client := hookClient(t)
	env := []string{"HOME=" + home}
	payload := readPayload(t, "claude/pretooluse-bash-readonly.json", cwd)
	local, _, localCode := hookExec(t, permopaBin, []string{"hook", "claude"}, env, payload)
	out, _, code := hookExec(t, client, []string{"claude", "--server", addr, "--server-required"}, env, payload)
	for what, answer := range map[string]string{"local": local, "server": out} {
		if !blocked("claude", answer, map[string]int{"local": localCode, "server": code}[what]) || !strings.Contains(answer, "Bash(rm -rf") || !strings.Contains(answer, "settings.local.yaml") {
			t.Errorf("%s: %q", what, answer)
		}
	}
	payload = readPayload(t, "claude/pretooluse-bash-readonly.json", other)
	out, _, _ = hookExec(t, client, []string{"claude", "--server", addr, "--server-required"}, env, payload)
	if jsonPath(t, out, "hookSpecificOutput.permissionDecision") != "allow" {
		t.Fatalf("another project: %s", out)
	}
}

// settings.projects with from_cwd and no roots is a configuration error
// naming the field; the server does not start.
func TestServerProjectsConfigError(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(permopaBin, "run", "--server", "--skip-version-check", "--addr", "127.0.0.1:0",
		"--set", "plugins.permopa.settings.projects.from_cwd=true").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "plugins.permopa.settings.projects.roots") {
		t.Fatalf("err %v: %s", err, out)
	}
}

// /v1/permission/confirm with destination local and a tool_call made in a
// project under the roots writes that project's settings.local.yaml (as
// `permopa rules add` run there does); the next check from that cwd is
// ALLOW, through the server and in the local hook alike.
func TestServerConfirmToProject(t *testing.T) {
	t.Parallel()
	cwd, home, addr := projectWorkspace(t)
	hc := unixHTTPClient(strings.TrimPrefix(addr, "unix://"))
	// The call is checked first (ASK), and the confirm names that check.
	call := fmt.Sprintf(`{"tool_name": "Bash", "tool_input": {"command": "npm install --ignore-scripts left-pad"}, "cwd": %q, "session_id": "s1"}`, cwd)
	checked, err := hc.Post("http://permopa/v1/permission/check", "application/json", strings.NewReader(call))
	if err != nil {
		t.Fatal(err)
	}
	var ask struct {
		Behavior   string `json:"behavior"`
		DecisionID string `json:"decision_id"`
	}
	err = json.NewDecoder(checked.Body).Decode(&ask)
	checked.Body.Close()
	if err != nil || ask.Behavior != "ASK" || ask.DecisionID == "" {
		t.Fatalf("check: %+v %v", ask, err)
	}
	body := fmt.Sprintf(`{"confirmed": true, "decision_id": %q, "destination": "local", "rules": ["Bash(npm install:*)"], "tool_call": %s}`, ask.DecisionID, call)
	resp, err := hc.Post("http://permopa/v1/permission/confirm", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var c struct {
		Approved bool `json:"approved"`
		Rules    []struct {
			Source string `json:"source"`
			Layer  string `json:"layer"`
		} `json:"rules"`
		Decision struct {
			Behavior string `json:"behavior"`
		} `json:"decision"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(cwd, ".permopa", "settings.local.yaml")
	if resp.StatusCode != 200 || !c.Approved || len(c.Rules) != 1 || c.Rules[0].Layer != file || c.Rules[0].Source != "localSettings" || c.Decision.Behavior != "ALLOW" {
		t.Fatalf("confirm: %d %+v", resp.StatusCode, c)
	}
	if raw, err := os.ReadFile(file); err != nil || !strings.Contains(string(raw), "Bash(npm install:*)") {
		t.Fatalf("%s: %q %v", file, raw, err)
	}
	env := []string{"HOME=" + home}
	payload := readPayload(t, "claude/pretooluse-bash-ask.json", cwd)
	local, localErr, localCode := hookExec(t, permopaBin, []string{"hook", "claude"}, env, payload)
	out, errOut, code := hookExec(t, hookClient(t), []string{"claude", "--server", addr, "--server-required"}, env, payload)
	if out != local || errOut != localErr || code != localCode || jsonPath(t, out, "hookSpecificOutput.permissionDecision") != "allow" {
		t.Fatalf("after confirm: server exit %d %q %q; local exit %d %q %q", code, out, errOut, localCode, local, localErr)
	}
}
