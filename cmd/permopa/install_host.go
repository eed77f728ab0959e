package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// unifiedDiff is a line diff of old and next in unified form (whole-file
// hunks with three lines of context), for showing a change before it is
// written.
func unifiedDiff(name, old, next string) string {
	a, b := splitLines(old), splitLines(next)
	type line struct {
		op   byte
		text string
	}
	// The common first and last lines are context; only the lines between
	// get a longest-common-subsequence table, and only while it is small
	// (maxDiffCells): past that the middle is shown as removed and added.
	// An edit by install is one block, so the middle is that block; a
	// table over the whole file cost memory quadratic in its size
	// (issue 24).
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []line
	for _, l := range a[:pre] {
		ops = append(ops, line{' ', l})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	n, m := len(ma), len(mb)
	if (n+1)*(m+1) > maxDiffCells {
		for _, l := range ma {
			ops = append(ops, line{'-', l})
		}
		for _, l := range mb {
			ops = append(ops, line{'+', l})
		}
	} else {
		lcs := make([][]int32, n+1)
		for i := range lcs {
			lcs[i] = make([]int32, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && ma[i] == mb[j]:
				ops = append(ops, line{' ', ma[i]})
				i, j = i+1, j+1
			case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
				ops = append(ops, line{'+', mb[j]})
				j++
			default:
				ops = append(ops, line{'-', ma[i]})
				i++
			}
		}
	}
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, line{' ', l})
	}
	var out strings.Builder
	// A file created or removed is said so, as diff -N does (/dev/null).
	switch {
	case old == "":
		fmt.Fprintf(&out, "--- /dev/null\n+++ %s (new file)\n", name)
	case next == "":
		fmt.Fprintf(&out, "--- %s\n+++ /dev/null (removed)\n", name)
	default:
		fmt.Fprintf(&out, "--- %s\n+++ %s (new)\n", name, name)
	}
	const ctx = 3
	for k := 0; k < len(ops); {
		if ops[k].op == ' ' {
			k++
			continue
		}
		start := max(0, k-ctx)
		end := k
		for end < len(ops) {
			if ops[end].op != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].op == ' ' {
				run++
			}
			if run-end > 2*ctx || run == len(ops) {
				end = min(len(ops), end+ctx)
				break
			}
			end = run
		}
		out.WriteString("@@\n")
		for _, l := range ops[start:end] {
			out.WriteByte(l.op)
			out.WriteString(l.text)
			out.WriteByte('\n')
		}
		k = end
	}
	return out.String()
}

// maxDiffCells bounds unifiedDiff's table (4 bytes a cell).
const maxDiffCells = 1 << 20

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// geminiFolderTrusted reports whether Gemini CLI trusts dir for hooks,
// from its trusted folders file (~/.gemini/trustedFolders.json or
// $GEMINI_CLI_TRUSTED_FOLDERS_PATH; the longest matching rule decides;
// TRUST_PARENT trusts the rule path's parent) and the user's
// security.folderTrust.enabled, with how it was decided.
func geminiFolderTrusted(home, file, dir string) (bool, string) {
	var settings struct {
		Security struct {
			FolderTrust struct {
				Enabled *bool `json:"enabled"`
			} `json:"folderTrust"`
		} `json:"security"`
	}
	if data, err := os.ReadFile(filepath.Join(home, ".gemini", "settings.json")); err == nil {
		_ = json.Unmarshal(data, &settings)
	}
	if e := settings.Security.FolderTrust.Enabled; e != nil && !*e {
		return true, "security.folderTrust.enabled is false"
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return false, "no " + file
	}
	var rules map[string]string
	if err := json.Unmarshal(data, &rules); err != nil {
		return false, fmt.Sprintf("%s does not parse: %v", file, err)
	}
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	loc := real(dir)
	best, level := -1, ""
	for p, lvl := range rules {
		eff := p
		if lvl == "TRUST_PARENT" {
			eff = filepath.Dir(p)
		}
		eff = real(eff)
		if loc == eff || strings.HasPrefix(loc, strings.TrimSuffix(eff, "/")+"/") {
			if len(p) > best {
				best, level = len(p), lvl
			}
		}
	}
	switch level {
	case "TRUST_FOLDER", "TRUST_PARENT":
		return true, file + " trusts it (" + level + ")"
	case "DO_NOT_TRUST":
		return false, file + " says DO_NOT_TRUST"
	}
	return false, file + " has no rule for it"
}

// codexApp talks JSON-RPC to `codex app-server` over stdio: the API
// Codex's own /hooks review uses. permopa never computes a hook's trust
// hash: Codex reports it (hooks/list currentHash) and permopa hands it back
// (config/batchWrite), so trust follows Codex's own rules.
type codexApp struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	nextID int
}

func startCodexApp(ctx context.Context, bin, codexHome string, proc procEnv) (*codexApp, error) {
	if bin == "" {
		p, err := proc.lookPath("codex")
		if err != nil {
			return nil, errors.New("codex is not on PATH")
		}
		bin = p
	}
	cmd := exec.CommandContext(ctx, bin, "app-server")
	cmd.Env = append(proc.environ(), "CODEX_HOME="+codexHome)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start %s app-server: %v", bin, err)
	}
	a := &codexApp{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	if _, err := a.call("initialize", map[string]any{"clientInfo": map[string]any{"name": "permopa", "version": "1"}}); err != nil {
		a.close()
		return nil, err
	}
	if err := a.send(map[string]any{"method": "initialized"}); err != nil {
		a.close()
		return nil, err
	}
	return a, nil
}

func (a *codexApp) send(msg map[string]any) error {
	b, _ := json.Marshal(msg)
	_, err := a.in.Write(append(b, '\n'))
	return err
}

func (a *codexApp) call(method string, params any) (json.RawMessage, error) {
	a.nextID++
	id := a.nextID
	if err := a.send(map[string]any{"id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		line, err := a.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("codex app-server closed during %s: %v", method, err)
		}
		var msg struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &msg) != nil || msg.ID == nil || *msg.ID != id {
			continue // a notification
		}
		if msg.Error != nil {
			return nil, fmt.Errorf("codex app-server %s: %s", method, msg.Error.Message)
		}
		return msg.Result, nil
	}
}

func (a *codexApp) close() {
	a.in.Close()
	done := make(chan struct{})
	go func() { a.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		a.cmd.Process.Kill()
		<-done
	}
}

type codexHook struct {
	Key         string `json:"key"`
	EventName   string `json:"eventName"`
	Command     string `json:"command"`
	SourcePath  string `json:"sourcePath"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
	Enabled     bool   `json:"enabled"`
}

func (a *codexApp) hooks(cwd string) ([]codexHook, []string, error) {
	raw, err := a.call("hooks/list", map[string]any{"cwds": []string{cwd}})
	if err != nil {
		return nil, nil, err
	}
	var res struct {
		Data []struct {
			Hooks    []codexHook `json:"hooks"`
			Warnings []string    `json:"warnings"`
			Errors   []struct {
				Message string `json:"message"`
				Path    string `json:"path"`
			} `json:"errors"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, nil, fmt.Errorf("hooks/list: %v", err)
	}
	var hooks []codexHook
	var notes []string
	for _, d := range res.Data {
		hooks = append(hooks, d.Hooks...)
		notes = append(notes, d.Warnings...)
		for _, e := range d.Errors {
			notes = append(notes, e.Path+": "+e.Message)
		}
	}
	return hooks, notes, nil
}

// codexTrust records Codex's trust in permopa's hooks of t.file (and no
// other hook), and checks that Codex then reports them trusted. It
// returns how many it trusted.
func (t target) codexTrust() (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	app, err := startCodexApp(ctx, t.codexBin, t.codexHome, t.proc)
	if err != nil {
		return 0, err
	}
	defer app.close()
	hooks, notes, err := app.hooks(t.project)
	if err != nil {
		return 0, err
	}
	file := t.realFile()
	var edits []any
	found := 0
	for _, h := range hooks {
		// Only the exact hooks install wrote: a project's config.toml
		// may hold a look-alike (`permopa hook codex; curl … | sh`) that
		// must never be trusted on the user's behalf.
		if !t.ours(h, file) || h.Command != t.command {
			continue
		}
		found++
		if h.TrustStatus == "trusted" || h.TrustStatus == "managed" {
			continue
		}
		edits = append(edits, map[string]any{"keyPath": "hooks.state", "mergeStrategy": "upsert",
			"value": map[string]any{h.Key: map[string]any{"trusted_hash": h.CurrentHash}}})
	}
	if found == 0 {
		why := "Codex does not list them"
		if t.scope == "project" {
			why += " (it loads a project's .codex/config.toml only when it trusts the project)"
		}
		if len(notes) > 0 {
			why += ": " + strings.Join(notes, "; ")
		}
		return 0, errors.New(why)
	}
	if len(edits) == 0 {
		return 0, nil
	}
	if _, err := app.call("config/batchWrite", map[string]any{"edits": edits, "filePath": filepath.Join(t.codexHome, "config.toml")}); err != nil {
		return 0, err
	}
	hooks, _, err = app.hooks(t.project)
	if err != nil {
		return 0, err
	}
	for _, h := range hooks {
		if t.ours(h, file) && h.Command == t.command && h.TrustStatus != "trusted" && h.TrustStatus != "managed" {
			return 0, fmt.Errorf("Codex still reports hook %s as %s after the trust was written", h.Key, h.TrustStatus)
		}
	}
	return len(edits), nil
}

func (t target) realFile() string {
	if r, err := filepath.EvalSymlinks(t.file); err == nil {
		return r
	}
	return t.file
}

func (t target) ours(h codexHook, file string) bool {
	src := h.SourcePath
	if r, err := filepath.EvalSymlinks(src); err == nil {
		src = r
	}
	return src == file && isPermopaHook(h.Command, "codex")
}
