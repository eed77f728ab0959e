package makefile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchProject is a C project's makefile: 60 sources built by a static
// pattern rule, variables of every flavour, an include, conditionals,
// functions, and clean/install/test targets.
func benchProject(b *testing.B) string {
	dir := b.TempDir()
	var srcs []string
	for i := range 60 {
		n := fmt.Sprintf("src/m%02d.c", i)
		srcs = append(srcs, n)
		if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	mk := `include config.mk
SRCS := $(wildcard src/*.c)
OBJS := $(SRCS:.c=.o)
DEPS = $(OBJS:.o=.d)
CFLAGS += -O2 -Wall $(addprefix -I,include src)
ifeq ($(MODE),debug)
CFLAGS += -g
else
CFLAGS += -DNDEBUG
endif
all: $(PROG)
$(PROG): $(OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(OBJS): %.o: %.c
	$(CC) $(CFLAGS) -c $< -o $@
install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(PROG) $(DESTDIR)$(PREFIX)/bin
test: all
	./$(PROG) --self-test
	$(foreach t,$(basename $(notdir $(SRCS))),echo $(t);)
clean:
	$(RM) $(OBJS) $(DEPS) $(PROG)
.PHONY: all install test clean
`
	files := map[string]string{"Makefile": mk, "config.mk": "PROG = app\nPREFIX ?= /usr/local\nMODE = release\n"}
	for p, c := range files {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	_ = strings.Join(srcs, " ")
	return dir
}

// BenchmarkRead: reading the project's makefile for `make` (63 recipe
// lines) and `make clean`, from the page cache.
func BenchmarkRead(b *testing.B) {
	dir := benchProject(b)
	for _, goal := range []string{"all", "clean"} {
		b.Run(goal, func(b *testing.B) {
			inv := Invocation{Dir: dir, Targets: []string{goal}}
			for b.Loop() {
				res, err := Read(inv, nil, Limits{})
				if err != nil || res.Uncertain != "" || len(res.Commands) == 0 {
					b.Fatalf("%v %q %d", err, res.Uncertain, len(res.Commands))
				}
			}
		})
	}
}
