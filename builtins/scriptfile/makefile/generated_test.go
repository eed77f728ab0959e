package makefile

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// genMakefile writes a random makefile of the constructs the reader
// models and make -n can run safely: variables of every flavour referring
// to each other, text functions, conditionals around assignments and
// recipe lines, rules over a graph of targets with automatic variables,
// pattern rules building source files it also returns.
func genMakefile(rng *rand.Rand) (string, []string, []string) {
	var files []string
	var b strings.Builder
	pick := func(xs ...string) string { return xs[rng.Intn(len(xs))] }
	below := 5 // references go to V0..V(below-1): no recursive variable refers to itself
	ref := func() string {
		if below == 0 {
			return "lit"
		}
		return fmt.Sprintf("$(V%d)", rng.Intn(below))
	}
	value := func() string {
		var parts []string
		for range 1 + rng.Intn(3) {
			parts = append(parts, pick("a", "b.c", "x.o", "-f", ref(), ref(),
				"$(subst .,_,"+ref()+")", "$(patsubst %.c,%.o,"+ref()+" k.c)", "$(filter %.o,"+ref()+" z.o)",
				"$(words "+ref()+")", "$(sort "+ref()+" b a)", "$(strip  "+ref()+" )", "$(if "+ref()+",yes,no)",
				"$(addprefix p/,"+ref()+")", "$(firstword "+ref()+" w)", "$(foreach w,"+ref()+",<$(w)>)"))
		}
		return strings.Join(parts, " ")
	}
	for i := range 5 {
		fmt.Fprintf(&b, "V%d = v%d\n", i, i)
	}
	for range 3 + rng.Intn(6) {
		v, op := rng.Intn(5), pick("=", ":=", "+=", "?=", "=")
		below = 5
		if op != ":=" {
			below = v
		}
		line := fmt.Sprintf("V%d %s %s\n", v, op, value())
		below = 5
		if rng.Intn(3) == 0 {
			line = fmt.Sprintf("ifeq (%s,%s)\n%selse\nV%d := %s\nendif\n", ref(), pick("v1", "a", "", "v2"), line, rng.Intn(5), value())
		}
		b.WriteString(line)
	}
	n := 2 + rng.Intn(4)
	for t := range n {
		var pre []string
		for p := t + 1; p < n; p++ {
			if rng.Intn(2) == 0 {
				pre = append(pre, fmt.Sprintf("t%d", p))
			}
		}
		if rng.Intn(3) == 0 {
			// a source built by the pattern rule below
			src := fmt.Sprintf("s%d", rng.Intn(3))
			files = append(files, src+pick(".c", ".s"))
			pre = append(pre, src+".o")
		}
		fmt.Fprintf(&b, "t%d: %s\n", t, strings.Join(pre, " "))
		for range 1 + rng.Intn(2) {
			fmt.Fprintf(&b, "\t%secho %s $@ [$<] [$^] %s\n", pick("", "@", "-", "@-"), fmt.Sprintf("t%d", t), value())
		}
		if rng.Intn(3) == 0 {
			fmt.Fprintf(&b, "ifneq (%s,)\n\techo cond %s\nendif\n", ref(), value())
		}
	}
	fmt.Fprintf(&b, "%%.o: %%.c\n\techo cc $< -o $@ [$*] %s\n%%.o: %%.s\n\techo as $< $@ %s\n", value(), value())
	b.WriteString(".PHONY:")
	for t := range n {
		fmt.Fprintf(&b, " t%d", t)
	}
	b.WriteString("\n")
	var args []string
	if rng.Intn(2) == 0 {
		args = append(args, fmt.Sprintf("t%d", rng.Intn(n)))
	}
	if rng.Intn(3) == 0 {
		args = append(args, fmt.Sprintf("V%d=%s", rng.Intn(5), pick("cmd", "x.c y.c", "")))
	}
	return b.String(), args, files
}

// TestGeneratedAgainstGNUMake compares Read with make -n on generated
// makefiles.
func TestGeneratedAgainstGNUMake(t *testing.T) {
	mk, err := exec.LookPath("make")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("GNU make is not installed (.ci/run installs it)")
		}
		t.Skip("GNU make is not installed")
	}
	rng := rand.New(rand.NewSource(27))
	compared := 0
	for i := range generatedCases {
		text, args, files := genMakefile(rng)
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		inv, _ := ParseArgs(append([]string{"make"}, args...), dir)
		res, err := Read(inv, nil, Limits{})
		if err != nil || res.Uncertain != "" {
			t.Errorf("case %d: %v %s\n%s", i, err, res.Uncertain, text)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, mk, append([]string{"-n"}, args...)...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=/usr/bin:/bin"}
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		err = cmd.Run()
		cancel()
		if err != nil {
			t.Errorf("case %d: make -n: %v %s\n%s", i, err, stderr.String(), text)
			continue
		}
		got := ""
		for _, l := range res.Commands {
			got += l.Text + "\n"
		}
		if want := dropMakeMessages(out.String()); got != want {
			t.Errorf("case %d (make %v):\n%s\nmake -n:\n%s\nRead:\n%s", i, args, text, want, got)
		}
		compared++
	}
	if compared < generatedCases*9/10 {
		t.Fatalf("only %d makefiles compared", compared)
	}
}
