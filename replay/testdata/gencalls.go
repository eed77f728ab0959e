//go:build ignore

// gencalls writes n tool calls, one JSON input per line, for measuring
// `permopa decide --log`, `permopa replay` and `permopa insights` on a
// large log (BENCHMARKS.md): a mix of Bash commands, file tools and a
// custom tool, in three modes, with arguments varied so that commands
// repeat the way a working session's do, not all the same.
//
//	go run replay/testdata/gencalls.go -n 1000000 -cwd /w/app > calls.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
)

func main() {
	n := flag.Int("n", 1000, "calls")
	cwd := flag.String("cwd", "/w/app", "the calls' working directory")
	flag.Parse()
	r := rand.New(rand.NewPCG(1, 2))
	bash := []string{
		"git status", "git log -n %d --oneline", "git diff src/file%d.go", "ls -la src/dir%d", "cat src/file%d.go",
		"grep -rn TODO%d src", "npm test -- test%d", "npm run build", "make target%d", "go test ./pkg%d/...",
		"rm -rf build%d", "mkdir -p out/%d", "cargo build -p crate%d", "python3 scripts/s%d.py",
		"docker compose up -d svc%d", "git push origin branch%d", "curl -s https://api%d.example.com/health",
		"find . -name '*%d.go' | xargs wc -l", "git add -A && git commit -m 'change %d'", "npm install pkg%d",
	}
	modes := []string{"default", "default", "default", "default", "default", "default", "default", "default", "acceptEdits", "acceptEdits", "acceptEdits", "plan"}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	enc := json.NewEncoder(w)
	for i := range *n {
		k := r.IntN(500) // how varied the arguments are
		var tool string
		var input map[string]any
		switch p := r.IntN(100); {
		case p < 55:
			tool = "Bash"
			tmpl := bash[r.IntN(len(bash))]
			cmd := tmpl
			if len(tmpl) > 0 && contains(tmpl, "%d") {
				cmd = fmt.Sprintf(tmpl, k)
			}
			input = map[string]any{"command": cmd}
		case p < 75:
			tool, input = "Read", map[string]any{"file_path": fmt.Sprintf("%s/src/file%d.go", *cwd, k)}
		case p < 85:
			tool, input = "Write", map[string]any{"file_path": fmt.Sprintf("%s/src/file%d.go", *cwd, k), "content": fmt.Sprintf("package p%d\n", k)}
		case p < 93:
			tool, input = "Edit", map[string]any{"file_path": fmt.Sprintf("%s/src/file%d.go", *cwd, k), "old_string": "a", "new_string": "b"}
		case p < 97:
			tool, input = "Grep", map[string]any{"pattern": fmt.Sprintf("func F%d", k), "path": *cwd + "/src"}
		default:
			tool, input = "mcp__db__query", map[string]any{"sql": fmt.Sprintf("select * from t%d", k)}
		}
		_ = enc.Encode(map[string]any{"tool_name": tool, "tool_input": input, "tool_use_id": fmt.Sprintf("toolu_%d", i),
			"permission_mode": modes[r.IntN(len(modes))], "cwd": *cwd, "session_id": fmt.Sprintf("s%d", i/200)})
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
