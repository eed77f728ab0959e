package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/permopa/permopa/internal/safefile"
)

// A hook command whose program is a bare name (`permopa-hook claude`, as
// install writes it at project scope so that it resolves on every
// teammate's machine) is looked up on the PATH the host runs its hooks
// with. A repository can set that PATH: Claude Code applies the `env` of
// the project's .claude/settings.json and settings.local.json to the
// session, and Gemini CLI loads the project's .gemini/.env or .env. With
// PATH=tools:… there, the host runs the repository's tools/permopa-hook,
// which can allow every call, while doctor, looking the name up on the
// user's PATH, would find the real permopa (docs/hosts.md, "Fail closed").

// projectPathSetters are the files of project that set PATH for host's
// hooks, each with how ("env.PATH", "PATH="), and the files that could not
// be read (which might).
func projectPathSetters(host, project string) []string {
	var out []string
	switch host {
	case "claude":
		for _, name := range []string{"settings.json", "settings.local.json"} {
			file := filepath.Join(project, ".claude", name)
			data, err := safefile.Read(file, maxHostSettings)
			if err != nil {
				continue // absent; a link or pipe the host cannot read either
			}
			var doc struct {
				Env map[string]any `json:"env"`
			}
			if json.Unmarshal(data, &doc) != nil {
				continue // doctor reports the syntax error itself
			}
			for k := range doc.Env {
				if strings.EqualFold(k, "PATH") {
					out = append(out, fmt.Sprintf("%s (env.%s)", file, k))
				}
			}
		}
	case "gemini":
		for _, file := range []string{filepath.Join(project, ".gemini", ".env"), filepath.Join(project, ".env")} {
			data, err := safefile.Read(file, maxHostSettings)
			if err != nil {
				continue
			}
			sc := bufio.NewScanner(bytes.NewReader(data))
			for line := 1; sc.Scan(); line++ {
				l := strings.TrimSpace(sc.Text())
				l = strings.TrimSpace(strings.TrimPrefix(l, "export "))
				if k, _, ok := strings.Cut(l, "="); ok && strings.EqualFold(strings.TrimSpace(k), "PATH") {
					out = append(out, fmt.Sprintf("%s:%d (PATH=)", file, line))
				}
			}
		}
	}
	return out
}

// pathHijack says why the host may not run the permopa that command
// names, or "": command's program is a bare name and the user's PATH has
// a relative entry, or a file of the project sets the PATH it is looked
// up on.
func (t target) pathHijack(command string) string {
	words, ok := plainWords(strings.TrimSuffix(strings.TrimSpace(command), strings.TrimSpace(failClosedSuffix)))
	if !ok || len(words) == 0 || strings.Contains(words[0], "/") {
		return ""
	}
	for _, dir := range filepath.SplitList(t.proc.getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			// The host's shell looks in the directory the hook runs in
			// (the project) for "" and "." alike.
			return fmt.Sprintf("your PATH has the relative entry %q, so the host's shell looks %s up in the directory the hook runs in (the project, whose files the repository chose) too; remove it from PATH, or install with an absolute path (`permopa install %s --scope %s --command '/ABSOLUTE/PATH/%s …'`)",
				dir, words[0], t.host, t.scope, words[0])
		}
	}
	setters := projectPathSetters(t.host, t.project)
	if len(setters) == 0 {
		return ""
	}
	return fmt.Sprintf("its program %s is looked up on the PATH that %s sets for %s, where the repository can put a program of that name that allows every call; remove PATH from there, or install with an absolute path (`permopa install %s --scope %s --command '/ABSOLUTE/PATH/%s …'`)",
		words[0], strings.Join(setters, " and "), t.host, t.host, t.scope, words[0])
}
