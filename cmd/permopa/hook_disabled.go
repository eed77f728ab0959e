package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/permopa/permopa/internal/safefile"
)

// A repository can switch the hooks off in the host's project settings,
// which the host merges over the user's: Claude Code's "disableAllHooks":
// true runs no hook of the user's (only managed ones), and Gemini CLI's
// hooksConfig.enabled false runs none, hooksConfig.disabled none of the
// names or commands it lists (install names its hook "permopa"). With
// permopa's hook installed and nothing running it, every call goes
// through unchecked (docs/hosts.md, "Fail closed").

// hooksSwitchedOff says, per settings file of the project (and the user's)
// that switches permopa's hook off for t.host, which key does.
func (t target) hooksSwitchedOff() []string {
	var files []string
	switch t.host {
	case "claude":
		userDir := t.proc.getenv("CLAUDE_CONFIG_DIR")
		if userDir == "" {
			userDir = filepath.Join(t.home, ".claude")
		}
		files = []string{filepath.Join(t.project, ".claude", "settings.json"), filepath.Join(t.project, ".claude", "settings.local.json"), filepath.Join(userDir, "settings.json")}
	case "gemini":
		files = []string{filepath.Join(t.project, ".gemini", "settings.json"), filepath.Join(t.home, ".gemini", "settings.json")}
	default:
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f] {
			continue // run in the home directory: the project's file is the user's
		}
		seen[f] = true
		data, err := safefile.Read(f, maxHostSettings)
		if err != nil {
			continue
		}
		var doc map[string]any
		if json.Unmarshal(data, &doc) != nil {
			continue // doctor reports the syntax error of its own file
		}
		switch t.host {
		case "claude":
			if doc["disableAllHooks"] == true {
				out = append(out, fmt.Sprintf(`%s sets "disableAllHooks": true (Claude Code then runs no hook but managed ones)`, f))
			}
		case "gemini":
			for _, key := range []string{"hooksConfig", "hooks"} { // hooks.* is the older form
				cfg, _ := doc[key].(map[string]any)
				if cfg["enabled"] == false {
					out = append(out, fmt.Sprintf(`%s sets %s.enabled false (Gemini CLI then runs no hook)`, f, key))
				}
				list, _ := cfg["disabled"].([]any)
				for _, v := range list {
					s, _ := v.(string)
					if s == "permopa" || isPermopaHook(s, "gemini") {
						out = append(out, fmt.Sprintf(`%s lists %q in %s.disabled (Gemini CLI then skips permopa's hook)`, f, s, key))
					}
				}
			}
		}
	}
	return out
}

// hooksOffMessage is the failed check (or install warning) for what
// hooksSwitchedOff found, "" for nothing.
func (t target) hooksOffMessage() string {
	off := t.hooksSwitchedOff()
	if len(off) == 0 {
		return ""
	}
	return fmt.Sprintf("permopa's hook does not run: %s; every call goes through unchecked until that is removed", strings.Join(off, "; "))
}
