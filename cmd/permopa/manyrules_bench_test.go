package main_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/permopa/permopa/settings"
)

// cliRuleKinds are the rule kinds of BENCHMARKS.md "Many rules", rule i as
// a settings file writes it; none matches cliManyRulesCalls.
var cliRuleKinds = []func(i int) string{
	func(i int) string { return fmt.Sprintf("Bash(tool%d:*)", i) },
	func(i int) string { return fmt.Sprintf("mcp__srv%d__*", i) },
	func(i int) string { return fmt.Sprintf("WebFetch(domain:*.d%d.example.org)", i) },
	func(i int) string { return fmt.Sprintf(`deploy({"target":"stag%d*"})`, i) },
	func(i int) string {
		return []string{"Read(/data/d%d/**)", "Edit(src/gen%d/**)", "Write(/out/o%d/*)", "Glob(~/g%d/**)", "Grep(//abs%d/**)"}[(i/5)%5]
	},
}

var cliManyRulesCalls = []string{
	`{"tool_name":"Bash","tool_input":{"command":"make build && npm test"},"cwd":"/w"}`,
	`{"tool_name":"mcp__zzz__do","tool_input":{"q":1},"cwd":"/w"}`,
	`{"tool_name":"WebFetch","tool_input":{"url":"https://api.github.com/repos"},"cwd":"/w"}`,
	`{"tool_name":"deploy","tool_input":{"target":"prod"},"cwd":"/w"}`,
	`{"tool_name":"Read","tool_input":{"file_path":"/w/src/main.go"},"cwd":"/w"}`,
	`{"tool_name":"Edit","tool_input":{"file_path":"/w/src/a.go","old_string":"a","new_string":"b"},"cwd":"/w"}`,
}

// manyRulesFiles writes n rules of every kind in turn, a third each deny,
// ask and allow, over three settings files and an org rules bundle, and
// returns the `permopa decide` arguments that load them.
func manyRulesFiles(b *testing.B, n int) []string {
	dir := b.TempDir()
	type perms struct{ Allow, Ask, Deny []string }
	files := make([]perms, 3)
	var org settings.Settings
	for i := 0; i < n; i++ {
		kind := cliRuleKinds[i%len(cliRuleKinds)]
		spec := kind(i)
		if strings.Contains(spec, "%d") {
			spec = fmt.Sprintf(spec, i)
		}
		where := (i / 3) % 4
		behavior := []string{"allow", "deny", "ask"}[i%3]
		if where == 3 {
			r, err := settings.ParseRule(spec, behavior)
			if err != nil {
				b.Fatal(err)
			}
			r.Source = settings.SourceOrg
			org.Rules = append(org.Rules, r)
			continue
		}
		p := &files[where]
		switch behavior {
		case "allow":
			p.Allow = append(p.Allow, spec)
		case "deny":
			p.Deny = append(p.Deny, spec)
		default:
			p.Ask = append(p.Ask, spec)
		}
	}
	args := []string{"decide"}
	for i, p := range files {
		doc, err := json.Marshal(map[string]any{"permissions": map[string]any{"allow": p.Allow, "ask": p.Ask, "deny": p.Deny}})
		if err != nil {
			b.Fatal(err)
		}
		f := filepath.Join(dir, fmt.Sprintf("settings%d.json", i))
		if err := os.WriteFile(f, doc, 0o644); err != nil {
			b.Fatal(err)
		}
		args = append(args, "--settings", f)
	}
	bundle := filepath.Join(dir, "org")
	if err := os.MkdirAll(filepath.Join(bundle, "permopa", "rules"), 0o755); err != nil {
		b.Fatal(err)
	}
	doc, err := json.Marshal(settings.RulesDocument(org, time.Now()))
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bundle, "permopa", "rules", "data.json"), doc, 0o644); err != nil {
		b.Fatal(err)
	}
	return append(args, "-b", bundle)
}

// decideProc is a running `permopa decide` fed blocks of lines.
type decideProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startDecide(b *testing.B, args []string, warm []string) *decideProc {
	return startProc(b, permopaBin, args, warm)
}

// startProc starts bin with args as a line decider (`permopa decide`, or
// the floor of BenchmarkDecideLineKinds) and warms it with the lines of warm.
func startProc(b *testing.B, bin string, args []string, warm []string) *decideProc {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HOME=/home/u")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &decideProc{cmd: cmd, in: stdin, out: bufio.NewReader(stdout)}
	b.Cleanup(func() {
		p.in.Close()
		p.cmd.Wait()
	})
	// Each call once: the rule lists it meets are compiled per data
	// revision, on first use.
	p.block(b, strings.Join(warm, "\n")+"\n", len(warm))
	return p
}

// block writes lines (n of them) and reads the n decisions; none may be an
// error or decided by a rule (the rules match none of the calls).
func (p *decideProc) block(b *testing.B, lines string, n int) {
	go io.WriteString(p.in, lines)
	for i := 0; i < n; i++ {
		line, err := p.out.ReadString('\n')
		if err != nil {
			b.Fatalf("line %d: %v", i, err)
		}
		if strings.Contains(line, `"step":"error"`) || strings.Contains(line, `"matched_rule":{`) {
			b.Fatalf("line %d: %s", i, line)
		}
	}
}

// BenchmarkDecideCLIManyRules measures `permopa decide --settings` per
// line with 10 and with 10,000 rules of every kind (Bash, tool-name globs,
// WebFetch domains, custom-tool contents, path rules of every tool) in
// three settings files and an org rules bundle: two processes, started and
// warmed (each call answered once) before the clock starts, are fed the
// same block of lines in turns; the benchmark reports the median cost per
// line of each (rules10-ns, rules10000-ns) and their ratio. Loading the
// rules is not part of the figure.
func BenchmarkDecideCLIManyRules(b *testing.B) {
	var procs [2]*decideProc
	for j, n := range []int{10, 10000} {
		procs[j] = startDecide(b, manyRulesFiles(b, n), cliManyRulesCalls)
	}
	const perBlock = 60
	var lines strings.Builder
	for i := 0; i < perBlock; i++ {
		lines.WriteString(cliManyRulesCalls[i%len(cliManyRulesCalls)])
		lines.WriteByte('\n')
	}
	block := lines.String()
	var ts [2][]float64
	i := 0
	for b.Loop() {
		for k := range 2 {
			j := (i + k) % 2
			t0 := time.Now()
			procs[j].block(b, block, perBlock)
			ts[j] = append(ts[j], float64(time.Since(t0).Nanoseconds())/perBlock)
		}
		i++
	}
	var med [2]float64
	for j := range ts {
		slices.Sort(ts[j])
		med[j] = ts[j][len(ts[j])/2]
	}
	b.ReportMetric(med[0], "rules10-ns/line")
	b.ReportMetric(med[1], "rules10000-ns/line")
	b.ReportMetric(med[1]/med[0], "ratio")
}
