package bash

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// pathological is an input shape that costs mvdan.cc/sh or the walk more
// than linear work, or that is simply too big; n is about its size in bytes.
type pathological struct {
	name string
	make func(n int) string
}

func repeat(s string, n int) string {
	if n < 1 {
		n = 1
	}
	return strings.Repeat(s, n)
}

var pathologicalShapes = []pathological{
	{"cmdsubst", func(n int) string { return repeat("$(", n/3) + repeat(")", n/3) }},
	{"echo-cmdsubst", func(n int) string { return repeat("echo $(", n/8) + "x" + repeat(")", n/8) }},
	{"quoted-cmdsubst", func(n int) string { return "echo " + repeat(`"$(`, n/5) + repeat(`)"`, n/5) }},
	{"procsubst", func(n int) string { return "cat " + repeat("<(cat ", n/7) + repeat(")", n/7) }},
	{"pipeline", func(n int) string { return repeat("a|", n/2) + "a" }},
	{"and-chain", func(n int) string { return repeat("a&&", n/3) + "a" }},
	{"lines", func(n int) string { return repeat("ls\n", n/3) }},
	{"words", func(n int) string { return "echo" + repeat(" a", n/2) }},
	{"subshells", func(n int) string { return repeat("(", n/2) + "a" + repeat(")", n/2) }},
	{"arithmetic", func(n int) string { return "((" + repeat("(", n/2) + "1" + repeat(")", n/2) + "))" }},
	{"arith-unary", func(n int) string { return "echo $((" + repeat("- ", n/2) + "1))" }},
	{"arith-ternary", func(n int) string { return "echo $((" + repeat("1?", n/2) + "1" + repeat(":1", n/2) + "))" }},
	{"groups", func(n int) string { return repeat("{ ", n/4) + "a" + repeat(";}", n/4) }},
	{"ifs", func(n int) string { return repeat("if ", n/10) + "a" + repeat(";then :;fi", n/10) }},
	{"param-default", func(n int) string { return "echo " + repeat("${x:-", n/5) + "y" + repeat("}", n/5) }},
	{"test-parens", func(n int) string { return "[[ " + repeat("( ", n/4) + "a" + repeat(" )", n/4) + " ]]" }},
	{"heredoc", func(n int) string { return "cat <<EOF\n" + repeat("line $x of text\n", n/16) + "EOF" }},
	{"quoted-heredoc", func(n int) string { return "cat <<'EOF'\n" + repeat("((((( $(( \"'\n", n/16) + "EOF" }},
	{"bash-c-nested", func(n int) string { return "bash -c '" + repeat("$(", n/3) + repeat(")", n/3) + "'" }},
	{"eval-braces", func(n int) string { return "eval " + repeat("x", n/2) + "{1..256}" }},
}

// limitCase is one pathological input with the limit it must hit ("" none).
type limitCase struct {
	name, cmd, code string
}

func limitCases() []limitCase {
	var out []limitCase
	for _, p := range pathologicalShapes {
		for _, n := range []int{30 << 10, 1 << 20} {
			cmd := p.make(n)
			code := ""
			switch {
			case len(cmd) > HardMaxLength:
				code = LimitLength
			case p.name == "pipeline" || p.name == "and-chain" || p.name == "lines" ||
				p.name == "arith-unary" || p.name == "arith-ternary":
				// Arithmetic operators count like commands: each nests the tree.
				code = LimitCommands
			case p.name == "words" && n/2 > MaxWords:
				code = LimitWords
			case p.name == "words":
				code = "" // analysed, though not analysable (too many words for one command)
			case p.name == "heredoc" || p.name == "quoted-heredoc":
				code = "" // legitimate: analysed
			case p.name == "eval-braces":
				code = LimitLength // eval's script is 256 copies
			default:
				code = LimitNesting
			}
			out = append(out, limitCase{p.name + "-" + strconv.Itoa(n>>10) + "KB", cmd, code})
		}
	}
	return out
}

// allocated returns the bytes analyze allocates for cmd (TotalAlloc only
// grows: a collection in between does not hide anything).
func allocated(cmd string) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	analyze(cmd, conformanceOpts)
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// Pathological inputs are refused with their limit's code, as DENY
// material (not read-only, not analysable, truncated), and the work spent
// on them is bounded: well under a megabyte of allocation each, while
// before the limits 30 KB of "$(" allocated about 1 GB.
//
// Not in parallel: allocated reads the process's allocation counter, which
// tests running beside it would add to.
func TestLimits(t *testing.T) {
	for _, c := range limitCases() {
		a := analyze(c.cmd, conformanceOpts)
		if a.LimitExceeded != c.code {
			t.Errorf("%s (%d bytes): limit %q, want %q (reasons %q)", c.name, len(c.cmd), a.LimitExceeded, c.code, a.Reasons)
			continue
		}
		if c.code != "" && (a.ReadOnly || a.Analysable || !a.Truncated) {
			t.Errorf("%s: read-only=%v analysable=%v truncated=%v", c.name, a.ReadOnly, a.Analysable, a.Truncated)
		}
		budget := uint64(1 << 20)
		if c.code == "" {
			budget = 100 * uint64(len(c.cmd)) // analysed in full
		}
		if got := allocated(c.cmd); got > budget {
			t.Errorf("%s: analysis allocated %d bytes, bound %d", c.name, got, budget)
		}
	}
}

// The number of allocations of a refused input does not grow with it.
func TestLimitAllocsDoNotGrow(t *testing.T) {
	for _, p := range pathologicalShapes {
		if p.name == "heredoc" || p.name == "quoted-heredoc" {
			continue
		}
		small := testing.AllocsPerRun(3, func() { analyze(p.make(30<<10), conformanceOpts) })
		large := testing.AllocsPerRun(3, func() { analyze(p.make(120<<10), conformanceOpts) })
		if large > 2*small+200 {
			t.Errorf("%s: %v allocations at 120 KB, %v at 30 KB", p.name, large, small)
		}
	}
}

// Deny rules still see the leaves found before a limit stopped the walk.
func TestLimitKeepsLeavesFound(t *testing.T) {
	t.Parallel()
	rm, _ := CompilePattern("rm:*")
	cmd := "rm -rf x; echo " + repeat("${x:-", 100) + "y" + repeat("}", 100)
	a := analyze(cmd, conformanceOpts)
	if a.LimitExceeded != LimitNesting {
		t.Fatalf("limit %q, want %q", a.LimitExceeded, LimitNesting)
	}
	// The pre-scan refuses before parsing: nothing is found...
	if len(a.Leaves) != 0 {
		t.Errorf("leaves %v", a.Leaves)
	}
	// ...while a limit met during the walk keeps what came before it.
	deep := "rm -rf x; bash -c '" + repeat("$(", 70) + repeat(")", 70) + "'"
	a = analyze(deep, conformanceOpts)
	if a.LimitExceeded != LimitNesting {
		t.Fatalf("limit %q, want %q (%q)", a.LimitExceeded, LimitNesting, a.Reasons)
	}
	if a.MatchAny([]*Pattern{rm}) != 0 {
		t.Errorf("deny rules must see the leaves found before the limit:\n%s", brief(a))
	}
}

// Input within the limits is not refused: the limits leave room for real
// commands (a long file list, a long heredoc, a script of many lines).
func TestLimitsLeaveRealCommands(t *testing.T) {
	t.Parallel()
	files := make([]string, 5000)
	for i := range files {
		files[i] = "src/file" + strconv.Itoa(i) + ".go"
	}
	for name, cmd := range map[string]string{
		"long file list": "git add " + strings.Join(files, " "),
		"long heredoc":   "cat > notes.md <<'EOF'\n" + repeat("Some text (with parens) and $(dollars) and 'quotes'.\n", 2000) + "EOF",
		"many lines":     repeat("echo line\n", 1500),
		"deep but fine":  repeat("$(", 30) + "ls" + repeat(")", 30),
		"case in subst":  `echo "$(case x in a) echo ")";; (b) echo '(';; esac)"`,
	} {
		a := analyze(cmd, conformanceOpts)
		if a.LimitExceeded != "" {
			t.Errorf("%s (%d bytes): refused with %q (%q)", name, len(cmd), a.LimitExceeded, a.Reasons)
		}
	}
}

// The parser's guard stops deep recursion whatever the pre-scan says: a
// million open parentheses would overflow the goroutine stack (a crash
// no recover catches) without it.
func TestParseGuard(t *testing.T) {
	t.Parallel()
	for _, src := range []string{repeat("(", 1<<20), repeat("$(", 1<<19), "((" + repeat("- ", 1<<19) + "1))", repeat("${x:-", 1<<18)} {
		_, err, deep := parseWith(src, parseFile)
		if !deep || err == nil {
			t.Errorf("%.10q…: deep=%v err=%v", src, deep, err)
		}
	}
	if _, err, deep := parseWith(repeat("echo a; ", 1000), parseFile); deep || err != nil {
		t.Errorf("a flat script: deep=%v err=%v", deep, err)
	}
}

// The pre-scan reads the contexts mvdan.cc/sh reads: what quotes, comments
// and here-documents hold is not nesting, and they cannot hide nesting.
func TestScanLimits(t *testing.T) {
	t.Parallel()
	deep := repeat("$(", MaxNesting+1) + repeat(")", MaxNesting+1)
	for _, c := range []struct {
		src, code string
	}{
		{"echo '" + repeat("(", 200) + "'", ""},
		{"echo \"" + repeat("(", 200) + "\"", ""},
		{"echo $'" + repeat("(\\'", 200) + "'", ""},
		{"# " + repeat("(", 200) + "\nls", ""},
		{"cat <<'EOF'\n" + repeat("$(", 200) + "\nEOF\nls", ""},
		{"cat <<-EOF\n\t" + repeat("\\$(", 200) + "\n\tEOF", ""},
		{"(( 1 << 2 ))\n" + repeat("(", 200), LimitNesting},
		{deep, LimitNesting},
		{"echo \"" + deep + "\"", LimitNesting},
		{"echo '" + "' " + deep, LimitNesting},
		{"echo it\\'s " + deep, LimitNesting},
		{"echo a#b " + deep, LimitNesting},
		{"cat <<'EOF'\nx\nEOF\n" + deep, LimitNesting},
		{"cat <<EOF\n" + deep + "\nEOF", LimitNesting},
		{`echo "$(case x in a) echo "'` + deep + `'";; esac)"`, LimitNesting},
		{`echo "${x:-'}"` + "'" + deep, LimitNesting},
		// << is a shift, not a here-document, in let, subscripts and (( )).
		{"let x<<1\n" + repeat("a|", MaxCommands+1), LimitCommands},
		{"a[1<<2]=3\n" + repeat("a|", MaxCommands+1), LimitCommands},
		{"for ((i=1<<2;;)); do :; done\n" + repeat("a|", MaxCommands+1), LimitCommands},
		{"cat<<EOF\n" + repeat("a|", MaxCommands+1) + "\nEOF", ""},
		// Arithmetic nests one level per operator.
		{"echo $((" + repeat("1+", MaxCommands+1) + "1))", LimitCommands},
		{"(( " + repeat("x+", 100) + "1 ))", ""},
		{repeat("a ", MaxWords+1), LimitWords},
		{repeat("a;", MaxCommands+1), LimitCommands},
		{repeat(" ", HardMaxLength+1), LimitLength},
	} {
		if got := scanLimits(c.src, scanScript); got != c.code {
			t.Errorf("%.60q: %q, want %q", c.src, got, c.code)
		}
	}
}
