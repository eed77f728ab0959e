package makefile

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fixture is a directory of files and a make command run in it.
type fixture struct {
	name  string
	files map[string]string // path → content; "" content with a trailing / is a directory
	args  []string          // make's arguments (argv[1:])
	env   map[string]string

	want      []string // command texts, in order
	wantAt    []string // File:Line of each command, when given
	uncertain string   // a substring of Result.Uncertain; "" when certain
	// differential: compare with `make -n` (only fixtures without
	// $(shell), `+` lines and $(MAKE), whose targets are not files).
	differential bool
}

func writeFixture(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFixture(t *testing.T, dir string, f fixture) Result {
	t.Helper()
	inv, _ := ParseArgs(append([]string{"make"}, f.args...), dir)
	inv.Env = f.env
	res, err := Read(inv, nil, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func texts(ls []Line) []string {
	out := []string{}
	for _, l := range ls {
		out = append(out, l.Text)
	}
	return out
}

func checkFixture(t *testing.T, f fixture, res Result) {
	t.Helper()
	if f.uncertain == "" && res.Uncertain != "" {
		t.Fatalf("uncertain: %s", res.Uncertain)
	}
	if f.uncertain != "" {
		if !strings.Contains(res.Uncertain, f.uncertain) {
			t.Fatalf("Uncertain = %q, want it to say %q", res.Uncertain, f.uncertain)
		}
		return
	}
	got := texts(res.Commands)
	if strings.Join(got, "\x00") != strings.Join(f.want, "\x00") {
		t.Fatalf("commands\n got %q\nwant %q", got, f.want)
	}
	for i, at := range f.wantAt {
		if g := posOf(res.Commands[i].File, res.Commands[i].Line); g != at {
			t.Errorf("command %d at %s, want %s", i, g, at)
		}
	}
}

var readerCases = []fixture{
	{
		name: "default goal, prerequisites first, automatic variables",
		files: map[string]string{"Makefile": "CC = gcc\nOBJS = a.o b.o\nall: prog\nprog: $(OBJS)\n\t$(CC) -o $@ $^\na.o: a.c ; $(CC) -c $< -o $@\nb.o: b.c\n\t$(CC) -c $< \\\n\t  -o $@\nclean:\n\t@-$(RM) $(OBJS) prog\n.PHONY: all clean\n",
			"a.c": "", "b.c": ""},
		want:         []string{"gcc -c a.c -o a.o", "gcc -c b.c \\\n  -o b.o", "gcc -o prog a.o b.o"},
		wantAt:       []string{"Makefile:6", "Makefile:8", "Makefile:5"},
		differential: true,
	},
	{
		name:         "named goal with make's default RM",
		files:        map[string]string{"Makefile": "all: ; echo all\nclean:\n\t@-$(RM) -r build\n"},
		args:         []string{"clean"},
		want:         []string{"rm -f -r build"},
		wantAt:       []string{"Makefile:3"},
		differential: true,
	},
	{
		name:         "GNUmakefile before makefile before Makefile",
		files:        map[string]string{"GNUmakefile": "x: ; echo gnu\n", "makefile": "x: ; echo lower\n", "Makefile": "x: ; echo upper\n"},
		want:         []string{"echo gnu"},
		differential: true,
	},
	{
		name:         "makefile before Makefile",
		files:        map[string]string{"makefile": "x: ; echo lower\n", "Makefile": "x: ; echo upper\n"},
		want:         []string{"echo lower"},
		differential: true,
	},
	{
		name:         "-f and -C",
		files:        map[string]string{"sub/build.mk": "go: ; echo sub $(CURDIR)\n", "Makefile": "go: ; echo top\n"},
		args:         []string{"-C", "sub", "-f", "build.mk", "go"},
		want:         []string{"echo sub $DIR/sub"},
		differential: true,
	},
	{
		name:         "--directory= and --file=, abbreviated",
		files:        map[string]string{"sub/build.mk": "go: ; echo sub\n"},
		args:         []string{"--dir=sub", "--file=build.mk", "-kj4"},
		want:         []string{"echo sub"},
		differential: true,
	},
	{
		name:         "targets starting with a dot are not the default goal; the first other target of the rule is",
		files:        map[string]string{"Makefile": ".hidden b: ; echo $@\nc: ; echo c\n"},
		want:         []string{"echo b"},
		differential: true,
	},
	{
		name:         ".DEFAULT_GOAL",
		files:        map[string]string{"Makefile": "a: ; echo a\nb: ; echo b\n.DEFAULT_GOAL := b\n"},
		want:         []string{"echo b"},
		differential: true,
	},
	{
		name:         "simple and recursive variables, +=, ?=, command line overrides",
		files:        map[string]string{"Makefile": "A = one\nB := $(A)\nC = $(A)\nA = two\nA += three\nD ?= dee\nD ?= ignored\nE := e\nE += $(A)\nX = file\nall: ; echo $(B) $(C) $(D) $(E) $(X)\n"},
		args:         []string{"X=cmd"},
		want:         []string{"echo one two three dee e two three cmd"},
		differential: true,
	},
	{
		name:         "override beats the command line",
		files:        map[string]string{"Makefile": "override X = file\nall: ; echo $(X)\n"},
		args:         []string{"X=cmd"},
		want:         []string{"echo file"},
		differential: true,
	},
	{
		name:         "$$ and single-character variables, ${} references",
		files:        map[string]string{"Makefile": "X = ex\nall: ; echo $$HOME $X ${X} $$$$\n"},
		want:         []string{"echo $HOME ex ex $$"},
		differential: true,
	},
	{
		name:         "comments, escaped #, trailing blanks kept before a comment",
		files:        map[string]string{"Makefile": "# a comment \\\n  continued\nX = a   # c\nY = \\#hash\nall: ; echo [$(X)] $(Y) # to the shell\n"},
		want:         []string{"echo [a   ] #hash # to the shell"},
		differential: true,
	},
	{
		name:         "continuation lines outside recipes are one space",
		files:        map[string]string{"Makefile": "X = a \\\n     b \\\n  c\nall: ; echo $(X)\n"},
		want:         []string{"echo a b c"},
		differential: true,
	},
	{
		name:         "prefixes @ - + and whitespace stripped, in any order",
		files:        map[string]string{"Makefile": "all:\n\t@-rm -rf build\n\t-@ echo two\n\t @echo three\n"},
		want:         []string{"rm -rf build", "echo two", "echo three"},
		differential: true,
	},
	{
		name:         "prefixes from a variable (Q = @)",
		files:        map[string]string{"Makefile": "Q = @\nall:\n\t$(Q)echo quiet\n"},
		want:         []string{"echo quiet"},
		differential: true,
	},
	{
		name:         "a multi-line variable gives one command per line",
		files:        map[string]string{"Makefile": "define CMDS\necho one\n@echo two\nendef\nall:\n\t$(CMDS)\n"},
		want:         []string{"echo one", "echo two"},
		differential: true,
	},
	{
		name:         "conditionals",
		files:        map[string]string{"Makefile": "A = yes\nifeq ($(A),yes)\nX = 1\nelse ifeq ($(A),no)\nX = 2\nelse\nX = 3\nendif\nifneq \"$(A)\" \"yes\"\nY = n\nelse\nY = y\nendif\nifdef A\nZ = def\nendif\nifndef A\nZ = undef\nendif\nifeq (a, a)\nW = spaces\nendif\nall: ; echo $(X) $(Y) $(Z) $(W)\n"},
		want:         []string{"echo 1 y def spaces"},
		differential: true,
	},
	{
		name:         "recipe lines inside a conditional",
		files:        map[string]string{"Makefile": "MODE = a\nall:\n\techo start\nifeq ($(MODE),a)\n\techo mode a\nelse\n\techo mode b\nendif\n\techo end\n"},
		want:         []string{"echo start", "echo mode a", "echo end"},
		differential: true,
	},
	{
		name:  "functions",
		files: map[string]string{"Makefile": "SRCS = a.c b.c sub/c.c\nOBJS = $(SRCS:.c=.o)\nP = $(patsubst %.c,%.o,$(SRCS))\nall:\n\techo $(OBJS) $(P) $(notdir $(SRCS)) $(dir $(SRCS)) $(basename $(SRCS)) $(suffix $(SRCS))\n\techo $(words $(SRCS)) $(word 2,$(SRCS)) $(firstword $(SRCS)) $(lastword $(SRCS)) $(wordlist 2,3,$(SRCS))\n\techo $(filter %.c,$(SRCS) x.h) $(filter-out a.c,$(SRCS)) $(sort c b a b) $(strip  a   b ) $(findstring b,abc)\n\techo $(addprefix -I,x y) $(addsuffix .h,x y) $(join a b,1 2) $(subst a,A,banana)\n\techo $(foreach f,x y,[$(f)]) $(if $(SRCS),yes,no) $(if ,yes,no) $(or ,b) $(and a,b)\n\techo $(call F,one,two) $(origin SRCS) $(flavor OBJS) $(value OBJS)\nF = $(2)-$(1)\n"},
		want: []string{"echo a.o b.o sub/c.o a.o b.o sub/c.o a.c b.c c.c ./ ./ sub/ a b sub/c .c .c .c",
			"echo 3 b.c a.c sub/c.c b.c sub/c.c",
			"echo a.c b.c sub/c.c b.c sub/c.c a b c a b b",
			"echo -Ix -Iy x.h y.h a1 b2 bAnAnA",
			"echo [x] [y] yes no b b",
			"echo two-one file recursive $(SRCS:.c=.o)"},
		differential: true,
	},
	{
		name:         "wildcard, sorted, no hidden files",
		files:        map[string]string{"Makefile": "all: ; echo $(wildcard *.c) $(wildcard nope/*)\n", "b.c": "", "a.c": "", ".h.c": ""},
		want:         []string{"echo a.c b.c "},
		differential: true,
	},
	{
		name: "wildcard in directories, ./ kept, a literal last part checked",
		files: map[string]string{"Makefile": "all: ; echo $(wildcard src/*/*.c) $(wildcard ./*.h) $(wildcard */keep) $(wildcard [ab]*.c)\n",
			"src/a/x.c": "", "src/b/y.c": "", "src/.hid/z.c": "", "src/b/.w.c": "", "one.h": "", "d/keep": "", "e/": "", "a1.c": "", "b2.c": "", "c3.c": ""},
		want:         []string{"echo src/a/x.c src/b/y.c ./one.h d/keep a1.c b2.c"},
		differential: true,
	},
	{
		name:         "includes, relative to make's directory",
		files:        map[string]string{"Makefile": "include mk/vars.mk\n-include missing.mk\nall: ; echo $(X)\n", "mk/vars.mk": "X = included\n"},
		want:         []string{"echo included"},
		differential: true,
	},
	{
		name:         "each target once; circular dependencies dropped",
		files:        map[string]string{"Makefile": "all: a b\na: c\n\techo a\nb: c a\n\techo b\nc: a\n\techo c\n"},
		want:         []string{"echo c", "echo a", "echo b"},
		differential: true,
	},
	{
		name:         "order-only prerequisites are built",
		files:        map[string]string{"Makefile": "all: x | dir\n\techo all $| $^\nx: ; echo x\ndir: ; echo dir\n"},
		want:         []string{"echo x", "echo dir", "echo all dir x"},
		differential: true,
	},
	{
		name:         "the last recipe wins; prerequisites merge",
		files:        map[string]string{"Makefile": "all: a\n\techo first\nall: b\n\techo second $^\na: ; echo a\nb: ; echo b\n"},
		want:         []string{"echo b", "echo a", "echo second b a"},
		differential: true,
	},
	{
		name:         "static pattern rules",
		files:        map[string]string{"Makefile": "OBJS = a.o b.o\nall: $(OBJS)\n$(OBJS): %.o: %.c\n\techo cc $< -o $@ stem $*\n", "a.c": "", "b.c": ""},
		want:         []string{"echo cc a.c -o a.o stem a", "echo cc b.c -o b.o stem b"},
		differential: true,
	},
	{
		name:         "an empty recipe after ; prevents implicit rules",
		files:        map[string]string{"Makefile": "all: foo\nfoo: ;\n", "foo.c": ""},
		want:         []string{},
		differential: true,
	},
	{
		name:         "-r: no built-in rules",
		files:        map[string]string{"Makefile": "all: foo\n\techo done\nfoo:\n", "foo.c": ""},
		args:         []string{"-r"},
		want:         []string{"echo done"},
		differential: true,
	},
	{
		name:         "MAKEFLAGS += -r in the makefile",
		files:        map[string]string{"Makefile": "MAKEFLAGS += --no-builtin-rules\nall: foo\n\techo done\nfoo:\n", "foo.c": ""},
		want:         []string{"echo done"},
		differential: true,
	},
	{
		name:         "phony targets get no implicit rule",
		files:        map[string]string{"Makefile": "all: test\n.PHONY: test\ntest:\n", "test.c": ""},
		want:         []string{},
		differential: true,
	},
	{
		name:         "SHELL bash and .SHELLFLAGS -eu -o pipefail -c are modelled",
		files:        map[string]string{"Makefile": "SHELL := /bin/bash\n.SHELLFLAGS := -eu -o pipefail -c\nall: ; echo ok\n"},
		want:         []string{"echo ok"},
		differential: true,
	},
	{
		name:         "a target named like an option",
		files:        map[string]string{"Makefile": "-rf: ; rm -rf /tmp/nothing-here\n"},
		args:         []string{"--", "-rf"},
		want:         []string{"rm -rf /tmp/nothing-here"},
		differential: true,
	},
	{
		name:         "pattern rules and target-specific variables of targets not built change nothing",
		files:        map[string]string{"Makefile": "all: a\na: ; echo a\n%.o: %.c ; rm -rf $@\nother: X = rm -rf\nother: ; $(X)\n"},
		want:         []string{"echo a"},
		differential: true,
	},
	{
		name:         "call, nested call, value, origin, flavor, foreach with call",
		files:        map[string]string{"Makefile": "pair = $(1)=$(2)\nwrap = [$(call pair,$(1),$(2))]\nL = a b\nall: ; echo $(call wrap,x,y) $(foreach v,$(L),$(call pair,$(v),1)) $(origin L) $(flavor wrap) $(origin CC) $(origin @)\n"},
		want:         []string{"echo [x=y] a=1 b=1 file recursive default automatic"},
		differential: true,
	},
	{
		name:         "define with an operator, override define, ifdef of an empty variable",
		files:        map[string]string{"Makefile": "E =\nX := one\ndefine D :=\n$(X) two\nendef\nX := three\noverride define O\necho o\nendef\nifdef E\nR = defined\nelse\nR = empty\nendif\nall:\n\techo $(D) $(R)\n\t$(O)\n"},
		args:         []string{"O=ignored"},
		want:         []string{"echo one two empty", "echo o"},
		differential: true,
	},
	{
		name:         "+= keeps the flavour; the command line's value is kept",
		files:        map[string]string{"Makefile": "T = t1\nS := s\nS += $(T)\nR = r\nR += $(T)\nT = t2\nC += file\nall: ; echo [$(S)] [$(R)] [$(C)]\n"},
		args:         []string{"C=cmd"},
		want:         []string{"echo [s t1] [r t2] [cmd]"},
		differential: true,
	},
	{
		name:         "several targets of one rule share the recipe, each with its $@",
		files:        map[string]string{"Makefile": "all: x y\nx y: ; echo making $@\n"},
		want:         []string{"echo making x", "echo making y"},
		differential: true,
	},
	{
		name:         "$(MAKECMDGOALS), $(CURDIR), $(MAKEFILE_LIST), $(MAKELEVEL)",
		files:        map[string]string{"Makefile": "include inc.mk\nt1 t2: ; echo $(MAKECMDGOALS) $(notdir $(CURDIR)) $(MAKEFILE_LIST) $(MAKELEVEL)\n", "inc.mk": ""},
		args:         []string{"t2", "t1"},
		want:         []string{"echo t2 t1 $BASE Makefile inc.mk 0", "echo t2 t1 $BASE Makefile inc.mk 0"},
		differential: true,
	},
	{
		name:         "pattern rules: prerequisites first, then the explicit ones; $< $^ $* $@",
		files:        map[string]string{"Makefile": "all: x.o\nx.o: extra.h\n%.o: %.c dep.h\n\techo cc $< [$^] $* $@\nextra.h: ; echo gen extra\ndep.h: ; echo gen dep\n", "x.c": ""},
		want:         []string{"echo gen dep", "echo gen extra", "echo cc x.c [x.c dep.h extra.h] x x.o"},
		differential: true,
	},
	{
		name:         "pattern rules: the directory of a target, the shortest stem, a rule that does not apply",
		files:        map[string]string{"Makefile": "all: sub/y.o z.o w.o\n%.o: %.c\n\techo c $@ $< $*\nz%: z%.src\n\techo z $*\n%.o: %.s\n\techo s $@\n", "sub/y.c": "", "z.c": "", "z.o.src": "", "w.s": ""},
		want:         []string{"echo c sub/y.o sub/y.c sub/y", "echo c z.o z.c z", "echo s w.o"},
		differential: true,
	},
	{
		name:         "a suffix rule",
		files:        map[string]string{"Makefile": ".SUFFIXES: .in .out\nall: a.out\n.in.out:\n\techo conv $< $@ $*\n", "a.in": ""},
		want:         []string{"echo conv a.in a.out a"},
		differential: true,
	},
	{
		name:         "a pattern rule whose prerequisite the makefile builds",
		files:        map[string]string{"Makefile": "all: p.o\n%.o: %.c\n\techo cc $<\np.c: ; echo gen p.c\n"},
		want:         []string{"echo gen p.c", "echo cc p.c"},
		differential: true,
	},
	{
		name:  "git push hidden behind variables",
		files: map[string]string{"Makefile": "G = git\nP = push\nR = origin\nCMD = $(G) $(P) --force $(R)\nrelease: ; $(CMD) main\n"},
		args:  []string{"release"},
		want:  []string{"git push --force origin main"},
	},
	{
		name:  "$(MAKE) stays a make command line, with the invoked name",
		files: map[string]string{"Makefile": "all: ; $(MAKE) -C sub clean\n"},
		want:  []string{"make -C sub clean"},
	},
	{
		name:  "a deferred $(shell) that is never used runs nothing",
		files: map[string]string{"Makefile": "X = $(shell rm -rf /)\nall: ; echo safe\n"},
		want:  []string{"echo safe"},
	},
	{
		name:  "$(shell) in a recipe of a target not built",
		files: map[string]string{"Makefile": "all: ; echo safe\nother: ; echo $(shell date)\n"},
		want:  []string{"echo safe"},
	},
	{
		name:  "a branch not taken is not expanded",
		files: map[string]string{"Makefile": "ifeq (a,b)\nX := $(shell rm -rf /)\ninclude /nonexistent\nendif\nall: ; echo safe\n"},
		want:  []string{"echo safe"},
	},
	{
		name:  "known environment variables",
		files: map[string]string{"Makefile": "all: ; echo $(HOME) $(DEPLOY) $(CFLAGS)\n"},
		env:   map[string]string{"HOME": "/home/u", "DEPLOY": "x"},
		want:  []string{"echo /home/u x "},
	},
	{
		name:  "no makefile and no goal: make runs nothing",
		files: map[string]string{"README": ""},
		want:  []string{},
	},
	{
		name:  "--help and --version run nothing",
		files: map[string]string{"Makefile": "all: ; rm -rf x\n"},
		args:  []string{"--version"},
		want:  []string{"rm -rf x"}, // Read itself does not look at info; the caller does
	},
}

// hostileCases are makefiles the reader must refuse to answer for.
var hostileCases = []fixture{
	{name: "$(shell) in := runs while make reads, even unused",
		files: map[string]string{"Makefile": "X := $(shell rm -rf ~)\nall: ; echo safe\n"}, uncertain: "$(shell …) runs a shell command"},
	{name: "!= runs a shell",
		files: map[string]string{"Makefile": "X != rm -rf ~\nall: ; echo safe\n"}, uncertain: "!= runs a shell command"},
	{name: "$(shell) in a recipe that runs",
		files: map[string]string{"Makefile": "all: ; echo $(shell git push)\n"}, uncertain: "$(shell …)"},
	{name: "$(shell) in a rule line",
		files: map[string]string{"Makefile": "all: $(shell touch x)\n\techo hi\n"}, uncertain: "$(shell …)"},
	{name: "$(shell) in a conditional",
		files: map[string]string{"Makefile": "ifeq ($(shell id -u),0)\nendif\nall: ; echo hi\n"}, uncertain: "$(shell …)"},
	{name: "$(eval)",
		files: map[string]string{"Makefile": "$(eval all: ; rm -rf ~)\n"}, uncertain: "$(eval …) evaluates"},
	{name: "$(file) writes",
		files: map[string]string{"Makefile": "X := $(file >out,text)\nall: ; echo\n"}, uncertain: "$(file …)"},
	{name: "$(error) stops make",
		files: map[string]string{"Makefile": "$(error no)\nall: ; echo\n"}, uncertain: "$(error …)"},
	{name: "recursive variable bomb",
		files: map[string]string{"Makefile": bomb(40) + "all: ; echo $(X40)\n"}, uncertain: "more than"},
	{name: "simple variable bomb at read time",
		files: map[string]string{"Makefile": simpleBomb(40) + "all: ; echo\n"}, uncertain: "bytes"},
	{name: "a variable referencing itself",
		files: map[string]string{"Makefile": "A = $(B)\nB = x $(A)\nall: ; echo $(A)\n"}, uncertain: "references itself"},
	{name: "$(call) recursion",
		files: map[string]string{"Makefile": "F = $(call F,$(1)x)\nall: ; echo $(call F,a)\n"}, uncertain: "calls itself"},
	{name: "foreach blow-up",
		files: map[string]string{"Makefile": "W = " + strings.Repeat("w ", 500) + "\nall: ; echo $(foreach a,$(W),$(foreach b,$(W),$(foreach c,$(W),x)))\n"}, uncertain: "more than"},
	{name: "include cycle",
		files: map[string]string{"Makefile": "include a.mk\nall: ; echo\n", "a.mk": "include b.mk\n", "b.mk": "include a.mk\n"}, uncertain: "more than 16 makefiles"},
	{name: "include of a missing file make would build",
		files: map[string]string{"Makefile": "include gen.mk\ngen.mk: ; echo 'all: ; rm -rf ~' > $@\n"}, uncertain: "gen.mk does not exist"},
	{name: "-include of a missing file with a rule",
		files: map[string]string{"Makefile": "-include gen.mk\nall: ; echo\ngen.mk: ; echo 'x' > $@\n"}, uncertain: "gen.mk does not exist and has a rule"},
	{name: "include of /dev/zero",
		files: map[string]string{"Makefile": "include /dev/zero\nall: ; echo\n"}, uncertain: "not a regular file"},
	{name: "include of a file over the size limit",
		files: map[string]string{"Makefile": "include big.mk\nall: ; echo\n", "big.mk": "# " + strings.Repeat("x", 300<<10) + "\n"}, uncertain: "larger than"},
	{name: "a chain of pattern rules",
		files: map[string]string{"Makefile": "all: a.o\n%.o: %.c\n\techo cc\n%.c: %.y\n\trm -rf ~\n", "a.y": ""}, uncertain: "chain"},
	{name: "a pattern rule whose source a built-in rule makes",
		files: map[string]string{"Makefile": "all: a.o\n%.o: %.c\n\techo cc\n", "a.y": ""}, uncertain: "built-in rule"},
	{name: "a pattern rule with several targets",
		files: map[string]string{"Makefile": "all: a.x\n%.x %.y: %.c\n\techo gen\n", "a.c": ""}, uncertain: "several targets"},
	{name: "a match-anything pattern rule",
		files: map[string]string{"Makefile": "all: a\n%: %.in\n\techo gen\n", "a.in": ""}, uncertain: "match-anything"},
	{name: "a built-in rule with a shorter stem than the makefile's",
		files: map[string]string{"Makefile": "all: x.o\nx%: x%.src\n\techo mine\n", "x.o.src": "", "x.c": ""}, uncertain: "built-in implicit rule"},
	{name: "a pattern rule that builds an included makefile",
		files: map[string]string{"Makefile": "-include gen.mk\nall: ; echo\n%.mk: %.in\n\tcp $< $@\n", "gen.in": ""}, uncertain: "would build it first"},
	{name: "built-in rule with CC redefined",
		files: map[string]string{"Makefile": "CC = rm -rf ~ ;\nall: prog\n", "prog.c": ""}, uncertain: "built-in implicit rule"},
	{name: "built-in rule through a chain (.y → .c → .o)",
		files: map[string]string{"Makefile": "all: p.o\n\techo\n", "p.y": ""}, uncertain: "from p.y"},
	{name: "built-in rule for the makefile itself",
		files: map[string]string{"Makefile": "all: ; echo\n", "Makefile.c": ""}, uncertain: "Makefile"},
	{name: ".DEFAULT recipe",
		files: map[string]string{"Makefile": "all: missing\n.DEFAULT:\n\trm -rf ~\n"}, uncertain: ".DEFAULT"},
	{name: ".ONESHELL",
		files: map[string]string{"Makefile": ".ONESHELL:\nall:\n\techo\n"}, uncertain: ".ONESHELL"},
	{name: ".POSIX",
		files: map[string]string{"Makefile": ".POSIX:\nall: ; echo\n"}, uncertain: ".POSIX"},
	{name: ".SECONDEXPANSION",
		files: map[string]string{"Makefile": ".SECONDEXPANSION:\nall: ; echo\n"}, uncertain: ".SECONDEXPANSION"},
	{name: "SHELL set to another program",
		files: map[string]string{"Makefile": "SHELL = /usr/bin/python3\nall: ; print(1)\n"}, uncertain: "SHELL"},
	{name: "SHELL on the command line",
		files: map[string]string{"Makefile": "all: ; echo\n"}, args: []string{"SHELL=/bin/zsh"}, uncertain: "SHELL"},
	{name: ".SHELLFLAGS with code",
		files: map[string]string{"Makefile": ".SHELLFLAGS = -c 'rm -rf ~' -c\nall: ; echo\n"}, uncertain: ".SHELLFLAGS"},
	{name: "MAKEFLAGS set",
		files: map[string]string{"Makefile": "MAKEFLAGS = -e\nall: ; echo\n"}, uncertain: "MAKEFLAGS"},
	{name: "export",
		files: map[string]string{"Makefile": "export PATH := ./bin:$(PATH)\nall: ; echo\n"}, uncertain: "export"},
	{name: "export all",
		files: map[string]string{"Makefile": "export\nall: ; echo\n"}, uncertain: "export"},
	{name: ".EXPORT_ALL_VARIABLES",
		files: map[string]string{"Makefile": ".EXPORT_ALL_VARIABLES:\nall: ; echo\n"}, uncertain: "EXPORT_ALL"},
	{name: "undefined variable as a command",
		files: map[string]string{"Makefile": "all: ; $(DEPLOY) prod\n"}, uncertain: "DEPLOY"},
	{name: "undefined variable in a conditional",
		files: map[string]string{"Makefile": "ifdef EVIL\nall: ; git push --force\nelse\nall: ; echo\nendif\n"}, uncertain: "EVIL"},
	{name: "double-colon rule",
		files: map[string]string{"Makefile": "all:: ; echo\n"}, uncertain: "double-colon"},
	{name: "target-specific variable on a built target",
		files: map[string]string{"Makefile": "all: X = rm -rf ~\nall: ; $(X)\n"}, uncertain: "target-specific"},
	{name: "pattern-specific variable",
		files: map[string]string{"Makefile": "%: X = rm\nall: ; echo\n"}, uncertain: "pattern-specific"},
	{name: "vpath",
		files: map[string]string{"Makefile": "vpath %.c src\nall: ; echo\n"}, uncertain: "vpath"},
	{name: "VPATH",
		files: map[string]string{"Makefile": "VPATH = src\nall: ; echo\n"}, uncertain: "VPATH"},
	{name: ".RECIPEPREFIX",
		files: map[string]string{"Makefile": ".RECIPEPREFIX = >\nall:\n> rm -rf ~\n"}, uncertain: "RECIPEPREFIX"},
	{name: "load",
		files: map[string]string{"Makefile": "load ./x.so\nall: ; echo\n"}, uncertain: "load"},
	{name: "missing separator",
		files: map[string]string{"Makefile": "this is not make\nall: ; echo\n"}, uncertain: "missing separator"},
	{name: "unterminated conditional",
		files: map[string]string{"Makefile": "ifeq (a,a)\nall: ; echo\n"}, uncertain: "endif"},
	{name: "archive member",
		files: map[string]string{"Makefile": "all: lib.a(x.o)\n"}, uncertain: "archive"},
	{name: "-l prerequisite",
		files: map[string]string{"Makefile": "all: -lfoo\n\techo\n"}, uncertain: "library"},
	{name: "-f of a missing makefile",
		files: map[string]string{"Makefile": "all: ; echo\n"}, args: []string{"-f", "nope.mk"}, uncertain: "does not exist"},
	{name: "-f -",
		files: map[string]string{"Makefile": "all: ; echo\n"}, args: []string{"-f", "-"}, uncertain: "no file"},
	{name: "--eval",
		files: map[string]string{"Makefile": "all: ; echo\n"}, args: []string{"--eval=all: ; rm -rf ~"}, uncertain: "--eval"},
	{name: "-e",
		files: map[string]string{"Makefile": "all: ; echo\n"}, args: []string{"-e"}, uncertain: "-e"},
	{name: "an unknown option",
		files: map[string]string{"Makefile": "all: ; echo\n"}, args: []string{"--frobnicate"}, uncertain: "does not know"},
	{name: "NUL bytes",
		files: map[string]string{"Makefile": "all: ; echo\x00\n"}, uncertain: "NUL"},
	{name: "MAKE redefined",
		files: map[string]string{"Makefile": "MAKE = rm -rf\nall: ; $(MAKE) ~\n"}, uncertain: "MAKE"},
	{name: "a later rule for an included file",
		files: map[string]string{"Makefile": "-include x.mk\nx.mk: y\n"}, uncertain: "x.mk"},
}

func bomb(n int) string {
	var b strings.Builder
	b.WriteString("X0 = xxxxxxxx\n")
	for i := 1; i <= n; i++ {
		b.WriteString("X" + itoa(i) + " = $(X" + itoa(i-1) + ") $(X" + itoa(i-1) + ")\n")
	}
	return b.String()
}

func simpleBomb(n int) string {
	var b strings.Builder
	b.WriteString("X := xxxxxxxx\n")
	for i := 1; i <= n; i++ {
		b.WriteString("X := $(X) $(X)\n")
	}
	return b.String()
}

func TestRead(t *testing.T) {
	for _, f := range append(append([]fixture{}, readerCases...), hostileCases...) {
		t.Run(f.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFixture(t, dir, f.files)
			want := f.want
			for i := range want {
				want[i] = strings.ReplaceAll(strings.ReplaceAll(want[i], "$DIR", dir), "$BASE", filepath.Base(dir))
			}
			start := time.Now()
			res := readFixture(t, dir, f)
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("Read took %v", d)
			}
			checkFixture(t, f, res)
		})
	}
}

// TestReadAgainstGNUMake runs `make -n` on the fixtures that are safe to
// run (no $(shell), no `+` lines, no $(MAKE)) and compares the command
// lines it prints with Read's.
func TestReadAgainstGNUMake(t *testing.T) {
	mk, err := exec.LookPath("make")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("GNU make is not installed (.ci/run installs it)")
		}
		t.Skip("GNU make is not installed")
	}
	n := 0
	for _, f := range readerCases {
		if !f.differential {
			continue
		}
		n++
		t.Run(f.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFixture(t, dir, f.files)
			res := readFixture(t, dir, f)
			if res.Uncertain != "" {
				t.Fatalf("uncertain: %s", res.Uncertain)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, mk, append([]string{"-n"}, f.args...)...)
			cmd.Dir = dir
			cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
			var out, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("make -n: %v\n%s", err, stderr.String())
			}
			want := out.String()
			got := ""
			for _, l := range res.Commands {
				got += l.Text + "\n"
			}
			want = dropMakeMessages(want)
			if got != want {
				t.Errorf("make -n printed\n%q\nRead gave\n%q", want, got)
			}
		})
	}
	if n < 20 {
		t.Fatalf("only %d differential fixtures", n)
	}
}

// dropMakeMessages drops make's own messages (Nothing to be done,
// directories).
func dropMakeMessages(s string) string {
	var out []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(l, "make: ") || strings.HasPrefix(l, "make[") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "")
}

// TestReadRefusesUnsafeFiles: a makefile that is a link to a credential
// file, a named pipe (never opened blocking) and a device.
func TestReadRefusesUnsafeFiles(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(home, ".ssh", "id_rsa")
	if err := os.WriteFile(key, []byte("SECRET = hunter2\nall: ; echo $(SECRET)\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, want string
		setup      func(dir string) error
		args       []string
	}{
		{"a link to ~/.ssh/id_rsa", "credential", func(dir string) error { return os.Symlink(key, filepath.Join(dir, "Makefile")) }, nil},
		{"an include of a link to ~/.ssh/id_rsa", "credential", func(dir string) error {
			if err := os.Symlink(key, filepath.Join(dir, "k.mk")); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, "Makefile"), []byte("include k.mk\n"), 0o644)
		}, nil},
		{"a FIFO", "not a regular file", func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "Makefile"), 0o644) }, nil},
		{"an include of a FIFO", "not a regular file", func(dir string) error {
			if err := syscall.Mkfifo(filepath.Join(dir, "f.mk"), 0o644); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, "Makefile"), []byte("include f.mk\nall: ; echo\n"), 0o644)
		}, nil},
		{"-f /dev/zero", "no file", func(string) error { return nil }, []string{"-f", "/dev/zero"}},
		{"a directory", "not a regular file", func(dir string) error { return os.Mkdir(filepath.Join(dir, "Makefile"), 0o755) }, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := c.setup(dir); err != nil {
				t.Fatal(err)
			}
			inv, _ := ParseArgs(append([]string{"make"}, c.args...), dir)
			done := make(chan Result, 1)
			go func() {
				res, _ := Read(inv, nil, Limits{})
				done <- res
			}()
			select {
			case res := <-done:
				if !strings.Contains(res.Uncertain, c.want) {
					t.Fatalf("Uncertain = %q, want %q", res.Uncertain, c.want)
				}
				if strings.Contains(res.Uncertain, "hunter2") || strings.Contains(strings.Join(texts(res.Commands), " "), "hunter2") {
					t.Fatalf("the secret leaked: %+v", res)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Read blocked")
			}
		})
	}
}

func TestReadLinkInsideProject(t *testing.T) {
	dir := t.TempDir()
	writeFixture(t, dir, map[string]string{"build/real.mk": "all: ; echo linked\n"})
	if err := os.Symlink("build/real.mk", filepath.Join(dir, "Makefile")); err != nil {
		t.Fatal(err)
	}
	res := readFixture(t, dir, fixture{})
	checkFixture(t, fixture{want: []string{"echo linked"}}, res)
	if len(res.Files) != 1 || res.Files[0] != filepath.Join(dir, "Makefile") {
		t.Errorf("Files = %v, want the makefile as named", res.Files)
	}
}

func TestParseArgs(t *testing.T) {
	cases := []struct {
		argv      []string
		dir       string
		files     []string
		targets   []string
		vars      map[string]string
		info      bool
		r         bool
		uncertain string
	}{
		{argv: []string{"make"}, dir: "/p"},
		{argv: []string{"make", "-C", "a", "-C", "b", "x"}, dir: "/p/a/b", targets: []string{"x"}},
		{argv: []string{"make", "-Ca", "--directory=/abs", "--directory", "c"}, dir: "/abs/c"},
		{argv: []string{"make", "-f", "a.mk", "--file=b.mk", "--makefile", "c.mk", "-fd.mk"}, dir: "/p", files: []string{"a.mk", "b.mk", "c.mk", "d.mk"}},
		{argv: []string{"make", "-j", "4", "all", "-k", "-nqs", "-l", "2", "test"}, dir: "/p", targets: []string{"all", "test"}},
		{argv: []string{"make", "-j", "all"}, dir: "/p", targets: []string{"all"}},
		{argv: []string{"make", "CC=rm -rf", "X:=y", "all"}, dir: "/p", targets: []string{"all"}, vars: map[string]string{"CC": "rm -rf", "X": "y"}},
		{argv: []string{"make", "--", "-rf", "A=b"}, dir: "/p", targets: []string{"-rf"}, vars: map[string]string{"A": "b"}},
		{argv: []string{"make", "-rR"}, dir: "/p", r: true},
		{argv: []string{"make", "--no-builtin-r"}, dir: "/p", r: true},
		{argv: []string{"make", "--version"}, dir: "/p", info: true},
		{argv: []string{"make", "-h"}, dir: "/p", info: true},
		{argv: []string{"make", "--print"}, dir: "/p", uncertain: "does not know"},
		{argv: []string{"make", "-X"}, dir: "/p", uncertain: "does not know"},
		{argv: []string{"make", "-E", "x"}, dir: "/p", uncertain: "--eval"},
		{argv: []string{"make", "-Iinc"}, dir: "/p", uncertain: "-I"},
		{argv: []string{"make", "X!=ls"}, dir: "/p", uncertain: "not modelled"},
		{argv: []string{"make", "X+=y"}, dir: "/p", uncertain: "not modelled"},
		{argv: []string{"make", "-C"}, dir: "/p", uncertain: "needs a value"},
		{argv: []string{"make", "-C", "~/x"}, dir: "/p/~/x", uncertain: "home"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.argv, " "), func(t *testing.T) {
			inv, info := ParseArgs(c.argv, "/p")
			if c.uncertain != "" {
				if !strings.Contains(inv.Uncertain, c.uncertain) {
					t.Fatalf("Uncertain = %q, want %q", inv.Uncertain, c.uncertain)
				}
				return
			}
			if inv.Uncertain != "" {
				t.Fatalf("Uncertain = %q", inv.Uncertain)
			}
			if inv.Dir != c.dir || strings.Join(inv.Files, ",") != strings.Join(c.files, ",") ||
				strings.Join(inv.Targets, ",") != strings.Join(c.targets, ",") || info != c.info || inv.NoBuiltinRules != c.r {
				t.Fatalf("got %+v info=%v", inv, info)
			}
			if len(inv.Vars) != len(c.vars) {
				t.Fatalf("Vars = %v, want %v", inv.Vars, c.vars)
			}
			for k, v := range c.vars {
				if inv.Vars[k] != v {
					t.Fatalf("Vars = %v, want %v", inv.Vars, c.vars)
				}
			}
		})
	}
}

func TestReadNeedsAbsoluteDir(t *testing.T) {
	if _, err := Read(Invocation{Dir: "rel"}, nil, Limits{}); err != ErrNoDir {
		t.Fatalf("err = %v", err)
	}
}
