package bash

import (
	"path"
	"strconv"
)

// execCmd: exec [-cl] [-a NAME] cmd args. -a hands cmd NAME as its
// argv[0], and multi-call programs choose what to be by it (exec -a
// git-init git initialises a repository; gzip named gunzip decompresses,
// busybox is any applet): the command is judged by its own name, so a
// NAME other than that name (or not known statically) is not read-only
// (docs/shell.md, "Wrappers").
func (w *walker) execCmd(c *wrapperCall) (state, state, bool) {
	opts, i, ok := c.opts.scan(c.argv)
	if !ok {
		return w.failed(c)
	}
	a, named := hasOpt(opts, "a")
	if !named || i >= len(c.argv) {
		return w.runsOperands(c)
	}
	prog := c.argv[i]
	if !prog.dynamic && !prog.glob && !prog.splits && prog.taint == "" && a.value == path.Base(prog.s) {
		return w.runsOperands(c)
	}
	why := "exec -a " + strconv.Quote(a.value) + " names the program " + strconv.Quote(prog.s) +
		" otherwise, and a program may choose what it does by that name (git-init, gunzip)"
	w.command(c.argv[i:], c.fr.wrap(c.name, c.sv, c.transparent, why), c.st, c.stdin)
	return c.st, c.st, true
}
